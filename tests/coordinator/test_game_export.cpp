// Bulk export of games across runs (issue 53, part 3): GameExport reads a selection's games a
// chunk at a time through decode_pgn, each chunk at most GameExport::kChunkGames games or about
// kChunkBytes of PGN whatever the export's size, as one gzip stream; every selection (runs,
// versions, time controls, kinds, results, lease times) combines with AND; a bad selection is
// refused before a game is read; and every statement it prepares searches the games and
// batches tables by an index, never scans them (EXPLAIN QUERY PLAN).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "coordinator/rpc/game_export.h"
#include "coordinator/storage/gzip_stream.h"
#include "coordinator/storage/sqlite.h"
#include "coordinator/storage/sqlite_storage.h"
#include "fixture.h"

namespace sparring::coordinator {
namespace {

using testing::TempDatabase;

// Returns the bytes of a gzip stream, or "<damaged>".
std::string unzipped(const std::string& gz) {
    return coordinator::gunzip(gz).value_or("<damaged>");
}

// A game's PGN: the tags of a real one and a body of `padding` bytes.
std::string pgn_of(int64_t run, uint64_t game, const std::string& white, const std::string& black,
                   const std::string& result, size_t padding) {
    return "[Event \"Sparring run " + std::to_string(run) + "\"]\n[Round \"" +
           std::to_string(game) + "\"]\n[White \"" + white + "\"]\n[Black \"" + black +
           "\"]\n[Result \"" + result + "\"]\n\n" + std::string(padding, 'e') + " " + result + "\n";
}

class GameExportTest : public ::testing::Test {
  protected:
    struct Game {
        int64_t run;
        uint64_t game;
        Outcome outcome;  // the test version's
        bool test_white;
        int64_t leased_ms;
        std::string pgn;
    };

    GameExportTest() : storage(db.path()) {
        storage.begin(true);
        for (const char* name : {"a", "b", "sf"}) {
            Version v;
            v.name = name;
            v.kind = Version::Kind::Uci;
            v.uci_command = "/usr/games/stockfish";
            v.created_ms = 1;
            versions.push_back(storage.insert_version(v));
        }
        Worker w;
        w.token_id = storage.insert_token(Token{0, Role::Worker, "w", 1, false}, sha256_hex("s"));
        w.name = "box";
        worker = storage.insert_worker(w);
        // Run 1: a vs b, fixed, nodes=1000, 1,300 small games leased at 1000 and 5000.
        add_run(RunKind::FixedGames, "nodes=1000", 0, 1, 1300, 200, 1000, 5000);
        // Run 2: sf vs a, sprt, 10+0.1, 40 games of 60 KB (chunks cut by bytes) at 3000.
        add_run(RunKind::Regression, "10+0.1", 2, 0, 40, 60000, 3000, 3000);
        // Run 3: b vs a, tune, nodes=1000, 7 games at 9000.
        add_run(RunKind::Tune, "nodes=1000", 1, 0, 7, 100, 9000, 9000);
        storage.commit();
    }

    void add_run(RunKind kind, const char* tc, int test, int base, int games, size_t padding,
                 int64_t first_lease_ms, int64_t second_lease_ms) {
        coordinator::Run run;
        run.test_id = versions[test];
        run.base_id = versions[base];
        run.spec.kind = kind;
        run.spec.games = uint64_t(games);
        run.spec.time_control = *parse_time_control(tc);
        run.spec.book.openings = {{"startpos", {}}};
        run.created_ms = 500;
        const int64_t id = storage.insert_run(run);
        runs.push_back(id);
        int64_t lease_ids[2];
        for (int i = 0; i < 2; ++i) {
            Lease batch;
            batch.run_id = id;
            batch.worker_id = worker;
            batch.first_pair = 0;
            batch.pairs = uint32_t(games);
            batch.cores = 1;
            batch.reported.assign(size_t(games) / 8 + 1, 0);
            batch.created_ms = i == 0 ? first_lease_ms : second_lease_ms;
            batch.expires_ms = batch.created_ms + 1000;
            lease_ids[i] = storage.insert_lease(batch);
        }
        const char* names[] = {"a", "b", "sf"};
        for (int g = 0; g < games; ++g) {
            Game game;
            game.run = id;
            game.game = uint64_t(g);
            game.outcome = Outcome(g % 3);
            game.test_white = g % 2 == 0;
            game.leased_ms = g < games / 2 ? first_lease_ms : second_lease_ms;
            const Outcome white = game.test_white ? game.outcome : flipped(game.outcome);
            const std::string test_name = names[test], base_name = names[base];
            game.pgn = pgn_of(id, game.game, game.test_white ? test_name : base_name,
                              game.test_white ? base_name : test_name,
                              std::string(pgn_result(white)), padding + size_t(g % 5));
            StoredGame stored;
            stored.run_id = id;
            stored.game = game.game;
            stored.lease_id = lease_ids[g < games / 2 ? 0 : 1];
            stored.worker_id = worker;
            stored.outcome = game.outcome;
            stored.test_white = game.test_white;
            stored.pgn = game.pgn;
            storage.insert_game(stored);
            all.push_back(std::move(game));
        }
    }

