// sparring-bench-pgn-codec: the stored form of a database's games (issue 53, part 3;
// bench/db_size.sh, BENCHMARKS.md).
//   sparring-bench-pgn-codec DB            how its games are stored, and the CPU cost per game
//                                          of encode_pgn (compact, with its check), of the old
//                                          zlib encoding, and of decode_pgn
//   sparring-bench-pgn-codec DB --to-zlib  rewrites its games in the old encoding (zlib of the
//                                          text, as before schema 28), for the size before
#include "coordinator/storage/pgn_codec.h"

#include <time.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/storage/compression.h"
#include "coordinator/storage/sqlite.h"

using namespace sparring::coordinator;

namespace {

// Returns this thread's CPU time in microseconds (a loaded machine's other work left out).
double cpu_microseconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
}

// Returns the mean CPU microseconds per item of fn over the items, repeated for 0.5 s of CPU.
template <typename Fn>
double microseconds_per(const std::vector<std::string>& items, Fn fn) {
    const double start = cpu_microseconds();
    std::size_t done = 0;
    std::size_t sink = 0;
    while (cpu_microseconds() - start < 500000 || done == 0) {
        for (const std::string& item : items) sink += fn(item);
        done += items.size();
    }
    const double us = cpu_microseconds() - start;
    if (sink == 1) std::puts("");  // keeps the work
    return us / double(done);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || (argc == 3 && std::string_view(argv[2]) != "--to-zlib") || argc > 3) {
        std::fprintf(stderr, "usage: sparring-bench-pgn-codec DB [--to-zlib]\n");
        return 2;
    }
    Database db(argv[1]);
    if (argc == 3) {
        db.exec("BEGIN IMMEDIATE");
        for (const char* table : {"games", "purged_games"}) {
            std::vector<std::pair<int64_t, std::string>> rows;
            Statement& read = db.prepare(std::string("SELECT id, pgn FROM ") + table);
            read.bind();
            while (read.step()) rows.emplace_back(read.int64(0), read.blob(1));
            read.reset();
            Statement& write =
                db.prepare(std::string("UPDATE ") + table + " SET pgn = ? WHERE id = ?");
            for (const auto& [id, stored] : rows)
                write.bind(Blob{encode_pgn_zlib(decode_pgn(stored).value_or(""))}, id).run();
        }
        db.exec("COMMIT");
        return 0;
    }
    std::vector<std::string> texts;
    std::size_t stored_bytes = 0, compact = 0, text_bytes = 0;
    Statement& read = db.prepare("SELECT pgn FROM games");
    read.bind();
    while (read.step()) {
        const std::string stored = read.blob(0);
        stored_bytes += stored.size();
        compact += !stored.empty() && uint8_t(stored[0]) == kCompactPgnFormat;
        texts.push_back(decode_pgn(stored).value_or(""));
        text_bytes += texts.back().size();
    }
    read.reset();
    if (texts.empty()) {
        std::fprintf(stderr, "no games\n");
        return 1;
    }
    std::vector<std::string> stored_compact, stored_zlib;
    std::size_t compact_bytes = 0, zlib_bytes = 0;
    for (const std::string& t : texts) {
        stored_compact.push_back(encode_pgn(t));
        stored_zlib.push_back(encode_pgn_zlib(t));
        compact_bytes += stored_compact.back().size();
        zlib_bytes += stored_zlib.back().size();
    }
    const double n = double(texts.size());
    std::printf(
        "games: %zu (%zu stored compact); PGN text %.0f bytes/game; stored %.0f bytes/game\n",
        texts.size(), compact, double(text_bytes) / n, double(stored_bytes) / n);
    std::printf("pgn column: zlib (before) %.0f bytes/game, compact (after) %.0f bytes/game\n",
                double(zlib_bytes) / n, double(compact_bytes) / n);
    const double encode =
        microseconds_per(texts, [](const std::string& t) { return encode_pgn(t).size(); });
    const double zlib =
        microseconds_per(texts, [](const std::string& t) { return encode_pgn_zlib(t).size(); });
    const double decode = microseconds_per(
        stored_compact, [](const std::string& s) { return decode_pgn(s)->size(); });
    const double decode_zlib =
        microseconds_per(stored_zlib, [](const std::string& s) { return decode_pgn(s)->size(); });
    std::printf("encode_pgn (compact, checked): %.1f us/game; zlib (before): %.1f us/game\n",
                encode, zlib);
    std::printf("decode_pgn compact: %.1f us/game; zlib (before): %.1f us/game\n", decode,
                decode_zlib);
    return 0;
}
