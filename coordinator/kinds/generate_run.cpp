#include "coordinator/kinds/generate_run.h"

#include "coordinator/domain/events.h"
#include "coordinator/domain/validation.h"
#include "training/position_filter.h"
#include "training/position_record.h"
#include "training/self_play_opening.h"

namespace sparring::coordinator {

namespace {

constexpr int kMaxRandomPlies = 200;
constexpr int kMaxPlies = 400;
constexpr uint32_t kMaxPositionsPerGame = kMaxPlies;
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
    state.max_plies = kMaxPlies;
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
    for (uint64_t game = 2 * grant.batch.first_pair;
         game < 2 * (grant.batch.first_pair + grant.batch.pairs); ++game) {
        grant.openings.push_back(training::self_play_opening(options, game));
    }
}

absl::Status check_report_positions(const Report& report) {
    for (const PairRecord& pair : report.pairs) {
        for (int g = 0; g < 2; ++g) {
            const GameRecord& game = pair.games[g];
            const std::string name =
                "pair " + std::to_string(pair.index) + " game " + std::to_string(g + 1);
            // A game yields at most one position a ply, and generation games end at 400.
            if (game.position_count > kMaxPositionsPerGame)
                return invalid(name + ": " + std::to_string(game.position_count) +
                               " positions are more than a game can yield");
            std::vector<training::LabelledPosition> positions;
            std::string error;
            if (!training::decode_positions(game.positions, game.position_count, &positions,
                                            &error))
                return invalid(name + ": malformed positions: " + error);
            // Generation runs report white's outcome, as positions are labelled.
            for (size_t i = 0; i < positions.size(); ++i)
                if (positions[i].result != game.outcome)
                    return invalid(name + ": position " + std::to_string(i + 1) +
                                   " is labelled with another result than its game's");
        }
    }
    return absl::OkStatus();
}

bool has_positions(const Report& report) {
    for (const PairRecord& pair : report.pairs)
        for (const GameRecord& game : pair.games)
            if (game.position_count || !game.positions.empty()) return true;
    return false;
}

void store_pair_positions(GenerateStore& storage, const Run& run, const Lease& batch,
                          const PairRecord& pair) {
    for (int g = 0; g < 2; ++g) {
        StoredPositions positions;
        positions.game = 2 * (batch.first_pair + pair.index) + uint64_t(g);
        positions.count = pair.games[g].position_count;
        positions.data = pair.games[g].positions;
        storage.insert_positions(run.id, positions);
    }
}

absl::StatusOr<PositionsPage> export_positions(GenerateStore& storage, int64_t run_id,
                                               uint64_t start_game, uint32_t max_games) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    if (run->spec.kind != RunKind::Generate)
        return absl::FailedPreconditionError("run " + std::to_string(run_id) +
                                             " is not a generation run: it has no positions");
    const uint32_t limit =
        max_games == 0 ? kDefaultPositionExportGames : std::min(max_games, kMaxPositionExportGames);
    const std::vector<StoredPositions> games =
        storage.list_positions(run_id, start_game, int(limit));
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

absl::StatusOr<ImportAck> Core::import_positions(Storage& storage, const ImportChunk& chunk) const {
    std::optional<Run> run;
    if (chunk.run_id == 0 && chunk.key.size() > 128)
        return invalid("an import's key is over 128 bytes");
    if (chunk.run_id == 0 && chunk.chunk != 0) return invalid("an import starts with chunk 0");
    // An interrupted import of the same positions continues in its run.
    if (chunk.run_id == 0 && !chunk.key.empty())
        if (const std::optional<int64_t> resumed = storage.find_active_import(chunk.key))
            run = storage.find_run(*resumed);
    if (!run && chunk.run_id == 0) {
        const std::optional<Version> version = storage.find_version(chunk.version);
        if (!version)
            return absl::NotFoundError("unknown version '" + chunk.version +
                                       "' (add it with `sparring versions add`)");
        if (chunk.source.size() > 4096) return invalid("the import's source is over 4096 bytes");
        Run created;
        created.spec.kind = RunKind::Generate;
        created.spec.test_version = created.spec.base_version = version->name;
        created.spec.book.source = chunk.source;
        created.spec.description = "labelled positions imported from " + chunk.source;
        created.spec.owner = chunk.owner;
        created.test_id = created.base_id = version->id;
        created.created_ms = now_ms_();
        created.id = storage.insert_run(created);
        GenerateState settings;
        settings.run_id = created.id;
        settings.random_plies = 0;
        settings.max_plies = 0;
        settings.filters = "imported";
        storage.insert_generate(settings);
        if (!chunk.key.empty()) storage.insert_import_key(created.id, chunk.key);
        publish(storage, RunSubmitted{created.id, RunKind::Generate, version->name, version->name,
                                      0, chunk.owner});
        run = storage.find_run(created.id);
    } else if (!run) {
        run = storage.find_run(chunk.run_id);
        if (!run) return absl::NotFoundError("no run " + std::to_string(chunk.run_id));
        if (run->spec.kind != RunKind::Generate || run->spec.games != 0)
            return absl::FailedPreconditionError("run " + std::to_string(run->id) +
                                                 " is not an import of positions");
    }
    const std::vector<StoredPositions> stored = storage.list_positions(run->id, chunk.chunk, 1);
    if (!stored.empty() && stored[0].game == chunk.chunk) {
        if (stored[0].data != chunk.data)
            return absl::AlreadyExistsError("chunk " + std::to_string(chunk.chunk) + " of run " +
                                            std::to_string(run->id) +
                                            " was already stored with other positions");
        return ImportAck{run->id, storage.find_generate(run->id)->positions, true,
                         uint32_t(storage.count_position_games(run->id))};
    }
    if (run->state != RunState::Active)
        return absl::FailedPreconditionError("run " + std::to_string(run->id) +
                                             " is over; import into a new run");
    storage.insert_positions(run->id, {chunk.chunk, chunk.count, chunk.data});
    const uint64_t positions = storage.find_generate(run->id)->positions;
    if (chunk.done)
        end_run(storage, *run, RunState::Finished,
                "imported " + std::to_string(positions) + " positions");
    return ImportAck{run->id, positions, false, uint32_t(storage.count_position_games(run->id))};
}

}  // namespace sparring::coordinator
