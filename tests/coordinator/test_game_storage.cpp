// A game in 400 bytes (issue 53, part 3): the compact stored form of a PGN (storage/
// pgn_codec.h) gives back byte for byte the games the real PGN writer makes with the settings
// of every run kind, falls back to zlib for any other text, survives damaged and forged
// blobs, and migration 28 converts the games stored before it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/migrations.h"
#include "coordinator/storage/pgn_codec.h"
#include "coordinator/storage/sqlite.h"
#include "coordinator/storage/sqlite_storage.h"
#include "engine/board.h"
#include "engine/notation.h"
#include "fixture.h"
#include "match/game.h"
#include "match/pgn.h"
#include "match/player.h"

namespace sparring::coordinator {
namespace {

using testing::TempDatabase;

match::PlayerSpec builtin(const std::string& name, const char* preset = "default") {
    return match::PlayerSpec{name, match::BuiltinSpec{*ParamSet::preset(preset), 1}, 0};
}

// The PgnContext a worker writes a run's games with (worker/match_setup.cpp, worker.cpp's
// scaled clock, match/runner.cpp's round and builds).
match::PgnContext worker_context(int run, const TimeControl& tc, bool scaled, bool builds) {
    match::PgnContext context;
    context.event = "Sparring run " + std::to_string(run);
    context.site = "worker-7";
    context.date = "2026.12.07";
    context.round = std::to_string(2 * run + 1);
    context.time_control = tc.pgn_tag();
    if (scaled)
        context.extra_tags = {
            {"ClockFactor", "1.0375"}, {"ReferenceTimeControl", "10+0.1"}, {"WorkerNps", "812345"}};
    if (builds) {
        context.extra_tags.emplace_back("WhiteBuild", "x86-64-v3");
        context.extra_tags.emplace_back("BlackBuild", "portable");
    }
    return context;
}

// Plays one game between built-in engines with the kind's settings and writes its PGN.
std::string played(const Opening& opening, const match::GameSettings& settings,
                   const match::PgnContext& context, const char* black_preset = "seed") {
    auto white = match::make_player(builtin("test"));
    auto black = match::make_player(builtin("base", black_preset));
    std::atomic<bool> stop{false};
    std::optional<match::GameResult> game =
        match::play_game(*white, *black, opening, settings, stop);
    EXPECT_TRUE(game);
    return game ? match::write_pgn(*game, context) : std::string();
}

// Checks that the PGN is stored compactly and read back byte for byte.
void expect_compact(const std::string& pgn) {
    const std::string stored = encode_pgn(pgn);
    ASSERT_FALSE(stored.empty());
    EXPECT_EQ(uint8_t(stored[0]), kCompactPgnFormat) << pgn;
    EXPECT_EQ(decode_pgn(stored), pgn);
    EXPECT_LT(stored.size(), encode_pgn_zlib(pgn).size());
}

match::GameSettings settings_of(const char* tc, int max_plies = 0, bool adjudicate = true) {
    match::GameSettings settings;
    settings.time_control = *parse_time_control(tc);
    if (adjudicate) {
        settings.adjudication.draw = match::DrawRule{34, 8, 20};
        settings.adjudication.resign = match::ResignRule{3, 600, false};
    }
    settings.adjudication.max_plies = max_plies;
    return settings;
}

const Opening kBookOpening{"rnbqkbnr/pppp1p2/7p/4p1p1/P5P1/2P2P2/1P1PP2P/RNBQKBNR b KQkq - 0 1",
                           {"h6h5", "g4h5"}};

// Fixed games and SPRT/regression runs: nodes, depth and clocks (a scaled clock's tags and
// builds per instruction set), draw and resign adjudication, FEN starts from a book with book
// moves, the standard start, a maximum length.
TEST(GameStorage, GamesOfMatchRunsAreStoredCompactlyAndReadBackByteExact) {
    const Opening start{std::string(START_FEN), {}};
    expect_compact(played(kBookOpening, settings_of("nodes=1000"),
                          worker_context(1, *parse_time_control("nodes=1000"), false, false)));
    expect_compact(played(start, settings_of("nodes=600"),
                          worker_context(2, *parse_time_control("nodes=600"), false, true)));
    expect_compact(played(start, settings_of("depth=3", 40),
                          worker_context(3, *parse_time_control("depth=3"), false, false)));
    expect_compact(played(kBookOpening, settings_of("0.4+0.01", 60),
                          worker_context(4, *parse_time_control("0.4+0.01"), true, true)));
    expect_compact(played(start, settings_of("movetime=2", 30, false),
                          worker_context(5, *parse_time_control("movetime=2"), false, false)));
    // --pgn-plain: moves without comments.
    match::PgnContext plain = worker_context(6, *parse_time_control("nodes=300"), false, false);
    plain.comments = false;
    expect_compact(played(kBookOpening, settings_of("nodes=300", 50), plain));
}

// Tune (SPSA) runs play the built-in engine with parameter sets against each other, at nodes;
// generate and chain runs play self-play games at depth or nodes from book positions.
TEST(GameStorage, GamesOfTuneAndGenerateRunsAreStoredCompactly) {
    expect_compact(played(kBookOpening, settings_of("nodes=800", 0, true),
                          worker_context(7, *parse_time_control("nodes=800"), false, false),
                          "default"));
    expect_compact(played({"8/8/4k3/8/3PK3/8/8/8 w - - 0 40", {}}, settings_of("depth=4", 80),
                          worker_context(8, *parse_time_control("depth=4"), false, false)));
}

// The endings a run's games may have that an in-process game rarely gives: time losses,
// illegal moves, crashes and stalls of UCI engines, mates, odd reasons, a game without moves.
TEST(GameStorage, FaultEndingsMatesAndReasonsAreStoredCompactly) {
    Board board;
    match::GameResult game;
    game.white = "test";
    game.black = "base";
    game.start_fen = std::string(START_FEN);
    const char* uci[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"};
    int ply = 0;
    for (const char* text : uci) {
        match::PlayedMove m;
        m.move = parse_uci(board, text);
        board.do_move(m.move);
        m.book = ply < 2;
        if (ply == 4) m.score = match::EngineScore{5, true};
        if (ply == 5) m.score = match::EngineScore{-12, true};
        if (ply == 6) m.score = match::EngineScore{-2147, false};
        if (ply == 7) m.score = match::EngineScore{0, false};
        m.depth = ply * 3;
        m.time_ms = ply * 1234567;
        game.moves.push_back(m);
        ++ply;
    }
    const TimeControl clock = *parse_time_control("10+0.1");
    struct Ending {
        Outcome outcome;
        match::Termination termination;
        std::string reason;
    };
    const Ending endings[] = {
        {Outcome::Loss, match::Termination::TimeForfeit, "White loses on time (12 ms over)"},
        {Outcome::Win, match::Termination::IllegalMove,
         "Black's engine played an illegal move 'e1g1' {\"quoted\"} in position"},
        {Outcome::Loss, match::Termination::Crash, "White's engine crashed (exit status 139)"},
        {Outcome::Win, match::Termination::Stalled, "Black's engine stalled: no move in 30 s"},
        {Outcome::Draw, match::Termination::MaxPlies, "Draw by maximum game length"},
        {Outcome::Draw, match::Termination::MaxPlies, ""},
    };
    for (const Ending& e : endings) {
        game.outcome = e.outcome;
        game.termination = e.termination;
        game.reason = e.reason;
        expect_compact(match::write_pgn(game, worker_context(9, clock, true, false)));
    }
    // A game lost before its first move, from a position with black to move.
    match::GameResult empty;
    empty.white = "a \"quoted\\\" name";
    empty.black = "base";
    empty.start_fen = "8/8/4k3/8/8/3NK3/8/8 b - - 3 57";
    empty.outcome = Outcome::Win;
    empty.termination = match::Termination::Crash;
    empty.reason = "Black's engine crashed before its first move";
    expect_compact(match::write_pgn(empty, worker_context(10, clock, false, false)));
}

// Any text the compact form cannot give back is stored as its zlib stream, and read back.
TEST(GameStorage, OtherTextFallsBackToZlibByteExact) {
    const std::string texts[] = {
        "",
        "not a PGN at all",
        "[Event \"x\"]\n\n1. e4 e5 2. Qh5 *\n",    // no blank line at the end
        "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n\n",  // an illegal move
        "[Event \"x\"]\n\n1.  e4 *\n\n",           // two spaces
        "[Event \"x\"]\n[FEN \"garbage\"]\n\n1. e4 *\n\n",
        "[Event \"x\"]\n\n1. e4 {+0.3/5 01ms} *\n\n",  // not canonical numbers: kept as text
        std::string("[Event \"\xff\"]\n\n1. e4 1-0\n\n"),
    };
    for (const std::string& text : texts) {
        const std::string stored = encode_pgn(text);
        EXPECT_EQ(decode_pgn(stored), text);
    }
    EXPECT_NE(uint8_t(encode_pgn("not a PGN at all")[0]), kCompactPgnFormat);
    // A comment whose numbers are not as write_pgn writes them is kept as text, compactly.
    const std::string odd = "[Event \"x\"]\n\n1. e4 {+0.3/5 01ms} *\n\n";
    EXPECT_EQ(uint8_t(encode_pgn(odd)[0]), kCompactPgnFormat);
}

// A damaged or forged blob is refused or read as some text, never a crash, an endless loop or
// an unbounded allocation: every byte flipped, every cut, random bytes after the format byte.
TEST(GameStorage, DamagedAndForgedBlobsNeverCrash) {
    const std::string pgn =
        played(kBookOpening, settings_of("nodes=300", 60),
               worker_context(11, *parse_time_control("nodes=300"), false, false));
    const std::string stored = encode_pgn(pgn);
    ASSERT_EQ(uint8_t(stored[0]), kCompactPgnFormat);
    for (std::size_t i = 0; i < stored.size(); ++i) {
        for (uint8_t flip : {uint8_t(1), uint8_t(0x80), uint8_t(0xff)}) {
            std::string bad = stored;
            bad[i] = char(uint8_t(bad[i]) ^ flip);
            const auto text = decode_pgn(bad);
            if (text) {
                EXPECT_LT(text->size(), 1u << 20);
            }
        }
        // A cut blob is refused or read as some text (the range coder reads zeros past the
        // end, so the last byte may not be needed); half of it is never the game.
        const auto cut = decode_pgn(stored.substr(0, i));
        if (i < stored.size() / 2) {
            EXPECT_NE(cut, pgn);
        }
    }
    std::mt19937 random(53);
    for (int round = 0; round < 3000; ++round) {
        std::string forged(1 + random() % 300, '\0');
        for (char& c : forged) c = char(random());
        forged[0] = char(kCompactPgnFormat);
        (void)decode_pgn(forged);
    }
    // A range-coded stream reads any bytes as some game: random tails after a real game's
    // first bytes reach every model and check of the reader.
    for (int round = 0; round < 3000; ++round) {
        std::string forged = stored.substr(0, 1 + random() % (stored.size() - 1));
        for (int k = int(random() % 40); k > 0; --k) forged += char(random());
        const auto text = decode_pgn(forged);
        if (text) {
            EXPECT_LT(text->size(), 1u << 20);
        }
    }
    // A zlib bomb is refused past the bound instead of filling memory.
    const std::string bomb = encode_pgn_zlib(std::string(size_t(70) << 20, 'a'));
    EXPECT_FALSE(decode_pgn(bomb));
}

// Migration 28 converts the games (and purged games) a version-27 database stored as zlib in
// place, in chunks, and reads them back byte for byte.
TEST(GameStorage, MigrationConvertsOldGamesInPlaceByteExact) {
    TempDatabase db;
    std::vector<std::string> pgns;
    for (int i = 0; i < 3; ++i)
        pgns.push_back(played(kBookOpening, settings_of("nodes=200", 40 + 10 * i),
                              worker_context(1, *parse_time_control("nodes=200"), false, false)));
    pgns.push_back("not a PGN: stays zlib");
    int64_t run_id = 0;
    {
        SqliteStorage s(db.path());
        s.begin(true);
        Version v;
        v.name = "builtin";
        v.preset = "default";
        const int64_t version_id = s.insert_version(v);
        coordinator::Run run;
        run.test_id = run.base_id = version_id;
        run.spec.kind = RunKind::FixedGames;
        run.spec.games = 1200;
        run.spec.time_control = *parse_time_control("nodes=200");
        run_id = s.insert_run(run);
        Worker w;
        w.name = "box";
        w.token_id = s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("t"));
        Lease lease;
        lease.run_id = run_id;
        lease.worker_id = s.insert_worker(w);
        lease.pairs = 600;
        lease.reported.assign(75, 0);
        lease.id = s.insert_lease(lease);
        for (uint64_t g = 0; g < 1200; ++g) {  // more than a chunk of the migration
            StoredGame game;
            game.run_id = run_id;
            game.game = g;
            game.lease_id = lease.id;
            game.worker_id = lease.worker_id;
            game.pgn = pgns[g % pgns.size()];
            game.stored_pgn = encode_pgn_zlib(game.pgn);
            s.insert_game(game);
        }
        s.commit();
    }
    {
        Database raw(db.path());
        raw.exec("PRAGMA user_version = 27");
        Statement& first =
            raw.prepare("SELECT count(*) FROM games WHERE substr(pgn, 1, 1) = x'01'");
        first.bind();
        ASSERT_TRUE(first.step());
        EXPECT_EQ(first.int64(0), 0);
    }
    SqliteStorage s(db.path());  // migrates to the current schema
    s.begin(false);
    const std::vector<StoredGame> games = s.list_games(run_id, 0, 2000, size_t(1) << 30);
    s.commit();
    ASSERT_EQ(games.size(), 1200u);
    for (const StoredGame& g : games) ASSERT_EQ(g.pgn, pgns[g.game % pgns.size()]) << g.game;
    Database raw(db.path());
    Statement& compact = raw.prepare("SELECT sum(substr(pgn, 1, 1) = x'01') FROM games");
    compact.bind();
    ASSERT_TRUE(compact.step());
    EXPECT_EQ(compact.int64(0), 900);  // the three games of four that are PGN
    compact.reset();
    Statement& version = raw.prepare("PRAGMA user_version");
    version.bind();
    ASSERT_TRUE(version.step());
    EXPECT_EQ(version.int64(0), schema_version());
}

}  // namespace
}  // namespace sparring::coordinator
