// SQLite storage: schema migrations, round trips of every record, free pair ranges, and
// that committed data survives reopening the file while rolled-back data does not.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <random>
#include <thread>
#include <tuple>

#include "coordinator/domain/auth.h"
#include "coordinator/domain/text.h"
#include "coordinator/rpc/gate.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/migrations.h"
#include "coordinator/storage/sqlite_storage.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

Version uci_version() {
    Version v;
    v.name = "sf";
    v.kind = Version::Kind::Uci;
    v.uci_command = "/usr/games/stockfish";
    v.uci_options = {{"Hash", "32"}, {"UCI_Elo", "1500"}, {"Quote\"d", "a\\b"}};
    v.bench = 0;
    v.created_ms = 42;
    return v;
}

TEST(Storage, MigratesOnceAndReopens) {
    TempDatabase db;
    { SqliteStorage first(db.path()); }
    SqliteStorage again(db.path());
    Database raw(db.path());
    Statement& s = raw.prepare("PRAGMA user_version");
    s.bind();
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), schema_version());
    Statement& mode = raw.prepare("PRAGMA journal_mode");
    mode.bind();
    ASSERT_TRUE(mode.step());
    EXPECT_EQ(mode.text(0), "wal");
}

TEST(Storage, RefusesANewerSchema) {
    TempDatabase db;
    { SqliteStorage first(db.path()); }
    {
        Database raw(db.path());
        raw.exec("PRAGMA user_version = 99");
    }
    EXPECT_THROW(SqliteStorage(db.path()), StorageError);
}

// Inserts a worker "box" of a token and a lease of a run's pairs that it holds; returns the lease.
Lease insert_leased_worker(SqliteStorage& s, int64_t token, int64_t run_id, uint32_t pairs) {
    Worker w;
    w.token_id = token;
    w.name = "box";
    Lease batch;
    batch.run_id = run_id;
    batch.worker_id = s.insert_worker(w);
    batch.pairs = pairs;
    batch.reported.assign((pairs + 7) / 8, 0);
    batch.id = s.insert_lease(batch);
    return batch;
}

// Issue 32: rows an older coordinator stored with invalid UTF-8 (a message cut inside an "é")
// are repaired by migration 10, each ill-formed part U+FFFD, and the rest is left as it was.
TEST(Storage, MigrationRepairsInvalidUtf8InEveryTextColumn) {
    TempDatabase db;
    const std::string cut = std::string(511, 'a') + "\xc3";
    const std::string fffd = "\xef\xbf\xbd";
    int64_t run_id = 0;
    int64_t worker_id = 0;
    int64_t version_id = 0;
    int64_t other_version_id = 0;
    {
        SqliteStorage s(db.path());
        s.begin(true);
        version_id = s.insert_version(uci_version());
        Version other = uci_version();
        other.name = "other";
        other_version_id = s.insert_version(other);
        coordinator::Run run;
        run.test_id = run.base_id = version_id;
        run.spec.kind = RunKind::FixedGames;
        run.spec.games = 10;
        run.spec.description = "d\xc3\xa9j\xc3\xa0 vu";
        run.spec.time_control = *parse_time_control("10+0.1");
        run_id = s.insert_run(run);
        const int64_t token =
            s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("t"));
        const Lease batch = insert_leased_worker(s, token, run_id, 4);
        worker_id = batch.worker_id;
        LeaseFailure failure;
        failure.lease_id = batch.id;
        failure.run_id = run_id;
        failure.worker_id = worker_id;
        failure.message = "ok";
        s.insert_lease_failure(failure);
        s.commit();
    }
    {  // what the coordinators before the fix wrote, and back to schema 9
        Database raw(db.path());
        Statement& runs = raw.prepare("UPDATE runs SET result = ?, state = 'stopped'");
        runs.bind("stopped: its leases failed on 3 workers (last: " + cut + ")").run();
        raw.prepare("UPDATE lease_failures SET message = ?").bind(cut).run();
        raw.prepare("UPDATE versions SET description = ?").bind("\xc0\xaf\xed\xa0\x80").run();
        // Two names that differ only in their broken bytes: repaired, they would be one.
        raw.prepare("UPDATE versions SET name = ? WHERE id = ?").bind("v\xff", version_id).run();
        raw.prepare("UPDATE versions SET name = ? WHERE id = ?")
            .bind("v\xfe", other_version_id)
            .run();
        raw.prepare("UPDATE workers SET name = ?").bind("box\xf0\x9d\x84").run();
        raw.exec("PRAGMA user_version = 9");
    }
    SqliteStorage s(db.path());
    s.begin(false);
    const std::optional<coordinator::Run> run = s.find_run(run_id);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->result, "stopped: its leases failed on 3 workers (last: " +
                               std::string(511, 'a') + fffd + ")");
    EXPECT_EQ(run->spec.description, "d\xc3\xa9j\xc3\xa0 vu");
    const std::vector<LeaseFailure> failures = s.lease_failures_of_run(run_id);
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].message, std::string(511, 'a') + fffd);
    EXPECT_EQ(s.find_version(version_id)->description, fffd + fffd + fffd + fffd + fffd);
    EXPECT_EQ(s.find_version(version_id)->name, "v" + fffd);
    EXPECT_EQ(s.find_version(other_version_id)->name,
              "v" + fffd + " #" + std::to_string(other_version_id));
    s.commit();
    Database raw(db.path());
    Statement& name = raw.prepare("SELECT name FROM workers WHERE id = ?");
    name.bind(worker_id);
    ASSERT_TRUE(name.step());
    EXPECT_EQ(name.text(0), "box" + fffd);
    Statement& version = raw.prepare("PRAGMA user_version");
    version.bind();
    ASSERT_TRUE(version.step());
    EXPECT_EQ(version.int64(0), schema_version());
}

