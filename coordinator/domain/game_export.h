// Bulk export of games across runs (`sparring export --version ... --tc ...`): the selection as
// the storage reads it, and the store that reads it a chunk at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// A selection of games, resolved: each list is any of its values (empty: any), the lists and
// the times combine with AND.
struct ExportFilter {
    std::vector<int64_t> run_ids;
    std::vector<int64_t> version_ids;  // the test or the base version
    std::vector<std::string> time_controls;
    std::vector<RunKind> kinds;
    int64_t since_ms = 0;  // the game's batch leased at or after (0: any)
    int64_t until_ms = 0;  // ... and before (0: any)
    // The results taken, a bit per (test version's outcome, colour): bit 2 * outcome +
    // test_white, outcome 0 win, 1 draw, 2 loss. kAllResults: any.
    static constexpr uint32_t kAllResults = 63;
    uint32_t results = kAllResults;
};

// A game as exported: its number in its run and its PGN text.
struct ExportedGame {
    uint64_t game = 0;
    std::string pgn;
};

class GameExportStore {
  public:
    virtual ~GameExportStore() = default;

    // Returns the ids of the runs that may hold games of the selection, in id order (the runs
    // table is small: read whole).
    virtual std::vector<int64_t> export_runs(const ExportFilter& filter) = 0;
    // Returns up to max_games of a run's games of the selection numbered above after_game (-1:
    // from the first), in game order, read by (run_id, game) and stopping after the game that
    // takes their PGN past max_bytes.
    virtual std::vector<ExportedGame> export_games(int64_t run_id, int64_t after_game,
                                                   const ExportFilter& filter, int max_games,
                                                   size_t max_bytes) = 0;
};

}  // namespace sparring::coordinator
