// The defaults of a run kind (a run of game pairs played by workers) and the look-ups in the
// table the composition root hands to Core.
#include "coordinator/domain/run_kind.h"

#include <stdexcept>

#include "common/opening.h"
#include "coordinator/domain/positions.h"
#include "coordinator/domain/validation.h"
#include "proto/opening.h"

namespace sparring::coordinator {

namespace {

// The table in use: set before the coordinator's threads start (Core's constructor), read only
// afterwards.
RunKindTable& table_in_use() {
    static RunKindTable table;
    return table;
}

absl::Status not_a_tuning_run(int64_t run_id) {
    return absl::NotFoundError("run " + std::to_string(run_id) +
                               " is not a tuning run (see `sparring runs`)");
}

}  // namespace

absl::Status RunKindModule::check_spec(RunSpec& spec) const {
    if (absl::Status status = check_game_run(spec); !status.ok()) return status;
    return check_no_tune(spec);
}

absl::StatusOr<RecordKindState> RunKindModule::prepare(Storage&, RunSpec&, const Version&) const {
    return RecordKindState([](Storage&, const Run&) { return KindEffects(); });
}

void RunKindModule::load(Storage&, Run&) const {}

void RunKindModule::on_leased(Storage&, const Lease&) const {}

void RunKindModule::fill_grant(Storage&, const std::vector<Opening>& book,
                               LeaseGrant& grant) const {
    fill_openings(book, grant);
}

void RunKindModule::fill_openings(const std::vector<Opening>& book, LeaseGrant& grant) {
    for (uint64_t pair = grant.lease.first_pair; pair < grant.lease.first_pair + grant.lease.pairs;
         ++pair)
        grant.openings.push_back(book[pair % book.size()]);
}

absl::Status check_pgn_result(const GameRecord& game, Outcome white, const std::string& name) {
    if (!game.pgn_white_outcome || *game.pgn_white_outcome == white) return absl::OkStatus();
    return absl::InvalidArgumentError(
        name + ": a game's PGN says " + std::string(pgn_result(*game.pgn_white_outcome)) +
        " but the reported outcome means " + std::string(pgn_result(white)));
}

absl::Status RunKindModule::check_report(const Report& report, const std::string& name) const {
    if (has_positions(report))
        return absl::InvalidArgumentError(name + ": only generation runs take labelled positions");
    return absl::OkStatus();
}

absl::Status RunKindModule::check_pair(const PairRecord& pair, const std::string& name) const {
    if (pair.games[0].test_white == pair.games[1].test_white)
        return absl::InvalidArgumentError(name + ": the test version must play each colour once");
    for (const GameRecord& game : pair.games) {
        // A match run's games are stored and served as PGN: one without is refused, not
        // counted as "exactly one game" of nothing.
        if (game.pgn.empty())
            return absl::InvalidArgumentError(
                name + ": a game has no PGN (each game of a match run comes with its PGN)");
        if (absl::Status status = check_pgn_result(
                game, game.test_white ? game.outcome : flipped(game.outcome), name);
            !status.ok())
            return status;
    }
    return absl::OkStatus();
}

void RunKindModule::count_pair(Storage&, const Run&, const Lease&, const PairRecord&) const {}

KindEffects RunKindModule::count_report(Storage&, const Run&, const Lease&, const Report&,
                                        int64_t) const {
    return {};
}

void RunKindModule::refresh_statistics(Run&) const {}

std::optional<std::string> RunKindModule::verdict(const Run& run) const {
    if (uint64_t(run.counts.pairs) >= run.pairs_total()) return "completed";
    return std::nullopt;
}

KindEffects RunKindModule::on_finished(Storage&, const Run&) const {
    return {};
}

KindEffects RunKindModule::on_stopped(Storage&, const Run&) const {
    return {};
}

KindEffects RunKindModule::on_child_ended(Storage&, int64_t) const {
    return {};
}

absl::StatusOr<Version> RunKindModule::made_version(Storage&, const Run& run) const {
    return makes_no_version(run);
}

absl::Status RunKindModule::makes_no_version(const Run& run) const {
    return absl::FailedPreconditionError("run " + std::to_string(run.id) + " is a " +
                                         std::string(label()) +
                                         " run; only tuning and training runs make a version");
}

void RunKindModule::spec_from_proto(const v1::RunSpec&, RunSpec*) const {}

void RunKindModule::status_to_proto(const Run&, v1::RunStatus*) const {}

void RunKindModule::lease_to_proto(const LeaseGrant& in, v1::Lease* out) const {
    for (const Opening& o : in.openings) opening_to_proto(o, out->add_openings());
}

absl::Status RunKindModule::tune_history_to_proto(Storage&, const Run& run,
                                                  v1::TuneHistory*) const {
    return tunes_nothing(run);
}

absl::Status RunKindModule::positions_to_proto(Storage&, const Run& run, uint64_t, uint32_t,
                                               v1::ExportPositionsResponse*) const {
    return stores_no_positions(run);
}

absl::Status RunKindModule::tunes_nothing(const Run& run) {
    return not_a_tuning_run(run.id);
}

absl::Status RunKindModule::stores_no_positions(const Run& run) {
    return absl::FailedPreconditionError("run " + std::to_string(run.id) +
                                         " is not a generation run: it has no positions");
}

absl::Status tune_history_to_proto(Storage& storage, int64_t run_id, v1::TuneHistory* out) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run) return not_a_tuning_run(run_id);
    return run_kind(run->spec.kind).tune_history_to_proto(storage, *run, out);
}