TEST(Storage, VersionsRoundTrip) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    Version builtin;
    builtin.name = "knight-290";
    builtin.preset = "seed";
    builtin.overrides = {{"KnightValueMg", 290}};
    builtin.params_json = "{\"KnightValueMg\":290}";
    builtin.hash_mb = 8;
    builtin.bench = 987654321;
    builtin.created_ms = 7;
    builtin.id = s.insert_version(builtin);
    const Version uci = uci_version();
    const int64_t uci_id = s.insert_version(uci);
    s.commit();

    s.begin(false);
    const Version b = *s.find_version("knight-290");
    EXPECT_EQ(b.id, builtin.id);
    EXPECT_EQ(b.kind, Version::Kind::Builtin);
    EXPECT_EQ(b.preset, "seed");
    EXPECT_EQ(b.overrides, builtin.overrides);
    EXPECT_EQ(b.params_json, builtin.params_json);
    EXPECT_EQ(b.hash_mb, 8);
    EXPECT_EQ(b.bench, 987654321u);
    const Version u = *s.find_version(uci_id);
    EXPECT_EQ(u.kind, Version::Kind::Uci);
    EXPECT_EQ(u.uci_command, uci.uci_command);
    EXPECT_EQ(u.uci_options, uci.uci_options);
    EXPECT_EQ(s.list_versions().size(), 2u);
    EXPECT_FALSE(s.find_version("nope"));
    s.commit();
}

TEST(Storage, JsonColumnsReadEarlierTextAndRejectDamage) {
    // Earlier versions wrote these columns by hand: %.17g numbers, \u00XX control characters.
    EXPECT_EQ(read_json_column<std::vector<double>>("[0.10000000000000001,1e-05,290]", "t.c"),
              (std::vector<double>{0.1, 1e-05, 290}));
    EXPECT_EQ((read_json_column<std::map<std::string, std::string>>("{\"a\\u000ab\":\"q\\\"\\\\\"}",
                                                                    "t.c")),
              (std::map<std::string, std::string>{{"a\nb", "q\"\\"}}));
    EXPECT_TRUE(read_json_column<std::vector<int64_t>>("", "t.c").empty());
    for (const char* damaged : {"[1,", "{\"a\":1}", "[\"x\"]"}) {
        try {
            read_json_column<std::vector<int64_t>>(damaged, "train_runs.data_runs");
            ADD_FAILURE() << damaged << " was accepted";
        } catch (const StorageError& e) {
            EXPECT_NE(std::string(e.what()).find("train_runs.data_runs"), std::string::npos);
        }
    }

    // A version row as an earlier coordinator stored it reads back the same.
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    const int64_t id = s.insert_version(uci_version());
    s.commit();
    {
        Database raw(db.path());
        raw.prepare("UPDATE versions SET uci_options = ? WHERE id = ?")
            .bind("{\"Hash\":\"32\",\"Quote\\\"d\":\"a\\\\b\",\"UCI_Elo\":\"1500\"}", id)
            .run();
    }
    s.begin(false);
    EXPECT_EQ(s.find_version(id)->uci_options, uci_version().uci_options);
    s.commit();
}

TEST(Storage, RolledBackWritesLeaveNoTrace) {
    TempDatabase db;
    {
        SqliteStorage s(db.path());
        s.begin(true);
        s.insert_version(uci_version());
        s.savepoint();
        Version other = uci_version();
        other.name = "gone";
        s.insert_version(other);
        s.rollback_to_savepoint();
        s.commit();
        s.begin(true);
        Version third = uci_version();
        third.name = "uncommitted";
        s.insert_version(third);
        s.rollback();
    }
    SqliteStorage reopened(db.path());
    reopened.begin(false);
    EXPECT_TRUE(reopened.find_version("sf"));
    EXPECT_FALSE(reopened.find_version("gone"));
    EXPECT_FALSE(reopened.find_version("uncommitted"));
    reopened.commit();
}

// What storage writes of a run's SPRT is data on the run (issue 28): settings stored when the
// core marked them kept, NULL otherwise, and the mark read back from the stored settings.
TEST(Storage, ARunsSprtSettingsAreStoredWhenMarkedKeptAndReadBackWithTheMark) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    const int64_t version = s.insert_version(uci_version());
    coordinator::Run run;
    run.test_id = run.base_id = version;
    run.spec.games = 100;
    run.spec.book.openings = {{"8/8/8/8/8/8/8/K6k w - - 0 1", {}}};
    run.spec.sprt.elo0 = 0.5;
    run.spec.sprt.elo1 = 2.5;
    run.spec.sprt.alpha = 0.05;
    run.spec.sprt.beta = 0.1;
    run.spec.sprt_stored = true;
    const int64_t kept = s.insert_run(run);
    run.spec.sprt_stored = false;
    const int64_t dropped = s.insert_run(run);
    const coordinator::Run a = *s.find_run(kept);
    EXPECT_TRUE(a.spec.sprt_stored);
    EXPECT_EQ(a.spec.sprt.elo1, 2.5);
    EXPECT_EQ(a.spec.sprt.beta, 0.1);
    const coordinator::Run b = *s.find_run(dropped);
    EXPECT_FALSE(b.spec.sprt_stored);
    EXPECT_NE(b.spec.sprt.elo1, 2.5) << "no settings stored: the defaults come back";
    s.commit();
}

TEST(Storage, FreePairsAreTakenLowestFirstAndSplit) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    const int64_t version = s.insert_version(uci_version());
    coordinator::Run run;
    run.test_id = run.base_id = version;
    run.spec.games = 100;
    run.spec.book.openings = {{"8/8/8/8/8/8/8/K6k w - - 0 1", {}}};
    const int64_t id = s.insert_run(run);
    s.insert_free_pairs(id, {20, 5});
    s.insert_free_pairs(id, {3, 4});
    PairRange a = *s.take_free_pairs(id, 3);
    EXPECT_EQ(a.first, 3u);
    EXPECT_EQ(a.count, 3u);
    PairRange b = *s.take_free_pairs(id, 10);
    EXPECT_EQ(b.first, 6u);
    EXPECT_EQ(b.count, 1u);
    PairRange c = *s.take_free_pairs(id, 10);
    EXPECT_EQ(c.first, 20u);
    EXPECT_EQ(c.count, 5u);
    EXPECT_FALSE(s.take_free_pairs(id, 10));
    s.commit();
}

