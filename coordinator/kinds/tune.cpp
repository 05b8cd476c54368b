// Tuning runs: SPSA on spin options of one version, the built-in engine's parameters or a UCI
// or uploaded engine's options by one path (domain/version_options.h; tune_run.h has the
// arithmetic of leases and reports); each lease carries its pairs' perturbations, each report
// moves the values, and a finished run may start the run that verifies its result.
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/validation.h"
#include "coordinator/kinds/tune_run.h"

namespace sparring::coordinator {

namespace {

// Writes a resolved parameter.
void param_to_proto(const spsa::Param& in, v1::TuneParam* out) {
    out->set_name(in.name);
    out->set_start(in.start);
    out->set_min(in.min);
    out->set_max(in.max);
    out->set_c_end(in.c_end);
    out->set_r_end(in.r_end);
}

class TuneKind final : public KindWithStore<TuneStore> {
  public:
    bool purgeable() const override { return false; }
    RunKind kind() const override { return RunKind::Tune; }
    std::string_view name() const override { return "tune"; }
    std::string_view label() const override { return "tune (SPSA)"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_TUNE; }
    int spec_field() const override { return v1::RunSpec::kTuneFieldNumber; }

    // Checks the run's games; its parameters are checked against the base by prepare.
    absl::Status check_spec(RunSpec& spec) const override { return check_game_run(spec); }

    // Its verification's games (from the run's book): its own pairs play perturbed values.
    // Known of a run read alone (SubmitRun's answer, GetRun), whose tuning state is loaded.
    std::optional<BookGames> book_games(const Run& run) const override {
        const TuneState* tune = run.state_of_kind<TuneState>();
        if (!tune || !tune->verify) return std::nullopt;
        const uint64_t games = tune->verify_games;
        return BookGames{"the verification's " + std::string(tune->verify_fixed ? "" : "up to ") +
                             std::to_string(games) + " games",
                         games / 2};
    }

    // Resolves the parameters; the run's state and first trajectory point follow its insert.
    absl::StatusOr<Record> prepare(TuneStore&, RunSpec& spec, const Version& base) const override {
        absl::StatusOr<TuneState> tune = resolve_tune(spec, base);
        if (!tune.ok()) return tune.status();
        return Record([tune = std::move(*tune)](TuneStore& storage, const Run& run) mutable {
            tune.run_id = run.id;
            storage.insert_tune(tune);
            storage.insert_tune_point(run.id, {0, run.created_ms, tune.theta});
            return KindEffects();
        });
    }

    // The base version with the run's values (its average, when it averages) as of now.
    absl::StatusOr<Version> made_version(TuneStore& storage, const Run& run) const override {
        const std::optional<TuneState> state = storage.find_tune(run.id);
        if (!state) return makes_no_version(run);
        Version v = tuned_version(*storage.find_version(run.base_id), *state);
        v.description = "the values of tuning run " + std::to_string(run.id);
        return v;
    }

    // Reads the parameters and current values.
    void load(TuneStore& storage, Run& run) const override {
        if (std::optional<TuneState> tune = storage.find_tune(run.id))
            run.kind_state = std::move(*tune);
    }

    // Records the values the lease draws its perturbations from.
    void on_leased(TuneStore& storage, const Lease& lease) const override {
        snapshot_tune(storage, lease);
    }

    // Gives each pair its opening and its perturbation.
    void fill_grant(TuneStore& storage, const std::vector<Opening>& book,
                    LeaseGrant& grant) const override {
        fill_openings(book, grant);
        fill_tune_lease(storage, grant);
    }

    // Moves the values by the reported pairs and records the trajectory point they reach.
    KindEffects count_report(TuneStore& storage, const Run& run, const Lease& lease,
                             const Report& report, int64_t now_ms) const override {
        apply_tune_report(storage, run, lease, report, now_ms);
        return {};
    }

    // Returns the tuned version and its verification, if asked.
    KindEffects on_finished(TuneStore& storage, const Run& run) const override {
        return finish_tune(storage, run);
    }