    // Exports a selection whole, checking that each chunk stays within the bounds; returns the
    // PGN and sets *chunks.
    std::string exported(const v1::ExportGamesStreamRequest& selection, int* chunks = nullptr,
                         uint64_t* games = nullptr) {
        GameExport exporter(selection);
        std::string gz;
        int count = 0;
        uint64_t before = 0;
        while (!exporter.done()) {
            storage.begin(false);
            const absl::Status status = exporter.read(storage);
            storage.commit();
            EXPECT_TRUE(status.ok()) << status;
            if (!status.ok()) return "";
            const std::string chunk = exporter.take_chunk();
            EXPECT_FALSE(chunk.empty());
            // At most kChunkGames games a chunk, and about kChunkBytes of PGN (plus one game):
            // the 60 KB games compress to almost nothing, so the gzip's size tells nothing.
            EXPECT_LE(exporter.games() - before, uint64_t(GameExport::kChunkGames));
            before = exporter.games();
            gz += chunk;
            ++count;
        }
        if (chunks) *chunks = count;
        if (games) *games = exporter.games();
        return unzipped(gz);
    }

    // Returns the PGN the games passing a test would export, in run and game order.
    std::string expected(const std::function<bool(const Game&)>& take) const {
        std::string out;
        for (const Game& g : all)
            if (take(g)) out += g.pgn + "\n";
        return out;
    }

    // Returns a status of a selection's first read.
    absl::Status refusal(const v1::ExportGamesStreamRequest& selection) {
        GameExport exporter(selection);
        storage.begin(false);
        const absl::Status status = exporter.read(storage);
        storage.commit();
        EXPECT_TRUE(exporter.take_chunk().empty());
        return status;
    }