TEST(Storage, BooksGamesAndBatchesRoundTrip) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    const int64_t version = s.insert_version(uci_version());
    coordinator::Run run;
    run.test_id = run.base_id = version;
    run.spec.kind = RunKind::FixedGames;
    run.spec.games = 10;
    run.spec.time_control = *parse_time_control("10+0.1");
    run.spec.book.openings = {{"startpos-fen", {"e2e4", "e7e5"}}, {"other-fen", {}}};
    run.spec.book.random_order = true;
    run.spec.book.seed = 99;
    const int64_t run_id = s.insert_run(run);
    Worker w;
    w.token_id = s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("secret"));
    w.name = "box";
    w.uci_engines = {"stockfish", "toga"};
    const int64_t worker_id = s.insert_worker(w);
    Lease batch;
    batch.run_id = run_id;
    batch.worker_id = worker_id;
    batch.first_pair = 3;
    batch.pairs = 10;
    batch.cores = 2;
    batch.reported.assign(2, 0);
    batch.mark_reported(9);
    batch.expires_ms = 500;
    batch.id = s.insert_lease(batch);
    StoredGame g;
    g.run_id = run_id;
    g.game = 7;
    g.lease_id = batch.id;
    g.worker_id = worker_id;
    g.outcome = Outcome::Loss;
    g.test_white = false;
    g.pgn = std::string(5000, 'x') + "\n1-0\n";
    s.insert_game(g);
    s.commit();

    s.begin(false);
    const Book book = s.load_book(run_id);
    ASSERT_EQ(book.openings.size(), 2u);
    EXPECT_EQ(book.openings[0].moves, (std::vector<std::string>{"e2e4", "e7e5"}));
    EXPECT_TRUE(book.openings[1].moves.empty());
    EXPECT_TRUE(book.random_order);
    EXPECT_EQ(book.seed, 99u);
    const coordinator::Run r = *s.find_run(run_id);
    EXPECT_EQ(r.spec.time_control.to_string(), "10+0.1");
    EXPECT_EQ(r.book_size, 2u);
    const Lease b = *s.find_lease(batch.id);
    EXPECT_TRUE(b.is_reported(9));
    EXPECT_FALSE(b.is_reported(8));
    EXPECT_EQ(b.cores, 2);
    s.set_worker_lease(worker_id, batch.id, 0);
    EXPECT_EQ(s.find_worker(worker_id)->lease_id, batch.id);
    s.set_worker_lease(worker_id, 0, batch.id + 1);
    EXPECT_EQ(s.find_worker(worker_id)->lease_id, batch.id);
    s.set_worker_lease(worker_id, 0, batch.id);
    EXPECT_EQ(s.find_worker(worker_id)->lease_id, 0);
    EXPECT_EQ(s.leases_expiring_before(501).size(), 1u);
    EXPECT_EQ(s.leases_expiring_before(500).size(), 0u);
    const auto games = s.list_games(run_id, 0, 10);
    ASSERT_EQ(games.size(), 1u);
    EXPECT_EQ(games[0].pgn, g.pgn);
    EXPECT_EQ(games[0].outcome, Outcome::Loss);
    EXPECT_EQ(s.find_worker(worker_id)->uci_engines, w.uci_engines);
    EXPECT_TRUE(s.find_token(sha256_hex("secret")));
    EXPECT_FALSE(s.find_token(sha256_hex("guess")));
    s.commit();
}

