#include "coordinator/ops/trainer.h"

#include <future>
#include <stdexcept>

#include "common/log.h"
#include "match/bench_cache.h"
#include "training/param_selection.h"
#include "training/position_record.h"
#include "training/texel.h"
#include "training/training_set.h"

namespace sparring::coordinator {

namespace {

constexpr int kGamesPerRead = 4096;
// After a storage failure: the wait before the next attempt.
constexpr std::chrono::seconds kRetryAfterFailure{1};

// Reads a training run's settings, its base version's parameters and the positions of its
// data runs; throws std::invalid_argument for data that does not decode.
Trainer::TrainInput read_input(Storage& storage, int64_t run_id) {
    Trainer::TrainInput input;
    input.state = *storage.find_train(run_id);
    const Run run = *storage.find_run(run_id);
    std::string error;
    const std::optional<ParamSet> base =
        ParamSet::from_json(storage.find_version(run.base_id)->params_json, ParamSet(), &error);
    if (!base) throw std::invalid_argument("version " + run.spec.base_version + ": " + error);
    input.base = *base;
    for (int64_t data : input.state.spec.data_runs) {
        for (uint64_t start = 0;;) {
            const std::vector<StoredPositions> games =
                storage.list_positions(data, start, kGamesPerRead);
            for (const StoredPositions& game : games)
                if (!training::decode_positions(game.data, game.count, &input.positions, &error))
                    throw std::invalid_argument("run " + std::to_string(data) + " game " +
                                                std::to_string(game.game) + ": " + error);
            if (games.size() < size_t(kGamesPerRead)) break;
            start = games.back().game + 1;
        }
    }
    return input;
}

}  // namespace

Trainer::Trainer(const OpenStorage& open_storage, const Core& core, const TrainingSteps& steps,
                 Executor& writer, EventBus& events)
    : core_(core), steps_(steps), writer_(writer), storage_(open_storage()) {
    submitted_ = events.subscribe<RunSubmitted>([this](const RunSubmitted& run) {
        if (run.kind != RunKind::Train) return;
        {
            std::lock_guard lock(mutex_);
            woken_ = true;
        }
        wake_.notify_all();
    });
}

Trainer::~Trainer() {
    stop();
}

void Trainer::start() {
    thread_ = std::thread([this] { loop(); });
}

void Trainer::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

absl::Status Trainer::write(Executor::Job job) {
    std::promise<absl::Status> done;
    writer_.submit(std::move(job), [&done](absl::Status status) { done.set_value(status); });
    return done.get_future().get();
}

void Trainer::write_or_throw(Executor::Job job) {
    if (absl::Status status = write(std::move(job)); !status.ok())
        throw std::runtime_error("cannot store the training's progress: " +
                                 std::string(status.message()));
}

std::optional<int64_t> Trainer::next_run() {
    storage_->begin(false);
    std::optional<int64_t> oldest;
    for (const Run& run : storage_->list_runs({RunState::Active}, 1'000'000))
        if (run.spec.kind == RunKind::Train) oldest = run.id;  // newest first: the last is oldest
    storage_->commit();
    return oldest;
}

void Trainer::loop() {
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || woken_; });
            if (stopping_) return;
            woken_ = false;
        }
        bool failed = true;
        try {
            while (!stopping_) {
                const std::optional<int64_t> run = next_run();
                if (!run) break;
                train(*run);
            }
            failed = false;
        } catch (const std::exception& e) {
            log_event(LogLevel::Error, "training_failed", {{"error", e.what()}});
        } catch (...) {
            log_unexpected_exception("trainer");
        }
        if (!failed) continue;
        // A storage failure: the run stays active and is tried again after a while.
        std::unique_lock lock(mutex_);
        if (wake_.wait_for(lock, kRetryAfterFailure, [this] { return stopping_.load(); })) return;
        woken_ = true;
    }
}

void Trainer::train(int64_t run_id) {
    std::string why;
    try {
        TrainInput input;
        storage_->begin(false);
        try {
            input = read_input(*storage_, run_id);
        } catch (...) {
            storage_->rollback();
            throw;
        }
        storage_->commit();
        fit(std::move(input));
        return;
    } catch (const std::invalid_argument& e) {
        why = e.what();
    }
    // Data or settings it cannot train with: the run ends saying why, rather than being tried
    // again and again.
    write_or_throw([&](Storage& s) {
        core_.apply(s, steps_.fail(s, run_id, why));
        return absl::OkStatus();
    });
}

void Trainer::fit(TrainInput input) {
    const int64_t run_id = input.state.run_id;
    TrainState& state = input.state;
    const training::TrainingSet set(input.positions, state.spec.threads);
    input.positions = {};
    if (set.size() == 0) {
        write_or_throw([&](Storage& s) {
            core_.apply(s, steps_.fail(s, run_id, "the data runs have no positions"));
            return absl::OkStatus();
        });
        return;
    }
    training::TexelOptions options;
    std::string error;
    options.parameters =
        training::parse_param_selection(state.spec.select, &error).value_or(std::vector<size_t>{});
    options.epochs = state.spec.epochs;
    options.learning_rate = state.spec.learning_rate.value_or(1.0);
    options.regularization = state.spec.l2.value_or(0.0);
    options.batch_size = state.spec.batch_size;
    options.seed = state.spec.seed;
    options.threads = state.spec.threads;
    // K and the starting loss are what train() computes first; computed here, they show in
    // `sparring show` before the first epoch ends.
    const std::vector<double> start = training::real_values(input.base);
    state.positions = set.size();
    state.k =
        state.spec.k.value_or(0) > 0 ? *state.spec.k : training::fit_k(set, start, options.threads);
    state.initial_loss = training::mean_squared_error(set, start, state.k, options.threads);
    options.k = state.k;
    bool active = true;
    // A write that fails (a full disk) stops the training; the loop logs it and tries the run
    // again after a while, as after any storage failure.
    absl::Status stored;
    const auto progress = [&](int epoch, double loss) {
        stored = write([&](Storage& s) {
            active = steps_.record_epoch(s, state, epoch, loss);
            if (active) core_.publish(s, TrainingEpochDone{run_id, epoch, loss});
            return absl::OkStatus();
        });
        return stored.ok() && active && !stopping_;
    };
    const auto throw_if_not_stored = [&] {
        if (!stored.ok())
            throw std::runtime_error("cannot store the training's progress: " +
                                     std::string(stored.message()));
    };
    if (!progress(0, 0)) return throw_if_not_stored();
    log_event(LogLevel::Info, "training_started",
              {{"run", std::to_string(run_id)}, {"positions", std::to_string(set.size())}});
    options.on_epoch = [&](const training::EpochReport& report) {
        return progress(report.epoch, report.loss);
    };
    const training::TexelResult result = training::train(set, input.base, options);
    throw_if_not_stored();
    if (!active || stopping_) return;
    state.epoch = int(result.loss_curve.size());
    state.final_loss = result.final_loss;
    state.params_json = result.params.to_json();
    // The bench of the result, for the version a chain makes of it: computed here, not on
    // the writer.
    const uint64_t bench = awaited_bench(result.params);
    write_or_throw([&](Storage& s) {
        core_.apply(s, steps_.finish(s, state, bench));
        return absl::OkStatus();
    });
    log_event(LogLevel::Info, "training_finished", {{"run", std::to_string(run_id)}});
}

}  // namespace sparring::coordinator
