// Runs the coordinator's training runs on a thread of its own, one at a time, oldest first,
// woken by the event of a training run being submitted (and at start, for the runs a restart
// interrupted): loads the positions of the run's generation runs through a read connection of its
// own, fits them (training::train), and writes progress and result as writer jobs, so reports and
// other calls never wait for a training. A training interrupted by a restart starts again from its
// beginning (its result does not depend on when or where it ran); one whose run is stopped ends at
// the next epoch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/training_steps.h"
#include "coordinator/storage/executor.h"
#include "engine/params.h"
#include "training/labelled_position.h"

namespace sparring::coordinator {

class Trainer {
  public:
    // Opens a connection of its own to the database and subscribes to the submitted runs;
    // throws StorageError when it cannot.
    // Reads through a connection of its own, opened with open_storage; writes through writer;
    // records progress and ends through the train kind's steps.
    Trainer(const OpenStorage& open_storage, const Core& core, const TrainingSteps& steps,
            Executor& writer, EventBus& events);
    ~Trainer();

    void start();
    // Ends the current training at its next epoch and joins the thread.
    void stop();

    // What a training run needs, read in one transaction.
    struct TrainInput {
        TrainState state;
        ParamSet base;
        std::vector<training::LabelledPosition> positions;
    };

  private:
    // Trains the active training runs whenever woken, until stopped.
    void loop();
    // Returns the oldest active training run, if any.
    std::optional<int64_t> next_run();
    // Trains one run to its end, unless it stops being active or the trainer stops first; a
    // run whose data or settings cannot be trained with ends, stopped, with the reason.
    void train(int64_t run_id);
    // Fits the run's positions, recording progress and the result.
    void fit(TrainInput input);
    // Runs a job on the writer and waits until it has committed.
    absl::Status write(Executor::Job job);
    // The same; throws std::runtime_error if the job or its commit failed.
    void write_or_throw(Executor::Job job);

    const Core& core_;
    const TrainingSteps& steps_;
    Executor& writer_;
    std::unique_ptr<Storage> storage_;  // reads of the trainer thread
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    bool woken_ = true;  // a training run may be waiting: at start, after a restart
    std::thread thread_;
    EventBus::Subscription submitted_;  // first to go: its handler uses the members above
};

}  // namespace sparring::coordinator
