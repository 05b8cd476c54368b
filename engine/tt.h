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
    // Empties every entry. Takes constant time: the table moves to a new epoch, and a
    // bucket last written in an older epoch reads as empty (see Bucket::epoch).
    void clear();
    // Starts a new search: older entries become preferred victims of replacement.
    void new_search() { generation_ = static_cast<std::uint8_t>((generation_ + 4) & 0xFC); }
    // Looks key up; returns true and fills data when the position is stored.
    bool probe(Key key, TTData& data) const;
    // Starts loading key's bucket into the cache, so that a probe soon after (the child
    // node's, right after a move is made) does not wait for memory.
    void prefetch(Key key) const { __builtin_prefetch(bucket_of(key)); }
    // Stores a search result for key, replacing the least valuable entry of its bucket.
    void store(Key key, Move move, int score, int eval, int depth, Bound bound);
    // Returns the permille of sampled entries written during the current search.
    int hashfull() const;
    // Returns the size in MiB the table was last given (at least 1).
    int megabytes() const { return megabytes_; }

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
        // The clear() count when the bucket was last written; entries of an older epoch
        // are stale and the bucket behaves exactly like a zeroed one. It uses bytes of the
        // cache line that the five entries leave free.
        std::uint32_t epoch;
    };
    static_assert(sizeof(Bucket) == 64, "a bucket fills one cache line");
    static constexpr int DEPTH_OFFSET = 8;

    // Maps a key to its bucket with a multiply-high, which uses the key's upper bits.
    Bucket* bucket_of(Key key) const {
        __extension__ using Uint128 = unsigned __int128;
        auto index = static_cast<std::size_t>((Uint128{key} * Uint128{bucket_count_}) >> 64);
        return &buckets_[index];
    }
    // Returns whether the bucket holds entries of the current epoch.
    bool is_current(const Bucket& bucket) const { return bucket.epoch == epoch_; }

    // Frees the bucket array (allocated aligned, for huge pages).
    struct FreeBuckets {
        void operator()(Bucket* buckets) const;
    };

    std::unique_ptr<Bucket[], FreeBuckets> buckets_;
    std::size_t bucket_count_ = 0;
    int megabytes_ = 0;
    std::uint32_t epoch_ = 0;
    std::uint8_t generation_ = 0;
};

}  // namespace sparring
