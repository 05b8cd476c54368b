#include "coordinator/kinds/training_run.h"

#include <cctype>
#include <cmath>
#include <set>

#include "coordinator/domain/validation.h"
#include "coordinator/kinds/generate_run.h"
#include "coordinator/kinds/tune_run.h"
#include "engine/params.h"
#include "training/param_selection.h"
#include "training/texel.h"

namespace sparring::coordinator {

namespace {

constexpr size_t kMaxDataRuns = 1000;
constexpr int kMaxEpochs = 100'000;
constexpr int kMaxThreads = 256;
constexpr int kMaxGenerations = 100;
constexpr size_t kMaxChainName = 48;  // leaves room for "-g100" in a 64-byte version name
// Checks the Texel settings of a spec and fills their defaults (data runs aside).
absl::StatusOr<TrainSpec> resolve_texel(TrainSpec spec) {
    if (spec.epochs == 0) spec.epochs = 100;
    if (spec.epochs < 1 || spec.epochs > kMaxEpochs) return invalid("epochs must be in 1..100000");
    spec.learning_rate = spec.learning_rate.value_or(1.0);
    if (!(*spec.learning_rate > 0) || !std::isfinite(*spec.learning_rate))
        return invalid("the learning rate must be positive");
    spec.l2 = spec.l2.value_or(training::TexelOptions{}.regularization);
    if (!(*spec.l2 >= 0) || !std::isfinite(*spec.l2)) return invalid("l2 must not be negative");
    if (spec.k && !(*spec.k >= training::K_MIN && *spec.k <= training::K_MAX))
        return invalid("K must be in [0.01, 10] (or left out to be fitted)");
    if (spec.batch_size > 1'000'000'000) return invalid("the batch size is over 1000000000");
    if (spec.select.empty()) spec.select = "all";
    std::string error;
    if (!training::parse_param_selection(spec.select, &error))
        return invalid("parameter selection: " + error);
    if (spec.threads == 0) spec.threads = 1;
    if (spec.threads < 1 || spec.threads > kMaxThreads)
        return invalid("training threads must be in 1..256");
    return spec;
}

// Returns an error unless a version is a built-in one the run can start from.
absl::Status check_builtin(const RunSpec& spec, const Version& version, const std::string& what) {
    if (spec.test_version != spec.base_version)
        return invalid(what + " starts from one version: name it as both test and base");
    if (version.kind != Version::Kind::Builtin)
        return invalid("version '" + version.name + "' is a UCI engine; only built-in versions " +
                       "train");
    return absl::OkStatus();
}

// The spec of a chain's child run: the chain's scheduling, time control and book.
RunSpec child_spec(ChainStore& storage, const Run& chain, RunKind kind, const std::string& test,
                   const std::string& base, const std::string& description) {
    RunSpec spec;
    spec.kind = kind;
    spec.test_version = test;
    spec.base_version = base;
    if (kind != RunKind::Train) {
        spec.time_control = chain.spec.time_control;
        spec.games = chain.spec.games;
        spec.book = storage.load_book(chain.id);
    }
    spec.priority = chain.spec.priority;
    spec.throughput = chain.spec.throughput;
    spec.owner = chain.spec.owner;
    spec.pairs_per_thread = chain.spec.pairs_per_thread;
    spec.description = description;
    return spec;
}

// Returns the start of the next run of a chain's current generation, recorded in the
// generation once started; a run that cannot start stops the chain.
KindEffects start_child(ChainStore& storage, const Run& chain, const ChainState& state,
                        const ChainGeneration& g) {
    const std::string of =
        " of generation " + std::to_string(g.generation) + " of chain " + std::to_string(chain.id);
    KindEffects effects;
    effects.failure = {chain.id, true,
                       "generation " + std::to_string(g.generation) + " could not go on"};
    // Which of the generation's runs the started run is.
    enum class Step { Generate, Train, Verify } step;
    if (!g.generate_run_id) {
        step = Step::Generate;
        RunSpec spec =
            child_spec(storage, chain, RunKind::Generate, g.version, g.version, "self-play" + of);
        const GenerateState settings = *storage.find_generate(chain.id);
        // Each generation plays other openings: its seed follows the chain's.
        spec.generate.seed = settings.seed + uint64_t(g.generation - 1);
        spec.generate.random_plies = settings.random_plies;
        spec.generate.filters = settings.filters;
        effects.start_run = std::move(spec);
    } else if (!g.train_run_id) {
        step = Step::Train;
        RunSpec spec =
            child_spec(storage, chain, RunKind::Train, g.version, g.version, "training" + of);
        spec.train = storage.find_train(chain.id)->spec;
        spec.train.data_runs = {g.generate_run_id};
        effects.start_run = std::move(spec);
    } else {
        step = Step::Verify;
        const Version base = *storage.find_version(g.version);
        Version trained = trained_version(base, *storage.find_train(g.train_run_id));
        trained.name = state.spec.name + "-g" + std::to_string(g.generation);
        trained.description = "training run " + std::to_string(g.train_run_id) + of;
        trained.owner = chain.spec.owner;
        effects.add_version = std::move(trained);
        RunSpec spec =
            child_spec(storage, chain, RunKind::Regression, "", g.version, "verification" + of);
        spec.sprt = chain.spec.sprt;
        spec.games = state.spec.verify_games;
        effects.start_run = std::move(spec);
    }
    effects.start_link = {chain.id, 0, RunLinkReason::ChainStep};
    effects.record = [chain_id = chain.id, g, step](ChainStore& store, const std::string& version,
                                                    int64_t run_id) {
        ChainGeneration started = g;
        if (step == Step::Generate) started.generate_run_id = run_id;
        if (step == Step::Train) started.train_run_id = run_id;
        if (step == Step::Verify) {
            started.trained_version = version;
            started.verify_run_id = run_id;
        }
        store.save_chain_generation(chain_id, started);
    };
    return effects;
}

}  // namespace

Version trained_version(const Version& base, const TrainState& train) {
    Version v;
    v.kind = Version::Kind::Builtin;
    v.preset = base.preset;
    v.hash_mb = base.hash_mb;
    v.bench = train.bench;
    const ParamSet preset = ParamSet::preset(base.preset).value_or(ParamSet());
    std::string error;
    const ParamSet trained =
        ParamSet::from_json(train.params_json, ParamSet(), &error).value_or(preset);
    const auto registry = param_registry();
    for (size_t p = 0; p < registry.size(); ++p)
        if (trained[p] != preset[p]) v.overrides[std::string(registry[p].name)] = trained[p];
    return v;
}

absl::StatusOr<TrainState> resolve_train(TrainStore& storage, const RunSpec& spec,
                                         const Version& base) {
    if (absl::Status status = check_builtin(spec, base, "a training run"); !status.ok())
        return status;
    if (spec.train.data_runs.empty())
        return invalid("a training run needs data: the generation runs whose positions it fits");
    if (spec.train.data_runs.size() > kMaxDataRuns) return invalid("over 1000 data runs");
    std::set<int64_t> seen;
    for (int64_t id : spec.train.data_runs) {
        const std::string name = "data run " + std::to_string(id);
        const std::optional<Run> data = storage.find_run(id);
        if (!data)
            return absl::NotFoundError("no run " + std::to_string(id) + " (see `sparring runs`)");
        if (data->spec.kind != RunKind::Generate)
            return invalid(name + " is not a generation run: it has no positions");
        if (data->state == RunState::Active)
            return absl::FailedPreconditionError(name +
                                                 " is still generating; train on it once "
                                                 "it has finished (or stop it)");
        if (!seen.insert(id).second) return invalid(name + " is listed twice");
    }
    absl::StatusOr<TrainSpec> texel = resolve_texel(spec.train);
    if (!texel.ok()) return texel.status();
    TrainState state;
    state.spec = std::move(*texel);
    return state;
}

absl::StatusOr<ChainSetup> resolve_chain(const RunSpec& spec, const Version& version) {
    if (absl::Status status = check_builtin(spec, version, "a chain"); !status.ok()) return status;
    ChainSetup setup;
    absl::StatusOr<GenerateState> generate = resolve_generate(spec, version);
    if (!generate.ok()) return generate.status();
    setup.generate = std::move(*generate);
    if (!spec.train.data_runs.empty())
        return invalid("a chain trains on the positions it generates: give it no data runs");
    absl::StatusOr<TrainSpec> texel = resolve_texel(spec.train);
    if (!texel.ok()) return texel.status();
    setup.train.spec = std::move(*texel);
    setup.chain.spec = spec.chain;
    if (spec.chain.generations < 1 || spec.chain.generations > kMaxGenerations)
        return invalid("generations must be in 1..100");
    if (absl::Status games = check_verify_games(spec.chain.verify_games); !games.ok()) return games;
    if (spec.chain.name.size() > kMaxChainName)
        return invalid("the chain's name is over 48 bytes (its versions add -g1, -g2, ...)");
    // Its versions are named after it, so it takes a version name's characters.
    for (const char c : spec.chain.name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' &&
            c != '+')
            return invalid("the chain's name '" + spec.chain.name +
                           "' may hold only letters, digits and . _ - +");
    if (absl::Status sprt = check_sprt(spec.sprt, "verification SPRT"); !sprt.ok()) return sprt;
    return setup;
}

KindEffects start_chain(ChainStore& storage, ChainSetup setup, const Run& run) {
    setup.chain.run_id = setup.generate.run_id = setup.train.run_id = run.id;
    if (setup.chain.spec.name.empty()) setup.chain.spec.name = "chain" + std::to_string(run.id);
    storage.insert_chain(setup.chain);
    storage.insert_generate(setup.generate);
    storage.insert_train(setup.train);
    ChainGeneration first;
    first.generation = 1;
    first.version = run.spec.test_version;
    storage.save_chain_generation(run.id, first);
    return advance_chain(storage, run.id);
}

KindEffects advance_chain(ChainStore& storage, int64_t chain_run_id) {
    KindEffects effects;
    const Run chain = *storage.find_run(chain_run_id);
    if (chain.state != RunState::Active) return effects;
    ChainState state = *storage.find_chain(chain_run_id);
    const auto end = [&](RunState as, std::string result) {
        effects.end_runs.push_back({chain.id, as, std::move(result)});
        return effects;
    };
    for (;;) {
        ChainGeneration& g = state.generations.back();
        // The child the generation waits for; none when it is time to start the next one.
        int64_t child_id = g.verify_run_id  ? g.verify_run_id
                           : g.train_run_id ? g.train_run_id
                                            : g.generate_run_id;
        if (child_id) {
            const Run child = *storage.find_run(child_id);
            if (child.state == RunState::Active) return effects;
            if (child.state == RunState::Stopped)
                return end(RunState::Stopped, "run " + std::to_string(child_id) +
                                                  " of generation " + std::to_string(g.generation) +
                                                  " ended: " + child.result);
        }
        if (g.verify_run_id) {
            if (g.generation >= state.spec.generations)
                return end(RunState::Finished, "completed: " + std::to_string(g.generation) +
                                                   " generations, last version " +
                                                   g.trained_version);
            ChainGeneration next;
            next.generation = g.generation + 1;
            next.version = g.trained_version;
            storage.save_chain_generation(chain.id, next);
            state.generations.push_back(std::move(next));
            continue;
        }
        // A training run ends by the trainer, the others by reports: the chain waits for it.
        return start_child(storage, chain, state, g);
    }
}

KindEffects stop_chain_children(ChainStore& storage, const Run& chain) {
    KindEffects effects;
    const std::optional<ChainState> state = storage.find_chain(chain.id);
    if (!state) return effects;
    for (const ChainGeneration& g : state->generations)
        for (int64_t id : {g.generate_run_id, g.train_run_id, g.verify_run_id})
            if (id && storage.find_run(id)->state == RunState::Active)
                effects.end_runs.push_back(
                    {id, RunState::Stopped, "stopped with chain " + std::to_string(chain.id)});
    return effects;
}

void fill_chain_generations(ChainStore& storage, ChainState& chain) {
    for (ChainGeneration& g : chain.generations) {
        if (g.generate_run_id)
            if (const auto generate = storage.find_generate(g.generate_run_id))
                g.positions = generate->positions;
        if (g.train_run_id)
            if (const auto train = storage.find_train(g.train_run_id))
                g.final_loss = train->final_loss;
        if (g.verify_run_id)
            if (const auto verify = storage.find_run(g.verify_run_id)) {
                g.verify_elo = verify->elo;
                g.verify_elo.games = 2 * verify->counts.pairs;
                g.verify_result = verify->result;
            }
    }
}

bool record_epoch(TrainStore& storage, const TrainState& progress, int epoch, double loss) {
    const std::optional<Run> run = storage.find_run(progress.run_id);
    if (!run || run->state != RunState::Active) return false;
    TrainState state = *storage.find_train(progress.run_id);
    if (epoch == 0) {
        // The start of a training, or of its restart: earlier progress goes.
        storage.delete_train_loss(progress.run_id);
        state.positions = progress.positions;
        state.k = progress.k;
        state.initial_loss = progress.initial_loss;
        state.final_loss = 0;
        state.params_json.clear();
    } else {
        storage.insert_train_loss(progress.run_id, epoch, loss);
    }
    state.epoch = epoch;
    storage.update_train(state);
    return true;
}

KindEffects finish_training(TrainStore& storage, const TrainState& result, uint64_t bench) {
    KindEffects effects;
    std::optional<Run> run = storage.find_run(result.run_id);
    if (!run || run->state != RunState::Active) return effects;
    TrainState state = *storage.find_train(result.run_id);
    state.epoch = result.epoch;
    state.final_loss = result.final_loss;
    state.params_json = result.params_json;
    state.bench = bench;
    storage.update_train(state);
    char loss[96];
    std::snprintf(loss, sizeof loss, "completed: loss %.7f -> %.7f", state.initial_loss,
                  state.final_loss);
    effects.end_runs.push_back({run->id, RunState::Finished, loss});
    return effects;
}

KindEffects fail_training(TrainStore& storage, int64_t run_id, const std::string& why) {
    KindEffects effects;
    std::optional<Run> run = storage.find_run(run_id);
    if (run && run->state == RunState::Active)
        effects.end_runs.push_back({run_id, RunState::Stopped, "failed: " + why});
    return effects;
}

const TrainingSteps& training_steps() {
    class Steps final : public TrainingSteps {
        bool record_epoch(TrainStore& storage, const TrainState& progress, int epoch,
                          double loss) const override {
            return coordinator::record_epoch(storage, progress, epoch, loss);
        }
        KindEffects finish(TrainStore& storage, const TrainState& result,
                           uint64_t bench) const override {
            return finish_training(storage, result, bench);
        }
        KindEffects fail(TrainStore& storage, int64_t run_id,
                         const std::string& why) const override {
            return fail_training(storage, run_id, why);
        }
    };
    static const Steps steps;
    return steps;
}

}  // namespace sparring::coordinator
