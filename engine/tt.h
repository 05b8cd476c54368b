// The transposition table: a per-engine hash of searched positions (score, bound, depth,
// best move), in buckets of entries that fill one cache line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/types.h"

namespace sparring {

enum Bound : std::uint8_t { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

// What a probe returns: a copy of the entry, so later writes cannot tear it.
struct TTData {
    Move move;
    int score = 0;  // in the table's node-relative form (see value_from_tt)
    int eval = 0;   // static evaluation, VALUE_NONE when unknown
    int depth = 0;
    Bound bound = BOUND_NONE;
};

class TranspositionTable {
  public:
    // Allocates a cleared table of the given size in MiB (at least 1).
    explicit TranspositionTable(int megabytes);

    // Reallocates the table with a new size in MiB and clears it; if memory runs out it
    // throws std::bad_alloc and keeps the old table.
    void resize(int megabytes);
    // Empties every entry.
    void clear();
    // Starts a new search: older entries become preferred victims of replacement.
    void new_search() { generation_ = static_cast<std::uint8_t>((generation_ + 4) & 0xFC); }
    // Looks key up; returns true and fills data when the position is stored.
    bool probe(Key key, TTData& data) const;
    // Stores a search result for key, replacing the least valuable entry of its bucket.
    void store(Key key, Move move, int score, int eval, int depth, Bound bound);
    // Returns the permille of sampled entries written during the current search.
    int hashfull() const;

  private:
    struct Entry {
        std::uint32_t key32;
        std::uint16_t move;
        std::int16_t score;
        std::int16_t eval;
        std::uint8_t depth8;     // depth + DEPTH_OFFSET, 0 when empty
        std::uint8_t gen_bound;  // generation in the high 6 bits, bound in the low 2
    };
    static constexpr int BUCKET_SIZE = 5;
    struct alignas(64) Bucket {
        Entry entries[BUCKET_SIZE];
    };
    static constexpr int DEPTH_OFFSET = 8;

    Bucket* bucket_of(Key key) const;

    std::unique_ptr<Bucket[]> buckets_;
    std::size_t bucket_count_ = 0;
    std::uint8_t generation_ = 0;
};

}  // namespace sparring
