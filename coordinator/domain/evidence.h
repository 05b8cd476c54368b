// The evidence of faulty games (issue 51): what the workers send of a game a UCI engine lost
// by a fault, kept with the game for the first kEvidencePerKind games of each version and
// fault of a run, the rest counted; and what `sparring faults` and `repro` read of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Games of each version and fault of a run kept with their transcript and stderr; the rest
// keep their reason and engine only.
constexpr int kEvidencePerKind = 10;

// The bounds on what a worker may send of one game (the coordinator refuses a report over
// them): the inflated transcript and stderr, their streams, and each line of text.
constexpr std::size_t kMaxTranscriptBytes = 256 * 1024 + 4096;
constexpr std::size_t kMaxStderrBytes = 64 * 1024;
constexpr std::size_t kMaxEvidenceStreamBytes = 512 * 1024;
constexpr std::size_t kMaxEvidenceLineBytes = 64 * 1024;
constexpr std::size_t kMaxEvidenceOptions = 256;

// A faulty game as listed and shown.
struct FaultyGame {
    uint64_t game = 0;
    int64_t worker_id = 0;
    std::string worker_name;
    int64_t version_id = 0;
    std::string version;
    GameEnding fault = GameEnding::Unknown;
    bool has_evidence = false;             // transcript and stderr stored
    std::optional<GameEvidence> evidence;  // read by find_faulty_game: reason, engine and all
    std::string reason;                    // listed
};

// A run's faulty games of one version and fault.
struct FaultKindCount {
    std::string version;
    GameEnding fault = GameEnding::Unknown;
    int64_t games = 0;
    int64_t with_evidence = 0;
};

// The storage port of the evidence (table fault_evidence, docs/database.md).
class EvidenceStore {
  public:
    virtual ~EvidenceStore() = default;

    // Returns how many games of a run's version and fault have their transcript stored.
    virtual int64_t count_full_evidence(int64_t run_id, int64_t version_id, GameEnding fault) = 0;
    // Stores a game's evidence; full: with its transcript and stderr.
    virtual void insert_evidence(int64_t run_id, uint64_t game, int64_t version_id,
                                 GameEnding fault, const GameEvidence& evidence, bool full) = 0;
    // Returns a run's faulty games in order, at most max_games, with their reasons.
    virtual std::vector<FaultyGame> list_faulty_games(int64_t run_id, int max_games) = 0;
    // Returns the counts of a run's faulty games by version and fault.
    virtual std::vector<FaultKindCount> faulty_game_counts(int64_t run_id) = 0;
    // Returns one faulty game with its evidence, if the game is faulty.
    virtual std::optional<FaultyGame> find_faulty_game(int64_t run_id, uint64_t game) = 0;
};

class Storage;

// Keeps a stored game's evidence (reports.cpp, in the report's transaction), within the bound.
void keep_evidence(EvidenceStore& store, const Run& run, uint64_t game, const GameRecord& record);

}  // namespace sparring::coordinator
