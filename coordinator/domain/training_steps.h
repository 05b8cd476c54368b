// The port through which the trainer (ops/trainer.h) records a training run's progress and
// end: the train kind implements it on its store (kinds/training_run.h) and the composition
// root hands it to the trainer, so ops/ reaches no kind's code.
#pragma once

#include <cstdint>
#include <string>

#include "coordinator/domain/kind_stores.h"
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

class TrainingSteps {
  public:
    virtual ~TrainingSteps() = default;

    // A training run's progress after an epoch (the first report also carries K, the initial
    // loss and the set's size), written if the run is still active; false once it is not.
    virtual bool record_epoch(TrainStore& storage, const TrainState& progress, int epoch,
                              double loss) const = 0;
    // Records a finished training's result and returns the run's end (a chain moves on);
    // nothing if the run is no longer active.
    virtual KindEffects finish(TrainStore& storage, const TrainState& result,
                               uint64_t bench) const = 0;
    // Returns the end of a training run that cannot train (no positions, bad data), with the
    // reason; nothing if the run is no longer active.
    virtual KindEffects fail(TrainStore& storage, int64_t run_id, const std::string& why) const = 0;
};

}  // namespace sparring::coordinator