absl::Status positions_to_proto(Storage& storage, int64_t run_id, uint64_t start_game,
                                uint32_t max_games, v1::ExportPositionsResponse* out) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    return run_kind(run->spec.kind).positions_to_proto(storage, *run, start_game, max_games, out);
}

void use_run_kinds(const RunKindTable& kinds) {
    // The same table again (another Core of the process) writes nothing.
    if (table_in_use() != kinds) table_in_use() = kinds;
}

const RunKindTable& run_kinds() {
    return table_in_use();
}

const RunKindModule& run_kind(RunKind kind) {
    for (const RunKindModule* module : run_kinds())
        if (module->kind() == kind) return *module;
    // Every enum value has a module in the table (the registry's test checks it) and Core's
    // constructor installs the table: this is a bug.
    throw std::logic_error("run kind " + std::to_string(int(kind)) +
                           " has no module (is Core::Options::kinds the table of kinds?)");
}

const RunKindModule* find_run_kind(std::string_view name) {
    for (const RunKindModule* module : run_kinds())
        if (module->name() == name) return module;
    return nullptr;
}

absl::StatusOr<const RunKindModule*> run_kind_from_proto(v1::RunKind kind) {
    std::string labels;
    const auto& modules = run_kinds();
    for (size_t i = 0; i < modules.size(); ++i) {
        if (modules[i]->proto_kind() == kind) return modules[i];
        labels += (i == 0                    ? ""
                   : i + 1 == modules.size() ? " or "
                                             : ", ") +
                  std::string(modules[i]->label());
    }
    return absl::InvalidArgumentError("the run has no kind: " + labels);
}

void sprt_to_proto(const stats::SprtParams& in, v1::Sprt* out) {
    out->set_elo0(in.elo0);
    out->set_elo1(in.elo1);
    out->set_alpha(in.alpha);
    out->set_beta(in.beta);
    out->set_model(in.model == stats::Model::Logistic ? v1::SPRT_MODEL_LOGISTIC
                                                      : v1::SPRT_MODEL_NORMALIZED);
}

std::vector<std::string> run_warnings(const Run& run) {
    std::vector<std::string> warnings;
    if (const std::optional<BookGames> games = run_kind(run.spec.kind).book_games(run))
        if (std::string warning =
                replay_warning(games->games, games->pairs, run.book_size, run.spec.time_control);
            !warning.empty())
            warnings.push_back(std::move(warning));
    return warnings;
}

uint64_t Run::pairs_total() const {
    return run_kind(spec.kind).plays_games() ? spec.games / 2 : 0;
}

}  // namespace sparring::coordinator