// Each distinct book is stored once (schema 21): runs of one book share its row of `books`, a
// run's own column stays empty, and each run reads its own book back. A database of schema 20,
// each run holding its book, moves the books out when it opens: one row per distinct book, the
// runs reading the same openings; a run whose stored book cannot be read keeps it, as it was.
TEST(Storage, RunsOfOneBookShareOneStoredCopyAndOlderDatabasesMoveTheirsIntoIt) {
    TempDatabase db;
    const auto opening = [](const std::string& move) {
        Opening o;
        o.fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        o.moves = {move};
        return o;
    };
    const std::vector<Opening> first = {opening("e2e4"), opening("d2d4"), opening("c2c4")};
    const std::vector<Opening> second = {opening("g1f3")};
    const auto count = [&](const std::string& sql) {
        Database raw(db.path());
        Statement& q = raw.prepare(sql);
        q.bind();
        return q.step() ? q.int64(0) : -1;
    };
    std::vector<int64_t> runs;
    const std::vector<const std::vector<Opening>*> books = {&first, &second, &first, &first};
    const auto expect_books_read_back = [&](SqliteStorage& s) {
        s.begin(false);
        for (size_t i = 0; i < runs.size(); ++i) {
            const Book book = s.load_book(runs[i]);
            ASSERT_EQ(book.openings.size(), books[i]->size()) << "run " << runs[i];
            for (size_t o = 0; o < book.openings.size(); ++o)
                EXPECT_EQ(book.openings[o].moves, (*books[i])[o].moves);
            EXPECT_EQ(book.seed, uint64_t(i));
        }
        s.commit();
    };
    {
        SqliteStorage s(db.path());
        s.begin(true);
        const int64_t version = s.insert_version(uci_version());
        for (size_t i = 0; i < books.size(); ++i) {
            coordinator::Run run;
            run.test_id = run.base_id = version;
            run.spec.kind = RunKind::FixedGames;
            run.spec.games = 100;
            run.spec.time_control = *parse_time_control("nodes=1000");
            run.spec.book.openings = *books[i];
            run.spec.book.seed = i;
            runs.push_back(s.insert_run(run));
        }
        s.commit();
        expect_books_read_back(s);
    }
    EXPECT_EQ(count("SELECT count(*) FROM books"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE length(book) > 0 OR book_id IS NULL"), 0);
    EXPECT_EQ(count("SELECT count(DISTINCT book_id) FROM runs"), 2);

    {  // back to schema 20: each run holds its book; and one run's stored book is broken
        Database raw(db.path());
        raw.exec(
            "UPDATE runs SET book = (SELECT data FROM books WHERE books.id = runs.book_id), "
            "book_id = NULL; "
            "DROP TABLE books; PRAGMA user_version = 20");
    }
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE length(book) > 0"), 4);
    coordinator::Run broken_run;
    {
        SqliteStorage s(db.path());  // migrates to 21
        expect_books_read_back(s);
        s.begin(true);
        broken_run.test_id = broken_run.base_id = 1;
        broken_run.spec.kind = RunKind::FixedGames;
        broken_run.spec.games = 2;
        broken_run.spec.time_control = *parse_time_control("nodes=1000");
        broken_run.spec.book.openings = second;
        broken_run.id = s.insert_run(broken_run);
        s.commit();
    }
    EXPECT_EQ(count("SELECT count(*) FROM books"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE length(book) > 0 OR book_id IS NULL"), 0);
    {  // schema 20 again, the new run's book not zlib
        Database raw(db.path());
        raw.exec(
            "UPDATE runs SET book = (SELECT data FROM books WHERE books.id = runs.book_id), "
            "book_id = NULL; "
            "UPDATE runs SET book = x'00ff00' WHERE id = " +
            std::to_string(broken_run.id) + "; DROP TABLE books; PRAGMA user_version = 20");
    }
    SqliteStorage s(db.path());
    expect_books_read_back(s);
    EXPECT_EQ(count("SELECT count(*) FROM books"), 2);
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE book_id IS NULL"), 1);
    EXPECT_EQ(count("SELECT count(*) FROM runs WHERE book_id IS NULL AND book = x'00ff00' AND "
                    "id = " +
                    std::to_string(broken_run.id)),
              1);
    s.begin(false);
    EXPECT_THROW(s.load_book(broken_run.id), StorageError);
    s.commit();
}

// Migration 24 moves every link between runs into run_links: a tuning's verification, a
// chain's steps, a follow-up and a run submitted like another, as a database of schema 23
// holds them in four places; the follow-up's and the submitted-like columns go.
TEST(Storage, RunLinksOfEveryKindMoveIntoOneTable) {
    TempDatabase db;
    {
        SqliteStorage s(db.path());
        s.begin(true);
        const int64_t version = s.insert_version(uci_version());
        for (int i = 0; i < 8; ++i) {
            coordinator::Run run;
            run.test_id = run.base_id = version;
            run.spec.kind = RunKind::FixedGames;
            run.spec.games = 100;
            run.spec.time_control = *parse_time_control("nodes=1000");
            s.insert_run(run);
        }
        TuneState tune;
        tune.run_id = 1;
        s.insert_tune(tune);
        ChainState chain;
        chain.run_id = 3;
        chain.spec.generations = 1;
        chain.spec.verify_games = 2;
        s.insert_chain(chain);
        ChainGeneration generation;
        generation.generation = 1;
        generation.version = "sf";
        generation.generate_run_id = 4;
        generation.train_run_id = 5;
        generation.verify_run_id = 6;
        s.save_chain_generation(3, generation);
        FollowUpSpec follow_up;
        follow_up.time_control = *parse_time_control("nodes=2000");
        s.insert_follow_up(6, follow_up);
        s.commit();
    }
    {  // back to schema 23: the links where that schema kept them
        Database raw(db.path());
        raw.exec(
            "DROP TABLE run_links;"
            "ALTER TABLE follow_ups ADD COLUMN follow_run_id INTEGER NOT NULL DEFAULT 0;"
            "CREATE INDEX follow_ups_started ON follow_ups(follow_run_id) "
            "WHERE follow_run_id > 0;"
            "ALTER TABLE runs ADD COLUMN origin_run_id INTEGER NOT NULL DEFAULT 0;"
            "UPDATE spsa_runs SET verify_run_id = 2 WHERE run_id = 1;"
            "UPDATE follow_ups SET follow_run_id = 7 WHERE run_id = 6;"
            "UPDATE runs SET origin_run_id = 7 WHERE id = 8;"
            "PRAGMA user_version = 23");
    }
    SqliteStorage s(db.path());
    using Link = std::tuple<int64_t, int64_t, RunLinkReason>;
    const auto links = [&](int64_t run) {
        std::vector<Link> found;
        for (const RunLink& l : s.run_links(run)) found.emplace_back(l.parent, l.child, l.reason);
        std::sort(found.begin(), found.end());
        return found;
    };
    s.begin(false);
    EXPECT_EQ(links(1), (std::vector<Link>{{1, 2, RunLinkReason::Verifies}}));
    EXPECT_EQ(links(2), (std::vector<Link>{{1, 2, RunLinkReason::Verifies}}));
    EXPECT_EQ(links(3), (std::vector<Link>{{3, 4, RunLinkReason::ChainStep},
                                           {3, 5, RunLinkReason::ChainStep},
                                           {3, 6, RunLinkReason::ChainStep}}));
    EXPECT_EQ(links(6), (std::vector<Link>{{3, 6, RunLinkReason::ChainStep},
                                           {6, 7, RunLinkReason::FollowUp}}));
    EXPECT_EQ(links(7), (std::vector<Link>{{6, 7, RunLinkReason::FollowUp},
                                           {7, 8, RunLinkReason::SubmittedLike}}));
    EXPECT_EQ(s.find_run(6)->follow_up_run_id, 7);
    EXPECT_EQ(s.find_run(7)->follows_run_id, 6);
    EXPECT_EQ(s.find_run(8)->spec.origin_run_id, 7);
    EXPECT_EQ(s.find_run(1)->spec.origin_run_id, 0);
    s.commit();
    Database raw(db.path());
    Statement& columns = raw.prepare(
        "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'origin_run_id' UNION ALL "
        "SELECT count(*) FROM pragma_table_info('follow_ups') WHERE name = 'follow_run_id'");
    columns.bind();
    while (columns.step()) EXPECT_EQ(columns.int64(0), 0);
}

// The leases out per token (the per-token lease cap) are kept by triggers: after any mix of
// leases granted and ended, under two tokens, the count is what the batches table holds; a
// database of schema 7 gets its counts from the leases already out.
TEST(Storage, LeasesOutPerTokenFollowEveryLeaseAndSurviveTheMigration) {
    TempDatabase db;
    std::vector<Lease> batches;
    int64_t tokens[2] = {};
    const auto direct = [&](int64_t token) {
        Database raw(db.path());
        Statement& q = raw.prepare(
            "SELECT count(*) FROM batches b JOIN workers w ON w.id = b.worker_id "
            "WHERE w.token_id = ? AND b.state = 'leased'");
        q.bind(token);
        return q.step() ? q.int64(0) : -1;
    };
    {
        SqliteStorage s(db.path());
        s.begin(true);
        const int64_t version = s.insert_version(uci_version());
        coordinator::Run run;
        run.test_id = run.base_id = version;
        run.spec.kind = RunKind::FixedGames;
        run.spec.games = 1000;
        run.spec.time_control = *parse_time_control("10+0.1");
        const int64_t run_id = s.insert_run(run);
        int64_t workers[2] = {};
        for (int t = 0; t < 2; ++t) {
            tokens[t] = s.insert_token(Token{0, Role::Worker, "fleet", 1, false},
                                       sha256_hex("secret" + std::to_string(t)));
            Worker w;
            w.token_id = tokens[t];
            w.name = "box";
            workers[t] = s.insert_worker(w);
        }
        std::mt19937 random(5);
        for (int step = 0; step < 300; ++step) {
            if (batches.empty() || random() % 3 != 0) {
                Lease b;
                b.run_id = run_id;
                b.worker_id = workers[random() % 2];
                b.pairs = 1;
                b.reported.assign(1, 0);
                b.state = random() % 5 == 0 ? LeaseState::Done : LeaseState::Leased;
                b.id = s.insert_lease(b);
                batches.push_back(b);
            } else {
                Lease& b = batches[random() % batches.size()];
                static constexpr LeaseState states[] = {LeaseState::Leased, LeaseState::Done,
                                                        LeaseState::Expired, LeaseState::Released,
                                                        LeaseState::Stopped};
                b.state = states[random() % 5];
                s.update_lease(b);
            }
        }
        s.commit();
        s.begin(false);
        for (int64_t token : tokens) {
            EXPECT_GT(direct(token), 10);
            EXPECT_EQ(s.count_leases_of_token(token, 1'000'000), direct(token));
            EXPECT_EQ(s.count_leases_of_token(token, 3), 3);
        }
        EXPECT_EQ(s.count_leases_of_token(tokens[1] + 1, 10), 0);
        s.commit();
    }
    {  // back to schema 7: no counts, the index of before (and no worker totals, schema 9)
        Database raw(db.path());
        raw.exec(
            "DROP TRIGGER token_leases_insert; DROP TRIGGER token_leases_update; "
            "DROP TRIGGER token_leases_delete; DROP TABLE token_leases; "
            "CREATE INDEX batches_leased_by_token ON batches(token_id) WHERE state = 'leased'; "
            "DROP TRIGGER run_workers_insert; DROP TRIGGER run_workers_uncount; "
            "DROP TRIGGER run_workers_recount; DROP TRIGGER run_workers_delete; "
            "DROP TABLE run_workers; "
            "PRAGMA user_version = 7");
    }
    SqliteStorage s(db.path());
    s.begin(false);
    for (int64_t token : tokens)
        EXPECT_EQ(s.count_leases_of_token(token, 1'000'000), direct(token));
    s.commit();
}

// Each worker's counted totals in a run are kept by triggers: after reports of three workers
// and a purge of one, they equal the sums over the counted reports, and a database of schema
// 8 gets them from its reports.
TEST(Storage, WorkerTotalsFollowReportsAndPurgesAndSurviveTheMigration) {
    TempDatabase db;
    int64_t run_id = 0;
    int64_t workers[3] = {};
    const auto direct = [&](int64_t worker) {
        Database raw(db.path());
        Statement& q = raw.prepare(
            "SELECT coalesce(sum(pairs), 0), coalesce(sum(wins), 0), coalesce(sum(ww), 0) "
            "FROM results WHERE run_id = ? AND worker_id = ? AND purge_id = 0");
        q.bind(run_id, worker);
        q.step();
        return std::array<int64_t, 3>{q.int64(0), q.int64(1), q.int64(2)};
    };
    const auto stored = [&](SqliteStorage& s, int64_t worker) {
        const Counts c = s.worker_counts(run_id, worker);
        return std::array<int64_t, 3>{c.pairs, c.wins, c.penta.counts[4]};
    };
    {
        SqliteStorage s(db.path());
        s.begin(true);
        const int64_t version = s.insert_version(uci_version());
        coordinator::Run run;
        run.test_id = run.base_id = version;
        run.spec.kind = RunKind::FixedGames;
        run.spec.games = 1000;
        run.spec.time_control = *parse_time_control("10+0.1");
        run_id = s.insert_run(run);
        const int64_t token =
            s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("t"));
        std::mt19937 random(9);
        for (int64_t& worker : workers) {
            const Lease batch = insert_leased_worker(s, token, run_id, 100);
            worker = batch.worker_id;
            for (uint32_t sequence = 1; sequence <= 10; ++sequence) {
                ReportRecord r;
                r.lease_id = batch.id;
                r.sequence = sequence;
                r.run_id = run_id;
                r.worker_id = worker;
                r.counts.pairs = 1 + random() % 4;
                r.counts.wins = random() % 5;
                r.counts.penta.counts[4] = random() % 3;
                r.digest = "d";
                s.insert_report(r);
            }
        }
        Purge p;
        p.run_id = run_id;
        p.worker_id = workers[1];
        p.token_id = token;
        p.peer = "peer";
        p.purged_ms = 5;
        const int64_t purge = s.insert_purge(p);
        s.purge_worker_games(run_id, workers[1], purge);
        s.commit();
        s.begin(false);
        for (int64_t worker : workers) EXPECT_EQ(stored(s, worker), direct(worker)) << worker;
        EXPECT_EQ(direct(workers[1])[0], 0);
        const std::vector<WorkerFit> fits = s.worker_counts(run_id);
        ASSERT_EQ(fits.size(), 2u);  // the purged worker counts nothing
        EXPECT_EQ(fits[0].worker_id, workers[0]);
        EXPECT_EQ(fits[1].worker_id, workers[2]);
        EXPECT_EQ(fits[1].counts.pairs, direct(workers[2])[0]);
        s.commit();
    }
    {  // back to schema 8: no totals
        Database raw(db.path());
        raw.exec(
            "DROP TRIGGER run_workers_insert; DROP TRIGGER run_workers_uncount; "
            "DROP TRIGGER run_workers_recount; DROP TRIGGER run_workers_delete; "
            "DROP TABLE run_workers; PRAGMA user_version = 8");
    }
    SqliteStorage s(db.path());
    s.begin(false);
    for (int64_t worker : workers) EXPECT_EQ(stored(s, worker), direct(worker)) << worker;
    s.commit();
}

TEST(Storage, RunsThatPlayNoGamesKeepTheirNodesZero) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    coordinator::Run run;
    run.test_id = run.base_id = s.insert_version(uci_version());
    run.spec.kind = RunKind::Train;
    const int64_t run_id = s.insert_run(run);
    s.commit();
    s.begin(false);
    const coordinator::Run r = *s.find_run(run_id);
    s.commit();
    // "nodes=0" is no limit a game is played at, yet it is what such runs have always stored.
    EXPECT_FALSE(parse_time_control("nodes=0"));
    EXPECT_EQ(r.spec.time_control.kind, TimeControl::Kind::Nodes);
    EXPECT_EQ(r.spec.time_control.nodes, 0u);
}

TEST(Storage, AdjudicationRulesRoundTripAndRunsStoredBeforeThemHaveNone) {
    TempDatabase db;
    int64_t old_run = 0;
    {
        SqliteStorage s(db.path());
        s.begin(true);
        coordinator::Run run;
        run.test_id = run.base_id = s.insert_version(uci_version());
        old_run = s.insert_run(run);
        s.commit();
        // The database as migration 10 left it: no rule columns yet.
        Database raw(db.path());
        raw.exec("ALTER TABLE runs DROP COLUMN draw_rule");
        raw.exec("ALTER TABLE runs DROP COLUMN resign_rule");
        raw.exec("ALTER TABLE runs DROP COLUMN max_plies");
        raw.exec("PRAGMA user_version = 10");
    }
    SqliteStorage s(db.path());
    s.begin(true);
    coordinator::Run run;
    run.test_id = run.base_id = s.find_run(old_run)->test_id;
    run.spec.adjudication.draw =
        match::DrawRule{.move_number = 40, .move_count = 6, .score_cp = 15};
    run.spec.adjudication.resign = match::ResignRule{.move_count = 4, .score_cp = 700};
    run.spec.adjudication.max_plies = 300;
    const int64_t new_run = s.insert_run(run);
    s.commit();
    s.begin(false);
    const coordinator::Run before = *s.find_run(old_run);
    const coordinator::Run after = *s.find_run(new_run);
    s.commit();
    EXPECT_FALSE(before.spec.adjudication.draw);
    EXPECT_FALSE(before.spec.adjudication.resign);
    EXPECT_EQ(before.spec.adjudication.max_plies, 0);
    ASSERT_TRUE(after.spec.adjudication.draw);
    EXPECT_EQ(after.spec.adjudication.draw->move_number, 40);
    EXPECT_EQ(after.spec.adjudication.draw->move_count, 6);
    EXPECT_EQ(after.spec.adjudication.draw->score_cp, 15);
    ASSERT_TRUE(after.spec.adjudication.resign);
    EXPECT_EQ(after.spec.adjudication.resign->move_count, 4);
    EXPECT_EQ(after.spec.adjudication.resign->score_cp, 700);
    EXPECT_FALSE(after.spec.adjudication.resign->two_sided);
    EXPECT_EQ(after.spec.adjudication.max_plies, 300);
}

TEST(Storage, GameEndingsAreStoredAndOnlyFaultsAreCounted) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    coordinator::Run run;
    run.test_id = run.base_id = s.insert_version(uci_version());
    const int64_t run_id = s.insert_run(run);
    const Lease batch = insert_leased_worker(
        s, s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("secret")), run_id, 4);
    const int64_t worker_id = batch.worker_id;
    const int64_t batch_id = batch.id;
    const std::vector<std::pair<Outcome, GameEnding>> games = {
        {Outcome::Loss, GameEnding::TimeLoss}, {Outcome::Loss, GameEnding::TimeLoss},
        {Outcome::Win, GameEnding::TimeLoss},  {Outcome::Win, GameEnding::Crash},
        {Outcome::Draw, GameEnding::Rules},    {Outcome::Win, GameEnding::Adjudication},
        {Outcome::Loss, GameEnding::Unknown},  {Outcome::Loss, GameEnding::IllegalMove}};
    for (size_t i = 0; i < games.size(); ++i) {
        StoredGame g;
        g.run_id = run_id;
        g.game = i;
        g.lease_id = batch_id;
        g.worker_id = worker_id;
        g.outcome = games[i].first;
        g.pgn = "1-0";
        g.ending = games[i].second;
        s.insert_game(g);
    }
    s.commit();
    s.begin(false);
    const std::vector<FaultCount> faults = s.fault_counts(run_id);
    s.commit();
    std::vector<std::tuple<bool, GameEnding, int64_t>> seen;
    for (const FaultCount& f : faults) {
        EXPECT_EQ(f.worker_id, worker_id);
        EXPECT_EQ(f.worker_name, "box");
        seen.emplace_back(f.test_version, f.fault, f.games);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<std::tuple<bool, GameEnding, int64_t>>{
                        {false, GameEnding::TimeLoss, 1},
                        {false, GameEnding::Crash, 1},
                        {true, GameEnding::TimeLoss, 2},
                        {true, GameEnding::IllegalMove, 1}}));
    Database raw(db.path());
    Statement& endings = raw.prepare("SELECT ending FROM games ORDER BY game");
    endings.bind();
    std::string stored;
    while (endings.step()) stored += endings.text(0) + ",";
    EXPECT_EQ(stored, "time_loss,time_loss,time_loss,crash,rules,adjudication,,illegal_move,");
    // The faults are read through the partial index, not the whole games table.
    Statement& plan = raw.prepare(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM games WHERE run_id = ? AND ending IN "
        "('time_loss', 'crash', 'stall', 'illegal_move')");
    plan.bind(run_id);
    std::string detail;
    while (plan.step()) detail += plan.text(3) + "\n";
    EXPECT_NE(detail.find("games_faults"), std::string::npos) << detail;
}

