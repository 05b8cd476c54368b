#include "coordinator/kinds/tune_run.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/printable.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/domain/version_options.h"

namespace sparring::coordinator {

namespace {

// Returns W - L of a pair for the engine reported as the test version (the plus engine).
int pair_result(const PairRecord& pair) {
    int result = 0;
    for (const GameRecord& game : pair.games)
        result += game.outcome == Outcome::Win ? 1 : game.outcome == Outcome::Loss ? -1 : 0;
    return result;
}

// Returns whether a game of the pair was lost by a fault: its result says nothing of the
// parameters (an engine that crashed or played `(none)` did not lose by its values).
bool faulty(const PairRecord& pair) {
    return std::any_of(std::begin(pair.games), std::end(pair.games),
                       [](const GameRecord& game) { return is_fault(game.ending); });
}

// Returns the SPSA step of pair `index` of a lease: the run's pairs are steps 1, 2, ...
int64_t step_of(const Lease& lease, uint32_t index) {
    return int64_t(lease.first_pair + index + 1);
}

}  // namespace

absl::StatusOr<TuneState> resolve_tune(const RunSpec& spec, const Version& base) {
    const TuneSpec& tune = spec.tune;
    if (spec.test_version != spec.base_version)
        return invalid("a tuning run tunes one version: name it as both test and base");
    // Every engine's parameters are its spin options: the built-in engine's evaluation
    // parameters or what an external engine declared when its version was added.
    const std::vector<match::EngineOption> options = version_options(base);
    if (options.empty())
        return invalid("version '" + base.name +
                       "' records no options of its engine: add the engine again with `sparring "
                       "versions add`, which reads them, to tune its spin options");
    if (tune.params.empty())
        return invalid("a tuning run needs options to tune (`sparring versions options " +
                       base.name + "` lists them)");
    TuneState state;
    state.seed = spec.book.seed;
    std::set<std::string> seen;
    for (const TuneParamRequest& request : tune.params) {
        const match::EngineOption* option = find_option(options, request.name);
        if (!option)
            return invalid("version '" + base.name + "' has no option '" + excerpt(request.name) +
                           "' (`sparring versions options " + base.name + "` lists them)");
        if (option->type != "spin")
            return invalid("option '" + option->name + "' of version '" + base.name + "' is a " +
                           option->type + " option; only spin options tune");
        if (!seen.insert(option->name).second)
            return invalid("parameter " + request.name + " is listed twice");
        const double min = request.min.value_or(double(option->min));
        const double max = request.max.value_or(double(option->max));
        if (min < double(option->min) || max > double(option->max))
            return invalid(request.name + ": bounds must lie within the engine's [" +
                           std::to_string(option->min) + ", " + std::to_string(option->max) + "]");
        // Named as the engine declares it: what the workers send and the tuned version sets.
        spsa::Param param = spsa::make_param(
            option->name, request.start.value_or(double(std::stoll(option->default_value))), min,
            max);
        if (request.c_end) param.c_end = *request.c_end;
        if (request.r_end) param.r_end = *request.r_end;
        if (const std::string why = spsa::validate(param); !why.empty()) return invalid(why);
        state.params.push_back(param);
        state.theta.push_back(param.start);
    }
    if (!(tune.average >= 0 && tune.average < 1))
        return invalid("the averaged fraction of the pairs must be from 0 to below 1");
    state.average = tune.average;
    state.average_sum.assign(state.params.size(), 0.0);
    if (tune.verify) {
        if (absl::Status games = check_verify_games(tune.verify_games); !games.ok()) return games;
        if (!tune.verify_fixed) {
            if (absl::Status sprt = check_sprt(spec.sprt, "verification SPRT"); !sprt.ok())
                return sprt;
            state.sprt = spec.sprt;
        }
        state.verify = true;
        state.verify_games = tune.verify_games;
        state.verify_fixed = tune.verify_fixed;
        state.verify_seed = tune.verify_seed;
    } else if (tune.verify_games != 0 || tune.verify_fixed || tune.verify_seed) {
        return invalid("verification settings need a verification (--verify)");
    }
    return state;
}

spsa::Schedule tune_schedule(const Run& run) {
    return spsa::make_schedule(int64_t(run.pairs_total()));
}

void snapshot_tune(TuneStore& storage, const Lease& lease) {
    storage.insert_lease_theta(lease.id, storage.find_tune(lease.run_id)->theta);
}

void fill_tune_lease(TuneStore& storage, LeaseGrant& grant) {
    const TuneState state = *storage.find_tune(grant.run.id);
    const std::vector<double> theta =
        storage.find_lease_theta(grant.lease.id).value_or(state.theta);
    const spsa::Schedule schedule = tune_schedule(grant.run);
    grant.tune_names.clear();
    grant.tune_steps.clear();
    for (const spsa::Param& param : state.params) grant.tune_names.push_back(param.name);
    for (uint32_t i = 0; i < grant.lease.pairs; ++i)
        grant.tune_steps.push_back(
            spsa::make_step(state.params, theta, schedule, step_of(grant.lease, i), state.seed));
}

void apply_tune_report(TuneStore& storage, const Run& run, const Lease& lease, const Report& report,
                       int64_t now_ms) {
    TuneState state = *storage.find_tune(run.id);
    const spsa::Schedule schedule = tune_schedule(run);
    // Steps past this one are averaged (with TuneState::average).
    const int64_t last_unaveraged =
        int64_t(std::ceil(double(run.pairs_total()) * (1.0 - state.average)));
    state.average_sum.resize(state.params.size(), 0.0);
    const int64_t applied_before = state.pairs_applied;
    for (const PairRecord& pair : report.pairs) {
        // Left out, and counted: its step's perturbation is not applied (the steps after it
        // keep their own numbers and gains).
        if (faulty(pair)) {
            ++state.pairs_faulty;
            continue;
        }
        const int64_t k = step_of(lease, pair.index);
        const spsa::Step step = spsa::make_step(state.params, state.theta, schedule, k, state.seed);
        spsa::apply_result(state.params, step, pair_result(pair), state.theta);
        ++state.pairs_applied;
        if (state.average > 0 && k > last_unaveraged) {
            for (size_t i = 0; i < state.theta.size(); ++i) state.average_sum[i] += state.theta[i];
            ++state.averaged_pairs;
        }
    }
    storage.update_tune(state);
    // A report of faulty pairs alone moved no value: the trajectory has its point already.
    if (state.pairs_applied > applied_before)
        storage.insert_tune_point(run.id, TunePoint{state.pairs_applied, now_ms, state.theta});
}

Version tuned_version(const Version& base, const TuneState& state) {
    const std::vector<double> result = state.result();
    std::vector<std::pair<std::string, double>> values;
    for (size_t i = 0; i < state.params.size(); ++i)
        values.emplace_back(state.params[i].name, result[i]);
    return with_option_values(base, values);
}

KindEffects finish_tune(TuneStore& storage, const Run& run) {
    KindEffects effects;
    const std::optional<TuneState> state = storage.find_tune(run.id);
    if (!state || !state->verify) return effects;
    const Version base = *storage.find_version(run.base_id);
    Version tuned = tuned_version(base, *state);
    tuned.name = std::string(utf8_prefix(base.name, 40)) + "-tuned-" + std::to_string(run.id);
    tuned.description = "SPSA tuning run " + std::to_string(run.id) + " of " + base.name;
    tuned.owner = run.spec.owner;
    effects.add_version = std::move(tuned);

    RunSpec spec;
    spec.kind = state->verify_fixed ? RunKind::FixedGames : RunKind::Regression;
    spec.base_version = base.name;
    // Games as the tuning run played them: its clock and reference speed, its engines'
    // threads, its adjudication.
    spec.time_control = run.spec.time_control;
    spec.reference_nps = run.spec.reference_nps;
    spec.threads = run.spec.threads;
    spec.adjudication = run.spec.adjudication;
    spec.book = storage.load_book(run.id);
    if (state->verify_seed) {
        spec.book.random_order = true;
        spec.book.seed = *state->verify_seed;
    }
    if (!state->verify_fixed) spec.sprt = state->sprt;
    spec.games = state->verify_games;
    spec.priority = run.spec.priority;
    spec.throughput = run.spec.throughput;
    spec.pairs_per_thread = run.spec.pairs_per_thread;
    spec.description = "verification of tuning run " + std::to_string(run.id);
    spec.owner = run.spec.owner;
    effects.start_run = std::move(spec);
    effects.start_link = {run.id, 0, RunLinkReason::Verifies};
    effects.record = [run_id = run.id](TuneStore& store, const std::string& version,
                                       int64_t verify_run_id) {
        TuneState tune = *store.find_tune(run_id);
        tune.tuned_version = version;
        tune.verify_run_id = verify_run_id;
        store.update_tune(tune);
    };
    effects.failure = {run.id, false, "verification not started"};
    return effects;
}

}  // namespace sparring::coordinator
