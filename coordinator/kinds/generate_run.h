// Self-play data-generation runs on the coordinator: resolving their spec, choosing each
// leased game's opening, and checking and storing the labelled positions workers report.
//
// Game pair p of a run is the games 2p and 2p + 1. A game's opening depends only on (run
// seed, game number) (training::self_play_opening), so any stored game can be replayed: the
// positions of game g are what `sparring positions generate` with the run's seed, nodes,
// random plies and filters gives for its game g. Positions are stored in the transaction
// that counts their pair, so the exactly-once accounting of reports holds for them too.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/storage.h"

namespace sparring::coordinator {

// Most pairs in one generation lease: a report of all its games stays well under gRPC's
// 4 MiB message limit even with games of the longest length.
inline constexpr uint32_t kMaxGeneratePairsPerLease = 32;

// Checks a generation spec (nodes time control, one built-in version) and fills defaults.
absl::StatusOr<GenerateState> resolve_generate(const RunSpec& spec, const Version& version);

// Returns the canonical text of a filter list ("check,tactical,mate", ..., or "none").
std::string filters_text(const std::string& filters);

// Fills a granted lease of a generation run with the opening of each of its games.
void fill_generate_lease(const std::vector<Opening>& book, LeaseGrant& grant);

// Stores the positions of a counted game pair of a generation lease.
void store_pair_positions(GenerateStore& storage, const Run& run, const Lease& lease,
                          const PairRecord& pair);

// A page of a generation run's stored positions: up to max_games games from start_game on,
// staying under about 2 MB.
struct PositionsPage {
    std::string data;
    uint32_t count = 0;
    uint32_t games = 0;
    uint64_t next_start_game = 0;
    bool done = false;
};
PositionsPage export_positions(GenerateStore& storage, const Run& run, uint64_t start_game,
                               uint32_t max_games);

}  // namespace sparring::coordinator
