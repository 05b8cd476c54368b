#include "engine/tt.h"

#include <algorithm>
#include <cstring>

namespace sparring {

TranspositionTable::TranspositionTable(int megabytes) {
    resize(megabytes);
}

// Reallocates the bucket array for the given size and clears it.
void TranspositionTable::resize(int megabytes) {
    std::size_t bytes = static_cast<std::size_t>(std::max(1, megabytes)) << 20;
    std::size_t count = bytes / sizeof(Bucket);
    // Allocate before touching the members, so a failed allocation leaves the old table.
    buckets_ = std::make_unique<Bucket[]>(count);
    bucket_count_ = count;
    clear();
}

// Zeroes every bucket and resets the generation, so a cleared table behaves like a new one.
void TranspositionTable::clear() {
    std::memset(static_cast<void*>(buckets_.get()), 0, bucket_count_ * sizeof(Bucket));
    generation_ = 0;
}

namespace {
__extension__ using Uint128 = unsigned __int128;
}  // namespace

// Maps a key to its bucket with a multiply-high, which uses the key's upper bits.
TranspositionTable::Bucket* TranspositionTable::bucket_of(Key key) const {
    auto index = static_cast<std::size_t>((Uint128{key} * Uint128{bucket_count_}) >> 64);
    return &buckets_[index];
}

// Searches the bucket for an entry whose stored key half matches.
bool TranspositionTable::probe(Key key, TTData& data) const {
    const Bucket* bucket = bucket_of(key);
    auto key32 = static_cast<std::uint32_t>(key);
    for (const Entry& e : bucket->entries) {
        if (e.key32 != key32 || e.depth8 == 0) continue;
        data.move = Move::from_raw(e.move);
        data.score = e.score;
        data.eval = e.eval;
        data.depth = e.depth8 - DEPTH_OFFSET;
        data.bound = Bound(e.gen_bound & 3);
        return true;
    }
    return false;
}

// Overwrites the same position's entry, or else the shallowest and oldest entry of the bucket.
void TranspositionTable::store(Key key, Move move, int score, int eval, int depth, Bound bound) {
    Bucket* bucket = bucket_of(key);
    auto key32 = static_cast<std::uint32_t>(key);
    Entry* victim = &bucket->entries[0];
    int victim_worth = 1 << 30;
    for (Entry& e : bucket->entries) {
        if (e.depth8 == 0 || e.key32 == key32) {
            victim = &e;
            break;
        }
        int age = ((generation_ - e.gen_bound) & 0xFC) / 4;
        int worth = e.depth8 - 2 * age;
        if (worth < victim_worth) {
            victim = &e;
            victim_worth = worth;
        }
    }
    bool same = victim->key32 == key32 && victim->depth8 != 0;
    if (same && !move) move = Move::from_raw(victim->move);
    // Keep a deeper entry of the same position unless the new result is exact.
    if (same && bound != BOUND_EXACT && depth + DEPTH_OFFSET + 3 < victim->depth8) return;
    victim->key32 = key32;
    victim->move = move.raw();
    victim->score = static_cast<std::int16_t>(score);
    victim->eval = static_cast<std::int16_t>(eval);
    victim->depth8 = static_cast<std::uint8_t>(std::clamp(depth + DEPTH_OFFSET, 1, 255));
    victim->gen_bound = static_cast<std::uint8_t>(generation_ | bound);
}

// Counts the current generation's entries in the first thousand buckets.
int TranspositionTable::hashfull() const {
    int samples = static_cast<int>(std::min<std::size_t>(1000, bucket_count_));
    int used = 0;
    for (int i = 0; i < samples; ++i)
        for (const Entry& e : buckets_[i].entries)
            if (e.depth8 != 0 && (e.gen_bound & 0xFC) == generation_) ++used;
    return used * 1000 / (samples * BUCKET_SIZE);
}

}  // namespace sparring
