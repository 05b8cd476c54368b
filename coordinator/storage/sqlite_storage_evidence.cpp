// The evidence of faulty games (domain/evidence.h): table fault_evidence beside games.
#include <string>
#include <utility>
#include <vector>

#include "coordinator/domain/text.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

// The columns a faulty game is listed with: the games' rows of faults, each with the version
// that lost it and what fault_evidence holds of it (NULL: nothing).
constexpr std::string_view kFaultyGames =
    "SELECT g.game, g.worker_id, w.name, v.id, v.name, g.ending, e.reason, "
    "e.transcript IS NOT NULL FROM games g "
    "JOIN runs r ON r.id = g.run_id JOIN workers w ON w.id = g.worker_id "
    "JOIN versions v ON v.id = CASE WHEN g.outcome = 'loss' THEN r.test_version_id "
    "ELSE r.base_version_id END "
    "LEFT JOIN fault_evidence e ON e.run_id = g.run_id AND e.game = g.game "
    "WHERE g.run_id = ? AND g.ending IN ('time_loss', 'crash', 'stall', 'illegal_move') ";

FaultyGame faulty_game_of(const Statement& s) {
    FaultyGame f;
    f.game = uint64_t(s.int64(0));
    f.worker_id = s.int64(1);
    f.worker_name = s.text(2);
    f.version_id = s.int64(3);
    f.version = s.text(4);
    f.fault = parse_game_ending(s.text(5)).value_or(GameEnding::Unknown);
    f.reason = s.is_null(6) ? "" : s.text(6);
    f.has_evidence = s.int64(7) != 0;
    return f;
}

// Returns a stored stream's text; a damaged one says so instead.
std::string inflated(const Statement& s, int column) {
    if (s.is_null(column)) return "";
    std::optional<std::string> text = decompress(s.blob(column));
    return text ? std::move(*text) : "(damaged in the database)";
}

}  // namespace

int64_t SqliteStorage::count_full_evidence(int64_t run_id, int64_t version_id, GameEnding fault) {
    Statement& s = db_.prepare(
        "SELECT count(*) FROM fault_evidence WHERE run_id = ? AND version_id = ? AND fault = ? "
        "AND transcript IS NOT NULL");
    s.bind(run_id, version_id, std::string(game_ending_name(fault)));
    const int64_t count = s.step() ? s.int64(0) : 0;
    s.reset();
    return count;
}

void SqliteStorage::insert_evidence(int64_t run_id, uint64_t game, int64_t version_id,
                                    GameEnding fault, const GameEvidence& e, bool full) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& [name, value] : e.options) options.push_back({name, value});
    const std::string transcript = full ? compress(e.transcript) : "";
    const std::string stderr_tail = full ? compress(e.stderr_tail) : "";
    db_.prepare(
           "INSERT OR REPLACE INTO fault_evidence (run_id, game, version_id, fault, reason, "
           "command, args, options, position, go, transcript, transcript_complete, stderr, "
           "stderr_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(run_id, game, version_id, std::string(game_ending_name(fault)), e.reason, e.command,
              json_column(e.args), json_column(options), e.position, e.go,
              full ? std::optional<Blob>(Blob{transcript}) : std::nullopt, e.transcript_complete,
              full ? std::optional<Blob>(Blob{stderr_tail}) : std::nullopt, e.stderr_bytes)
        .run();
}

std::vector<FaultyGame> SqliteStorage::list_faulty_games(int64_t run_id, int max_games) {
    Statement& s = db_.prepare(std::string(kFaultyGames) + "ORDER BY g.game LIMIT ?");
    s.bind(run_id, max_games);
    std::vector<FaultyGame> games;
    while (s.step()) games.push_back(faulty_game_of(s));
    s.reset();
    return games;
}

std::vector<FaultKindCount> SqliteStorage::faulty_game_counts(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT v.name, g.ending, count(*), count(e.transcript) FROM games g "
        "JOIN runs r ON r.id = g.run_id "
        "JOIN versions v ON v.id = CASE WHEN g.outcome = 'loss' THEN r.test_version_id "
        "ELSE r.base_version_id END "
        "LEFT JOIN fault_evidence e ON e.run_id = g.run_id AND e.game = g.game "
        "WHERE g.run_id = ? AND g.ending IN ('time_loss', 'crash', 'stall', 'illegal_move') "
        "GROUP BY v.name, g.ending ORDER BY 3 DESC, 1, 2");
    s.bind(run_id);
    std::vector<FaultKindCount> counts;
    while (s.step()) {
        FaultKindCount c;
        c.version = s.text(0);
        c.fault = parse_game_ending(s.text(1)).value_or(GameEnding::Unknown);
        c.games = s.int64(2);
        c.with_evidence = s.int64(3);
        counts.push_back(std::move(c));
    }
    return counts;
}

std::optional<FaultyGame> SqliteStorage::find_faulty_game(int64_t run_id, uint64_t game) {
    Statement& s = db_.prepare(std::string(kFaultyGames) + "AND g.game = ?");
    s.bind(run_id, game);
    if (!s.step()) {
        s.reset();
        return std::nullopt;
    }
    FaultyGame f = faulty_game_of(s);
    s.reset();
    Statement& e = db_.prepare(
        "SELECT reason, command, args, options, position, go, transcript, transcript_complete, "
        "stderr, stderr_bytes FROM fault_evidence WHERE run_id = ? AND game = ?");
    e.bind(run_id, game);
    if (e.step()) {
        GameEvidence evidence;
        evidence.reason = e.text(0);
        evidence.command = e.text(1);
        evidence.args = read_json_column<std::vector<std::string>>(e.text(2), "args");
        for (const auto& [name, value] :
             read_json_column<std::vector<std::pair<std::string, std::string>>>(e.text(3),
                                                                                "options"))
            evidence.options.emplace_back(name, value);
        evidence.position = e.text(4);
        evidence.go = e.text(5);
        evidence.transcript = inflated(e, 6);
        evidence.transcript_complete = e.int64(7) != 0;
        evidence.stderr_tail = inflated(e, 8);
        evidence.stderr_bytes = uint64_t(e.int64(9));
        f.evidence = std::move(evidence);
    }
    e.reset();
    return f;
}

}  // namespace sparring::coordinator
