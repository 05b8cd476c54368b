#include "coordinator/storage/books.h"

#include <optional>
#include <string>
#include <vector>

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

void store_books_once(Database& db) {
    db.exec(
        "CREATE TABLE IF NOT EXISTS books ("
        "  id       INTEGER PRIMARY KEY,"
        "  sha256   TEXT NOT NULL UNIQUE,"  // of the openings' lines, uncompressed
        "  openings INTEGER NOT NULL,"
        "  data     BLOB NOT NULL"  // zlib: one "FEN<TAB>moves" line per opening
        ")");
    Statement& has = db.prepare("SELECT count(*) FROM pragma_table_info('runs') WHERE name = ?");
    has.bind(std::string("book_id"));
    const bool present = has.step() && has.int64(0) > 0;
    has.reset();
    if (!present) db.exec("ALTER TABLE runs ADD COLUMN book_id INTEGER");  // books.id
    std::vector<int64_t> runs;
    Statement& list = db.prepare("SELECT id FROM runs WHERE book_id IS NULL ORDER BY id");
    list.bind();
    while (list.step()) runs.push_back(list.int64(0));
    list.reset();
    for (const int64_t run : runs) {  // one book in memory at a time
        Statement& read = db.prepare("SELECT book, book_size FROM runs WHERE id = ?");
        read.bind(run);
        if (!read.step()) {
            read.reset();
            continue;
        }
        const std::optional<std::string> lines = decompress(read.blob(0));
        const uint64_t openings = uint64_t(read.int64(1));
        read.reset();
        if (!lines) continue;
        const int64_t book = store_book(db, *lines, openings);
        Statement& move = db.prepare("UPDATE runs SET book_id = ?, book = x'' WHERE id = ?");
        move.bind(book, run);
        move.run();
    }
}

}  // namespace sparring::coordinator
