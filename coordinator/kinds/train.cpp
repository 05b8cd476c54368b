// Training runs: a Texel fit the coordinator runs itself (the trainer) on the positions of
// generation runs; no workers take part (training_run.h has how a run is resolved and its
// progress recorded).
#include "common/printable.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/validation.h"
#include "coordinator/kinds/self_play.h"
#include "coordinator/kinds/training_run.h"

namespace sparring::coordinator {

namespace {

// Writes a training run's progress and result.
void train_status_to_proto(const TrainState& in, v1::TrainStatus* out) {
    out->set_epoch(uint32_t(in.epoch));
    out->set_positions(in.positions);
    out->set_k(in.k);
    out->set_initial_loss(in.initial_loss);
    out->mutable_loss_curve()->Add(in.loss_curve.begin(), in.loss_curve.end());
    out->set_final_loss(in.final_loss);
    out->set_params_json(in.params_json);
}

class TrainKind final : public KindWithStore<TrainStore> {
  public:
    RunKind kind() const override { return RunKind::Train; }
    std::string_view name() const override { return "train"; }
    std::string_view label() const override { return "train"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_TRAIN; }

    // Checks that the run plays no games; its settings are checked against its data by
    // prepare.
    absl::Status check_spec(RunSpec& spec) const override { return check_train_run(spec); }
    bool needs_time_control() const override { return false; }
    bool plays_games() const override { return false; }

    // Resolves the settings against the base version and the data runs.
    absl::StatusOr<Record> prepare(TrainStore& storage, RunSpec& spec,
                                   const Version& base) const override {
        absl::StatusOr<TrainState> train = resolve_train(storage, spec, base);
        if (!train.ok()) return train.status();
        spec.train = train->spec;
        return Record([train = std::move(*train)](TrainStore& store, const Run& run) mutable {
            train.run_id = run.id;
            store.insert_train(train);
            return KindEffects();
        });
    }

    // The base version with the fitted parameters, once the run has finished.
    absl::StatusOr<Version> made_version(TrainStore& storage, const Run& run) const override {
        const std::optional<TrainState> state = storage.find_train(run.id);
        if (!state || state->params_json.empty())
            return absl::FailedPreconditionError(
                "run " + std::to_string(run.id) +
                " has no result yet: a training run makes a version once it has finished");
        Version v = trained_version(*storage.find_version(run.base_id), *state);
        v.description = "the parameters of training run " + std::to_string(run.id);
        return v;
    }

    // Reads the settings, progress and result.
    void load(TrainStore& storage, Run& run) const override {
        if (std::optional<TrainState> train = storage.find_train(run.id))
            run.kind_state = std::move(*train);
    }

    // Reads the data runs and the fit's settings.
    void spec_from_proto(const v1::RunSpec& in, RunSpec* out) const override {
        out->train = train_spec_from_proto(in.train());
    }

    // Writes the resolved settings, progress and result.
    void status_to_proto(const Run& in, v1::RunStatus* out) const override {
        const TrainState* train = in.state_of_kind<TrainState>();
        if (!train) return;
        train_status_to_proto(*train, out->mutable_train());
        train_spec_to_proto(train->spec, out->mutable_spec()->mutable_train());
    }
};

}  // namespace

TrainSpec train_spec_from_proto(const v1::TrainSpec& in) {
    TrainSpec spec;
    spec.data_runs.assign(in.data_runs().begin(), in.data_runs().end());
    spec.epochs = int(std::min<uint32_t>(in.epochs(), 1'000'000'000));
    if (in.has_learning_rate()) spec.learning_rate = in.learning_rate();
    if (in.has_l2()) spec.l2 = in.l2();
    if (in.has_k()) spec.k = in.k();
    spec.batch_size = in.batch_size();
    spec.select = valid_utf8(in.select());
    spec.threads = int(std::min<uint32_t>(in.threads(), 1'000'000));
    spec.seed = in.seed();
    return spec;
}

void train_spec_to_proto(const TrainSpec& in, v1::TrainSpec* out) {
    out->mutable_data_runs()->Add(in.data_runs.begin(), in.data_runs.end());
    out->set_epochs(uint32_t(in.epochs));
    if (in.learning_rate) out->set_learning_rate(*in.learning_rate);
    if (in.l2) out->set_l2(*in.l2);
    if (in.k) out->set_k(*in.k);
    out->set_batch_size(in.batch_size);
    out->set_select(in.select);
    out->set_threads(uint32_t(in.threads));
    out->set_seed(in.seed);
}

const RunKindModule& train_kind() {
    static const TrainKind kind;
    return kind;
}

}  // namespace sparring::coordinator
