// The coordinator's fixed bounds on what users and workers send (docs/operations.md, Limits).
// Bounds an operator may want to move are Core::Options, set by flags; those of a run's
// settings, which the CLI checks too, are in common/run_limits.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/run_limits.h"
#include "match/adjudication.h"
#include "match/uci_options.h"

namespace sparring::coordinator {

inline constexpr size_t kMaxVersionNameBytes = 64;
inline constexpr size_t kMaxTokenNameBytes = 128;  // a user's (or a worker token's) name
inline constexpr size_t kMaxWorkerNameBytes = 128;
inline constexpr size_t kMaxUciCommandBytes = 1024;
inline constexpr size_t kMaxUciOptions = 64;
inline constexpr size_t kMaxUciOptionNameBytes = 64;
inline constexpr size_t kMaxUciOptionValueBytes = 1024;
inline constexpr int64_t kMaxMemoryMb = int64_t(1) << 24;  // a worker's memory: 16 TiB
inline constexpr size_t kMaxFenBytes = 128;                // the longest legal FEN is ~90 bytes
inline constexpr size_t kMaxOpeningMoves = 256;            // plies of one opening
inline constexpr size_t kMaxStatusBytes = 1024;            // of an error message sent or logged
// A listing of runs (ListRuns, GET /api/v1/runs, the runs page, `sparring runs`) answers at
// most this many runs per page: a larger limit is clamped, and the answer's total says how
// many pages there are. Its descriptions are cut to kMaxListedDescriptionBytes (the run's
// own page and GetRun carry the whole).
inline constexpr int kMaxListedRuns = 500;
inline constexpr size_t kMaxListedDescriptionBytes = 200;
// A run's status (GetRun, and the answers of StopRun and ModifyRun) carries at most this many
// of its changes, the latest; GetRunRequest.changes_offset pages back through the others.
inline constexpr uint32_t kMaxShownChanges = 100;
// The adjudication a run of games gets unless its spec turns it off (fishtest's rules): a
// draw after 8 moves each within 0.20 pawns from move 34 on; a resignation after 3 moves each
// at 4 pawns or more, both engines agreeing. No length limit by default.
inline constexpr match::DrawRule kDefaultDrawRule{
    .move_number = 34, .move_count = 8, .score_cp = 20};
inline constexpr match::ResignRule kDefaultResignRule{
    .move_count = 3, .score_cp = 400, .two_sided = true};
inline constexpr uint32_t kMaxAdjudicationPlies = 100000;
inline constexpr int kMaxThreads = 256;  // of one engine in a game
// A clock's reference speed, nodes per second (scaled clocks).
inline constexpr uint64_t kMinReferenceNps = 1000;
inline constexpr uint64_t kMaxReferenceNps = 1'000'000'000'000;
// A version's hash table, MiB: the bound the workers hold submitted options to as well.
inline constexpr int64_t kMaxHashMb = match::kMaxUciHashMb;

}  // namespace sparring::coordinator
