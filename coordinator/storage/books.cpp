#include "coordinator/storage/books.h"

#include <optional>
#include <string>

#include "common/sha256.h"
#include "coordinator/storage/compression.h"

namespace sparring::coordinator {

int64_t store_book(Database& db, std::string_view lines, uint64_t openings) {
    Sha256 digest;
    digest.update(lines);
    const std::string hash = digest.hex();
    Statement& find = db.prepare("SELECT id FROM books WHERE sha256 = ?");
    find.bind(hash);
    const std::optional<int64_t> found = find.step() ? std::optional(find.int64(0)) : std::nullopt;
    find.reset();
    if (found) return *found;
    Statement& insert = db.prepare("INSERT INTO books (sha256, openings, data) VALUES (?, ?, ?)");
    const std::string data = compress(lines);
    insert.bind(hash, openings, Blob{data});
    insert.run();
    return db.last_insert_rowid();
}

}  // namespace sparring::coordinator
