// The coordinator's cache of run books: bounded in books and bytes, least recently used
// evicted first, and a book larger than the whole budget served without being kept.
#include <gtest/gtest.h>

#include "coordinator/domain/book_cache.h"

namespace sparring::coordinator {
namespace {

// Returns a book of n openings.
BookCache::Book book(size_t n) {
    auto openings = std::make_shared<std::vector<Opening>>();
    for (size_t i = 0; i < n; ++i)
        openings->push_back({"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", {"e2e4"}});
    return openings;
}

TEST(BookCache, EvictsTheLeastRecentlyUsedBeyondTheCount) {
    BookCache cache(3, size_t(1) << 30);
    for (int64_t run = 1; run <= 3; ++run) cache.insert({run, 0}, book(2));
    ASSERT_TRUE(cache.find({1, 0}));  // run 1 is now the most recently used
    cache.insert({4, 0}, book(2));
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_TRUE(cache.find({1, 0}));
    EXPECT_FALSE(cache.find({2, 0}));  // the least recently used went
    EXPECT_TRUE(cache.find({3, 0}));
    EXPECT_TRUE(cache.find({4, 0}));
    // Thousands of runs later the cache still holds three books.
    for (int64_t run = 5; run < 5000; ++run) cache.insert({run, 0}, book(1));
    EXPECT_EQ(cache.size(), 3u);
}

TEST(BookCache, StaysWithinItsByteBudget) {
    const size_t one = book_bytes(*book(100));
    BookCache cache(1000, 3 * one);
    for (int64_t run = 1; run <= 10; ++run) cache.insert({run, 0}, book(100));
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_LE(cache.bytes(), 3 * one);
    // Too large for the budget: served, not kept, and nothing else evicted for it.
    const BookCache::Book huge = book(1000);
    EXPECT_EQ(cache.insert({99, 0}, huge), huge);
    EXPECT_FALSE(cache.find({99, 0}));
    EXPECT_EQ(cache.size(), 3u);
}

TEST(BookCache, AKeptBookWinsARace) {
    BookCache cache(4, size_t(1) << 30);
    const BookCache::Book first = book(1);
    cache.insert({1, 7}, first);
    EXPECT_EQ(cache.insert({1, 7}, book(1)), first);
    EXPECT_FALSE(cache.find({1, 8}));  // same run id, another creation time
}

}  // namespace
}  // namespace sparring::coordinator