TEST(Storage, RunListingsAreFilteredOrderedAndPagedInTheQuery) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    Version v = uci_version();
    v.name = "x";
    const int64_t x = s.insert_version(v);
    v.name = "knight";
    const int64_t knight = s.insert_version(v);
    v.name = "base";
    const int64_t base = s.insert_version(v);
    const auto add = [&](RunState state, int priority, RunKind kind, int64_t test,
                         const std::string& description) {
        coordinator::Run run;
        run.test_id = test;
        run.base_id = base;
        run.spec.kind = kind;
        run.spec.time_control = *parse_time_control("nodes=100");
        run.spec.priority = priority;
        run.spec.description = description;
        run.id = s.insert_run(run);
        run.state = state;
        s.update_run(run);
        return run.id;
    };
    const int64_t r1 = add(RunState::Active, 0, RunKind::Tune, x, "");
    const int64_t r2 = add(RunState::Stopped, 0, RunKind::Regression, x, "");
    const int64_t r3 = add(RunState::Active, 2, RunKind::Tune, knight, "");
    const int64_t r4 = add(RunState::Active, 0, RunKind::Regression, x, "try the new king safety");
    const int64_t r5 = add(RunState::Finished, 9, RunKind::Tune, x, "");
    s.commit();

    s.begin(false);
    const auto ids = [&s](RunQuery query, int64_t* total) {
        std::vector<int64_t> out;
        for (const coordinator::Run& run : s.find_runs(query, total)) out.push_back(run.id);
        return out;
    };
    int64_t total = 0;
    RunQuery listed;
    listed.active_first = true;
    EXPECT_EQ(ids(listed, &total), (std::vector<int64_t>{r3, r4, r1, r5, r2}));
    EXPECT_EQ(total, 5);
    // Without active_first: newest first, as ListRuns always answered.
    EXPECT_EQ(ids({}, &total), (std::vector<int64_t>{r5, r4, r3, r2, r1}));

    RunQuery page2 = listed;
    page2.limit = 2;
    page2.offset = 2;
    EXPECT_EQ(ids(page2, &total), (std::vector<int64_t>{r1, r5}));
    EXPECT_EQ(total, 5);
    page2.offset = 6;
    EXPECT_TRUE(ids(page2, &total).empty());
    EXPECT_EQ(total, 5);

    RunQuery active_tune = listed;
    active_tune.states = {RunState::Active};
    active_tune.kind = RunKind::Tune;
    EXPECT_EQ(ids(active_tune, &total), (std::vector<int64_t>{r3, r1}));
    EXPECT_EQ(total, 2);
    RunQuery by_version = listed;
    by_version.version = "knight";
    EXPECT_EQ(ids(by_version, &total), (std::vector<int64_t>{r3}));
    by_version.version = "base";
    EXPECT_EQ(ids(by_version, &total).size(), 5u);
    by_version.version = "kni";  // a version filter names a version whole
    EXPECT_TRUE(ids(by_version, &total).empty());
    RunQuery text = listed;
    text.text = "king safety";
    EXPECT_EQ(ids(text, &total), (std::vector<int64_t>{r4}));
    text.text = "nigh";  // text is found inside version names too
    EXPECT_EQ(ids(text, &total), (std::vector<int64_t>{r3}));
    text.text = "%";  // no wildcards
    EXPECT_TRUE(ids(text, &total).empty());
    s.commit();
}

