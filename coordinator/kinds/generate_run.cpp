#include "coordinator/kinds/generate_run.h"

#include "coordinator/domain/positions.h"
#include "coordinator/domain/validation.h"
#include "training/position_filter.h"
#include "training/self_play_opening.h"

namespace sparring::coordinator {

namespace {

constexpr int kMaxRandomPlies = 200;
constexpr uint32_t kDefaultPositionExportGames = 1000;
constexpr uint32_t kMaxPositionExportGames = 100000;
constexpr size_t kMaxPositionExportBytes = 2 << 20;  // well below gRPC's 4 MiB message limit

// Returns the filters of a canonical filter text.
training::FilterOptions parse_filters(const std::string& text) {
    std::string error;
    return training::parse_filter_options(text, &error).value_or(training::FilterOptions{});
}

}  // namespace

std::string filters_text(const std::string& filters) {
    const training::FilterOptions f = parse_filters(filters.empty() ? "all" : filters);
    std::string text;
    for (const auto& [on, name] :
         {std::pair{f.in_check, "check"}, std::pair{f.tactical, "tactical"},
          std::pair{f.mate_scores, "mate"}})
        if (on) text += (text.empty() ? "" : ",") + std::string(name);
    return text.empty() ? "none" : text;
}

absl::StatusOr<GenerateState> resolve_generate(const RunSpec& spec, const Version& version) {
    if (spec.test_version != spec.base_version)
        return invalid(
            "a generation run plays one version against itself: name it as both test "
            "and base");
    if (version.kind != Version::Kind::Builtin)
        return invalid("version '" + version.name +
                       "' is a UCI engine; only built-in versions generate training data");
    if (spec.time_control.kind != TimeControl::Kind::Nodes)
        return invalid("a generation run plays a fixed number of nodes a move (--nodes N)");
    GenerateState state;
    state.max_plies = kMaxGeneratePlies;
    state.seed = spec.generate.seed;
    state.random_plies = spec.generate.random_plies.value_or(2);
    if (state.random_plies < 0 || state.random_plies > kMaxRandomPlies)
        return invalid("random plies must be in 0..200");
    std::string error;
    if (!spec.generate.filters.empty() &&
        !training::parse_filter_options(spec.generate.filters, &error))
        return invalid("filters: " + error);
    state.filters = filters_text(spec.generate.filters);
    return state;
}

void fill_generate_lease(const std::vector<Opening>& book, LeaseGrant& grant) {
    training::SelfPlayOptions options;
    options.book = book;
    options.seed = grant.generate->seed;
    options.random_plies = grant.generate->random_plies;
    grant.openings.clear();
    for (uint64_t game = 2 * grant.lease.first_pair;
         game < 2 * (grant.lease.first_pair + grant.lease.pairs); ++game) {
        grant.openings.push_back(training::self_play_opening(options, game));
    }
}

void store_pair_positions(GenerateStore& storage, const Run& run, const Lease& lease,
                          const PairRecord& pair) {
    for (int g = 0; g < 2; ++g) {
        StoredPositions positions;
        positions.game = 2 * (lease.first_pair + pair.index) + uint64_t(g);
        positions.count = pair.games[g].position_count;
        positions.data = pair.games[g].positions;
        storage.insert_positions(run.id, positions);
    }
}

PositionsPage export_positions(GenerateStore& storage, const Run& run, uint64_t start_game,
                               uint32_t max_games) {
    const uint32_t limit =
        max_games == 0 ? kDefaultPositionExportGames : std::min(max_games, kMaxPositionExportGames);
    const std::vector<StoredPositions> games =
        storage.list_positions(run.id, start_game, int(limit));
    PositionsPage page;
    page.next_start_game = start_game;
    for (const StoredPositions& game : games) {
        if (page.games > 0 && page.data.size() + game.data.size() > kMaxPositionExportBytes) break;
        page.data += game.data;
        page.count += game.count;
        page.next_start_game = game.game + 1;
        ++page.games;
    }
    page.done = games.size() < limit && page.games == games.size();
    return page;
}

}  // namespace sparring::coordinator
