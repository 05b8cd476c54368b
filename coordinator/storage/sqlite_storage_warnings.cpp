// SqliteStorage: the engine-output warnings of a run's games, counted per version and check
// (the table output_warnings).
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

void SqliteStorage::add_output_warnings(int64_t run_id, uint64_t game,
                                        const std::vector<GameOutputWarning>& warnings) {
    for (const GameOutputWarning& w : warnings)
        db_.prepare(
               "INSERT INTO output_warnings (run_id, test_version, output_check, games, lines, "
               "example_game, example, go) VALUES (?, ?, ?, 1, ?, ?, ?, ?) "
               "ON CONFLICT (run_id, test_version, output_check) DO UPDATE SET "
               "games = games + 1, lines = lines + excluded.lines")
            .bind(run_id, w.test_version, std::string(match::output_check_name(w.check)), w.count,
                  game, w.example, w.go)
            .run();
}

std::vector<OutputWarningCount> SqliteStorage::output_warnings(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT test_version, output_check, games, lines, example_game, example, go "
        "FROM output_warnings WHERE run_id = ? ORDER BY games DESC, test_version DESC, "
        "output_check");
    s.bind(run_id);
    std::vector<OutputWarningCount> warnings;
    while (s.step()) {
        const std::optional<match::OutputCheck> check = match::parse_output_check(s.text(1));
        if (!check) continue;  // a check of a later build: this one cannot name it
        OutputWarningCount& w = warnings.emplace_back();
        w.test_version = s.int64(0) != 0;
        w.check = *check;
        w.games = s.int64(2);
        w.count = s.int64(3);
        w.example_game = uint64_t(s.int64(4));
        w.example = s.text(5);
        w.go = s.text(6);
    }
    return warnings;
}

}  // namespace sparring::coordinator
