// Labelled positions in the domain: reported positions checked before the writer sees them,
// and positions imported chunk by chunk into a generation run of their own.
#include "coordinator/domain/positions.h"

#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/validation.h"
#include "training/position_record.h"

namespace sparring::coordinator {

absl::Status check_report_positions(const Report& report) {
    for (const PairRecord& pair : report.pairs) {
        for (int g = 0; g < 2; ++g) {
            const GameRecord& game = pair.games[g];
            const std::string name =
                "pair " + std::to_string(pair.index) + " game " + std::to_string(g + 1);
            // A game yields at most one position a ply, and generation games end at 400.
            if (game.position_count > kMaxGeneratePlies)
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