TEST(Storage, ReportsAfterAnIdAreThoseCountedSince) {
    TempDatabase db;
    SqliteStorage s(db.path());
    s.begin(true);
    coordinator::Run run;
    run.test_id = run.base_id = s.insert_version(uci_version());
    run.spec.time_control = *parse_time_control("nodes=100");
    const int64_t run_id = s.insert_run(run);
    Worker w;
    w.token_id = s.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("secret"));
    const int64_t worker_id = s.insert_worker(w);
    Lease batch;
    batch.run_id = run_id;
    batch.worker_id = worker_id;
    batch.pairs = 10;
    batch.reported.assign(2, 0);
    batch.id = s.insert_lease(batch);
    for (uint32_t sequence = 1; sequence <= 3; ++sequence) {
        ReportRecord report;
        report.lease_id = batch.id;
        report.sequence = sequence;
        report.run_id = run_id;
        report.worker_id = worker_id;
        report.counts.pairs = sequence;
        report.digest = "d";
        s.insert_report(report);
    }
    s.commit();
    s.begin(false);
    const std::vector<ReportRecord> all = s.list_reports(run_id, 0);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_LT(all[0].id, all[1].id);
    const std::vector<ReportRecord> since = s.list_reports(run_id, all[0].id);
    ASSERT_EQ(since.size(), 2u);
    EXPECT_EQ(since[0].counts.pairs, 2);
    EXPECT_EQ(since[1].id, all[2].id);
    EXPECT_TRUE(s.list_reports(run_id, all[2].id).empty());
    s.commit();
}

