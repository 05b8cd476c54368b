#include "engine/tt.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace sparring {

TranspositionTable::TranspositionTable(int megabytes) {
    resize(megabytes);
}

void TranspositionTable::FreeBuckets::operator()(Bucket* buckets) const {
    std::free(buckets);
}

// Reallocates the bucket array for the given size and clears it.
void TranspositionTable::resize(int megabytes) {
    std::size_t bytes = static_cast<std::size_t>(std::max(1, megabytes)) << 20;
    std::size_t count = bytes / sizeof(Bucket);
    // Aligned to 2 MiB and marked for transparent huge pages: probes land on random
    // buckets, and with 4 KiB pages most of them would also miss the TLB. Allocate before
    // touching the members, so a failed allocation leaves the old table.
    constexpr std::size_t HUGE_PAGE = std::size_t{2} << 20;
    const std::size_t size = (count * sizeof(Bucket) + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void* memory = std::aligned_alloc(HUGE_PAGE, size);
    if (!memory) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(memory, size, MADV_HUGEPAGE);  // a hint: the table works the same without it
#endif
    std::memset(memory, 0, count * sizeof(Bucket));  // empty buckets, all of epoch 0
    buckets_.reset(static_cast<Bucket*>(memory));
    bucket_count_ = count;
    megabytes_ = std::max(1, megabytes);
    epoch_ = 0;
    generation_ = 0;
}

// Starts a new epoch, which makes every bucket read as empty, and resets the generation,
// so a cleared table behaves exactly like a new one. Only when the epoch counter wraps
// around are the buckets zeroed for real.
void TranspositionTable::clear() {
    if (++epoch_ == 0)
        std::memset(static_cast<void*>(buckets_.get()), 0, bucket_count_ * sizeof(Bucket));
    generation_ = 0;
}

// Searches the bucket for an entry whose stored key half matches.
bool TranspositionTable::probe(Key key, TTData& data) const {
    const Bucket* bucket = bucket_of(key);
    if (!is_current(*bucket)) return false;
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
    if (!is_current(*bucket)) {
        std::memset(static_cast<void*>(bucket->entries), 0, sizeof(bucket->entries));
        bucket->epoch = epoch_;
    }
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
    for (int i = 0; i < samples; ++i) {
        if (!is_current(buckets_[i])) continue;
        for (const Entry& e : buckets_[i].entries)
            if (e.depth8 != 0 && (e.gen_bound & 0xFC) == generation_) ++used;
    }
    return used * 1000 / (samples * BUCKET_SIZE);
}

}  // namespace sparring
