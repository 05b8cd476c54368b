#include "coordinator/domain/book_cache.h"

namespace sparring::coordinator {

std::size_t book_bytes(const std::vector<Opening>& book) {
    std::size_t bytes = sizeof book + book.capacity() * sizeof(Opening);
    for (const Opening& opening : book) {
        bytes += opening.fen.capacity() + opening.moves.capacity() * sizeof(std::string);
        for (const std::string& move : opening.moves) bytes += move.capacity();
    }
    return bytes;
}

BookCache::BookCache(std::size_t max_books, std::size_t max_bytes)
    : max_books_(max_books), max_bytes_(max_bytes) {}

BookCache::Book BookCache::find(const Key& key) {
    std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    recent_.splice(recent_.begin(), recent_, it->second);
    return it->second->book;
}

BookCache::Book BookCache::insert(const Key& key, Book book) {
    const std::size_t bytes = book_bytes(*book);
    std::lock_guard lock(mutex_);
    if (const auto it = index_.find(key); it != index_.end()) {
        recent_.splice(recent_.begin(), recent_, it->second);
        return it->second->book;  // another thread loaded it first
    }
    if (bytes > max_bytes_ || max_books_ == 0) return book;
    while (!recent_.empty() && (recent_.size() >= max_books_ || bytes_ + bytes > max_bytes_)) {
        bytes_ -= recent_.back().bytes;
        index_.erase(recent_.back().key);
        recent_.pop_back();
    }
    recent_.push_front({key, book, bytes});
    index_[key] = recent_.begin();
    bytes_ += bytes;
    return book;
}

std::size_t BookCache::size() const {
    std::lock_guard lock(mutex_);
    return recent_.size();
}

std::size_t BookCache::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace sparring::coordinator