TEST(Storage, TokensAreStoredHashedAndRevocable) {
    TempDatabase db;
    SqliteStorage s(db.path());
    Core core(with_run_kinds(), [] { return int64_t(1); });
    s.begin(true);
    const std::string secret = core.create_token(s, Role::User, "alice");
    s.commit();
    EXPECT_EQ(secret.substr(0, 4), "spu_");
    EXPECT_EQ(secret.size(), 4u + 64u);
    Database raw(db.path());
    Statement& q = raw.prepare("SELECT count(*) FROM tokens WHERE hash = ? OR name = ?");
    q.bind(secret, secret);
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 0);
    s.begin(true);
    ASSERT_TRUE(core.authenticate(s, secret, Role::User).ok());
    EXPECT_EQ(core.authenticate(s, secret, Role::Worker).status().code(),
              absl::StatusCode::kPermissionDenied);
    EXPECT_TRUE(s.revoke_token(s.list_tokens().at(0).id));
    EXPECT_EQ(core.authenticate(s, secret, Role::User).status().code(),
              absl::StatusCode::kUnauthenticated);
    EXPECT_EQ(core.authenticate(s, "", std::nullopt).status().code(),
              absl::StatusCode::kUnauthenticated);
    s.commit();
}

// The gate's memory of tokens that passed: a role for a second, then the token is checked in
// the database again; a full memory starts over rather than grow.
TEST(Storage, PassedTokensAreRememberedForASecondOnly) {
    PassedTokens passed;
    EXPECT_FALSE(passed.role("spw_a"));
    passed.remember("spw_a", Role::Worker);
    passed.remember("spu_b", Role::User);
    EXPECT_EQ(passed.role("spw_a"), Role::Worker);
    EXPECT_EQ(passed.role("spu_b"), Role::User);
    EXPECT_FALSE(passed.role("spw_a "));
    // The memory's life is real time, under test: it must pass.
    std::this_thread::sleep_for(PassedTokens::kLife + std::chrono::milliseconds(50));
    EXPECT_FALSE(passed.role("spw_a"));
    passed.remember("spw_a", Role::Worker);
    for (size_t i = 0; i < PassedTokens::kCapacity; ++i)
        passed.remember("spw_" + std::to_string(i), Role::Worker);
    EXPECT_FALSE(passed.role("spw_a"));  // the memory was full and started over
    EXPECT_EQ(passed.role(std::to_string(PassedTokens::kCapacity - 1).insert(0, "spw_")),
              Role::Worker);
}

