// The openings of recently leased runs in play order, kept so that a lease need not read its
// run's book again: bounded in books and bytes, the least recently used evicted first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "common/opening.h"

namespace sparring::coordinator {

// Returns about how much memory a book takes.
std::size_t book_bytes(const std::vector<Opening>& book);

class BookCache {
  public:
    using Key = std::pair<int64_t, int64_t>;  // run id and creation time
    using Book = std::shared_ptr<const std::vector<Opening>>;

    BookCache(std::size_t max_books, std::size_t max_bytes);

    // Returns the book of key, marking it most recently used; null when it is not kept.
    Book find(const Key& key);
    // Keeps book as the most recently used, evicting others to stay within the bounds (a
    // book larger than the byte bound is not kept); returns the book kept for key.
    Book insert(const Key& key, Book book);
    // Returns how many books, and about how many bytes, are kept.
    std::size_t size() const;
    std::size_t bytes() const;

  private:
    struct Entry {
        Key key;
        Book book;
        std::size_t bytes;
    };

    const std::size_t max_books_;
    const std::size_t max_bytes_;
    mutable std::mutex mutex_;
    std::list<Entry> recent_;  // most recently used first
    std::map<Key, std::list<Entry>::iterator> index_;
    std::size_t bytes_ = 0;
};

}  // namespace sparring::coordinator