    TempDatabase db;
    SqliteStorage storage;
    std::vector<int64_t> versions;
    std::vector<int64_t> runs;
    int64_t worker = 0;
    std::vector<Game> all;
};

TEST_F(GameExportTest, ExportsEveryGameInRunAndGameOrderAChunkAtATime) {
    int chunks = 0;
    uint64_t games = 0;
    const std::string pgn = exported({}, &chunks, &games);
    EXPECT_EQ(games, all.size());
    EXPECT_TRUE(pgn == expected([](const Game&) { return true; }))
        << pgn.size() << " bytes exported";
    // 1,300 games of run 1 take three chunks of at most 500; run 2's 40 games of 60 KB are
    // cut at about 1 MB of PGN, two or three chunks; the last chunk holds run 3's.
    EXPECT_GE(chunks, 5);
    EXPECT_LE(chunks, 8);
}

TEST_F(GameExportTest, SelectionsCombineWithAnd) {
    const int64_t r1 = runs[0], r2 = runs[1], r3 = runs[2];
    v1::ExportGamesStreamRequest s;
    s.add_versions("sf");
    EXPECT_EQ(exported(s), expected([&](const Game& g) { return g.run == r2; }));
    s.Clear();
    s.add_versions("b");  // run 1's base and run 3's test
    EXPECT_EQ(exported(s), expected([&](const Game& g) { return g.run != r2; }));
    s.Clear();
    s.add_time_controls("10+0.10");  // as submit stores it: 10+0.1
    EXPECT_EQ(exported(s), expected([&](const Game& g) { return g.run == r2; }));
    s.Clear();
    s.add_kinds("tune");
    s.add_kinds("sprt");
    EXPECT_EQ(exported(s), expected([&](const Game& g) { return g.run != r1; }));
    s.Clear();
    s.add_run_ids(r3);
    s.add_run_ids(r1);
    s.add_results("win");
    EXPECT_EQ(exported(s),
              expected([&](const Game& g) { return g.run != r2 && g.outcome == Outcome::Win; }));
    s.Clear();
    s.add_results("1-0");
    s.add_results("1/2-1/2");
    s.add_time_controls("nodes=1000");
    s.add_versions("a");
    EXPECT_EQ(exported(s), expected([&](const Game& g) {
                  const Outcome white = g.test_white ? g.outcome : flipped(g.outcome);
                  return g.run != r2 && white != Outcome::Loss;
              }));
    s.Clear();
    s.set_since_unix_ms(2000);
    s.set_until_unix_ms(9000);
    EXPECT_EQ(exported(s),
              expected([](const Game& g) { return g.leased_ms >= 2000 && g.leased_ms < 9000; }));
    s.Clear();
    s.set_since_unix_ms(9001);
    uint64_t games = 1;
    EXPECT_EQ(exported(s, nullptr, &games), "");
    EXPECT_EQ(games, 0u);
}

TEST_F(GameExportTest, ABadSelectionIsRefusedBeforeAnyGameIsRead) {
    const auto refused = [this](const std::function<void(v1::ExportGamesStreamRequest&)>& set,
                                absl::StatusCode code, const std::string& text) {
        v1::ExportGamesStreamRequest s;
        set(s);
        const absl::Status status = refusal(s);
        EXPECT_EQ(status.code(), code) << status;
        EXPECT_NE(status.message().find(text), std::string::npos) << status;
    };
    using Request = v1::ExportGamesStreamRequest;
    refused([](Request& s) { s.add_versions("nosuch"); }, absl::StatusCode::kNotFound,
            "version: no version 'nosuch'");
    refused([](Request& s) { s.add_run_ids(999); }, absl::StatusCode::kNotFound, "no run 999");
    refused([](Request& s) { s.add_run_ids(-3); }, absl::StatusCode::kInvalidArgument,
            "run: -3 is no run id");
    refused([](Request& s) { s.add_time_controls("fast"); }, absl::StatusCode::kInvalidArgument,
            "tc: 'fast' is no time control");
    refused([](Request& s) { s.add_kinds("blitz"); }, absl::StatusCode::kInvalidArgument,
            "kind: 'blitz' is no run kind");
    refused([](Request& s) { s.add_results("won"); }, absl::StatusCode::kInvalidArgument,
            "result: 'won' is no result");
    refused(
        [](Request& s) {
            s.set_since_unix_ms(5000);
            s.set_until_unix_ms(5000);
        },
        absl::StatusCode::kInvalidArgument, "since: not before until");
}

TEST_F(GameExportTest, EveryStatementSearchesTheGamesByAnIndex) {
    std::set<std::string> statements;
    storage.database().observe_prepares([&](std::string_view sql) { statements.emplace(sql); });
    v1::ExportGamesStreamRequest s;
    s.add_results("draw");
    exported(s);
    s.set_since_unix_ms(1);
    exported(s);
    storage.database().observe_prepares({});
    int game_reads = 0;
    for (const std::string& sql : statements) {
        if (sql.find("games") == std::string::npos) continue;
        ++game_reads;
        std::string plan;
        storage.begin(false);
        Statement& explain = storage.database().prepare("EXPLAIN QUERY PLAN " + sql);
        // The parameters' values do not change the plan.
        while (explain.step()) plan += explain.text(3) + "\n";
        explain.reset();
        storage.commit();
        EXPECT_EQ(plan.find("SCAN g"), std::string::npos) << sql << "\n" << plan;
        EXPECT_EQ(plan.find("SCAN b"), std::string::npos) << sql << "\n" << plan;
        EXPECT_NE(plan.find("SEARCH g USING INDEX"), std::string::npos) << sql << "\n" << plan;
    }
    EXPECT_EQ(game_reads, 2);
}

}  // namespace
}  // namespace sparring::coordinator