TEST(Storage, Sha256MatchesKnownVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Storage, CompressionRoundTripsAndRejectsDamage) {
    const std::string text = "1. e4 e5 2. Nf3 Nc6 " + std::string(1000, 'z');
    const std::string packed = compress(text);
    EXPECT_LT(packed.size(), text.size());
    EXPECT_EQ(decompress(packed), text);
    EXPECT_FALSE(decompress(packed.substr(0, packed.size() / 2)));
    EXPECT_FALSE(decompress("not zlib"));
}

// compress keeps one zlib state per thread: stream after stream, on several threads at once,
// each output is exactly zlib's compress2 output for the same bytes, so stored PGN and books
// keep their format.
TEST(Storage, CompressionReusesItsStateWithoutChangingTheStreams) {
    std::vector<std::string> inputs = {"", "x", std::string(3'000'000, 'a')};
    std::mt19937 random(17);
    for (int i = 0; i < 40; ++i) {
        std::string text(size_t(random() % 20'000), '\0');
        for (char& c : text) c = char("e4e5Nf3Nc6Bb5a6 "[random() % 17]);
        inputs.push_back(std::move(text));
    }
    const auto reference = [](const std::string& bytes) {
        uLongf size = compressBound(uLong(bytes.size()));
        std::string out(size, '\0');
        EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                            reinterpret_cast<const Bytef*>(bytes.data()), uLong(bytes.size()),
                            Z_DEFAULT_COMPRESSION),
                  Z_OK);
        out.resize(size);
        return out;
    };
    std::vector<std::string> expected;
    for (const std::string& text : inputs) expected.push_back(reference(text));
    std::atomic<int> wrong = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round)
                for (size_t i = 0; i < inputs.size(); ++i) {
                    const size_t k = (i * (t + 1) + round) % inputs.size();
                    const std::string packed = compress(inputs[k]);
                    if (packed != expected[k] || decompress(packed) != inputs[k]) ++wrong;
                }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(wrong, 0);
}

TEST(Storage, TimeControlsRoundTrip) {
    for (const char* text :
         {"nodes=1000", "depth=8", "movetime=250", "10+0.1", "60+0", "2.05+0.01"})
        EXPECT_EQ(parse_time_control(text)->to_string(), text);
    for (const char* text : {"", "nodes=", "nodes=x", "speed=3", "1.2345+0", "+1", "10+"})
        EXPECT_FALSE(parse_time_control(text)) << text;
}

}  // namespace
}  // namespace sparring::coordinator::testing