    // Reads the parameters to tune and the verification.
    void spec_from_proto(const v1::RunSpec& in, RunSpec* out) const override {
        for (const v1::TuneParam& p : in.tune().params()) {
            TuneParamRequest request;
            request.name = p.name();
            if (p.has_start()) request.start = p.start();
            if (p.has_min()) request.min = p.min();
            if (p.has_max()) request.max = p.max();
            if (p.has_c_end()) request.c_end = p.c_end();
            if (p.has_r_end()) request.r_end = p.r_end();
            out->tune.params.push_back(std::move(request));
        }
        out->tune.verify = in.tune().verify();
        out->tune.verify_games = in.tune().verify_games();
        out->tune.average = in.tune().average();
        out->tune.verify_fixed = in.tune().verify_fixed();
        if (in.tune().has_verify_seed()) out->tune.verify_seed = in.tune().verify_seed();
    }

    // Writes the resolved parameters, the values and the verification.
    void status_to_proto(const Run& in, v1::RunStatus* out) const override {
        const TuneState* read = in.state_of_kind<TuneState>();
        if (!read) return;
        const TuneState& state = *read;
        v1::RunSpec* spec = out->mutable_spec();
        spec->mutable_tune()->set_verify(state.verify);
        spec->mutable_tune()->set_verify_games(state.verify_games);
        spec->mutable_tune()->set_average(state.average);
        spec->mutable_tune()->set_verify_fixed(state.verify_fixed);
        if (state.verify_seed) spec->mutable_tune()->set_verify_seed(*state.verify_seed);
        if (state.verify && !state.verify_fixed) sprt_to_proto(state.sprt, spec->mutable_sprt());
        v1::TuneStatus* tune = out->mutable_tune();
        for (size_t i = 0; i < state.params.size(); ++i) {
            param_to_proto(state.params[i], tune->add_params());
            param_to_proto(state.params[i], spec->mutable_tune()->add_params());
            tune->add_values(state.theta[i]);
        }
        for (double value : state.result()) tune->add_result(value);
        tune->set_averaged_pairs(uint64_t(state.averaged_pairs));
        tune->set_pairs_applied(uint64_t(state.pairs_applied));
        tune->set_pairs_faulty(uint64_t(state.pairs_faulty));
        tune->set_tuned_version(state.tuned_version);
        tune->set_verify_run_id(state.verify_run_id);
    }

    // Writes the parameters' names and the values after each recorded number of pairs.
    absl::Status tune_history_to_proto(TuneStore& storage, const Run& run,
                                       v1::TuneHistory* out) const override {
        const std::optional<TuneState> state = storage.find_tune(run.id);
        if (!state) return tunes_nothing(run);
        for (const spsa::Param& p : state->params) out->add_names(p.name);
        for (const TunePoint& point : storage.list_tune_points(run.id)) {
            v1::TunePoint* p = out->add_points();
            p->set_pairs(uint64_t(point.pairs));
            p->set_unix_ms(point.recorded_ms);
            p->mutable_values()->Add(point.values.begin(), point.values.end());
        }
        return absl::OkStatus();
    }

    // Writes the openings and the perturbation of each pair.
    void lease_to_proto(const LeaseGrant& in, v1::Lease* out) const override {
        RunKindModule::lease_to_proto(in, out);
        if (in.tune_steps.empty()) return;
        v1::TuneLease* tune = out->mutable_tune();
        for (const std::string& name : in.tune_names) tune->add_names(name);
        for (const spsa::Step& step : in.tune_steps) {
            v1::TunePair* pair = tune->add_pairs();
            pair->mutable_plus()->Add(step.plus.begin(), step.plus.end());
            pair->mutable_minus()->Add(step.minus.begin(), step.minus.end());
        }
    }
};

}  // namespace

const RunKindModule& tune_kind() {
    static const TuneKind kind;
    return kind;
}

}  // namespace sparring::coordinator
