// Chains: generations of generate -> train -> verify, each starting from the version the
// previous one made; the coordinator runs them itself through child runs (training_run.h has
// how a chain starts, advances and stops).
#include "common/printable.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/kinds/self_play.h"
#include "coordinator/kinds/training_run.h"

namespace sparring::coordinator {

namespace {

// What the chain kind reads of a chain shown alone (its Run::kind_state): the generations with
// what their runs gave, and the settings of its generation steps.
struct ChainRead {
    std::optional<ChainState> chain;
    std::optional<GenerateState> generate;
};

// Writes one generation of a chain.
void generation_to_proto(const ChainGeneration& in, v1::ChainGeneration* out) {
    out->set_generation(uint32_t(in.generation));
    out->set_version(in.version);
    out->set_generate_run_id(in.generate_run_id);
    out->set_train_run_id(in.train_run_id);
    out->set_verify_run_id(in.verify_run_id);
    out->set_trained_version(in.trained_version);
    out->set_positions(in.positions);
    out->set_final_loss(in.final_loss);
    out->set_elo(in.verify_elo.elo);
    out->set_elo_low(in.verify_elo.elo_low);
    out->set_elo_high(in.verify_elo.elo_high);
    out->set_verify_games(uint64_t(in.verify_elo.games));
    out->set_verify_result(in.verify_result);
}

class ChainKind final : public KindWithStore<ChainStore> {
  public:
    RunKind kind() const override { return RunKind::Chain; }
    std::string_view name() const override { return "chain"; }
    std::string_view label() const override { return "chain"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_CHAIN; }
    int spec_field() const override { return v1::RunSpec::kChainFieldNumber; }

    // Its SPRT settings are those of each generation's verification.
    bool keeps_sprt() const override { return true; }
    bool plays_games() const override { return false; }

    // Resolves the generation, training and verification settings; the first generation
    // starts once the chain is inserted.
    absl::StatusOr<Record> prepare(ChainStore&, RunSpec& spec, const Version& base) const override {
        absl::StatusOr<ChainSetup> chain = resolve_chain(spec, base);
        if (!chain.ok()) return chain.status();
        return Record([chain = std::move(*chain)](ChainStore& storage, const Run& run) mutable {
            return start_chain(storage, std::move(chain), run);
        });
    }

    // Reads the generations with what their runs gave, and the settings of its steps.
    void load(ChainStore& storage, Run& run) const override {
        ChainRead read;
        read.chain = storage.find_chain(run.id);
        if (read.chain) fill_chain_generations(storage, *read.chain);
        if (std::optional<TrainState> settings = storage.find_train(run.id))
            run.spec.train = settings->spec;
        if (std::optional<GenerateState> settings = storage.find_generate(run.id)) {
            read.generate = std::move(settings);
            read.generate->positions = 0;
        }
        run.kind_state = std::move(read);
    }

    // Stops the active child of a stopped chain.
    KindEffects on_stopped(ChainStore& storage, const Run& run) const override {
        return stop_chain_children(storage, run);
    }

    // Starts the chain's next step when a step ended.
    KindEffects on_child_ended(ChainStore& storage, int64_t chain_run_id) const override {
        return advance_chain(storage, chain_run_id);
    }

    // Reads the chain's settings and those of its generation and training steps.
    void spec_from_proto(const v1::RunSpec& in, RunSpec* out) const override {
        out->generate = generate_spec_from_proto(in.generate());
        out->train = train_spec_from_proto(in.train());
        out->chain.generations = int(std::min<uint32_t>(in.chain().generations(), 1'000'000));
        out->chain.verify_games = in.chain().verify_games();
        out->chain.name = valid_utf8(in.chain().name());
    }

    // Writes the settings of the chain and its steps, and its generations.
    void status_to_proto(const Run& in, v1::RunStatus* out) const override {
        sprt_to_proto(in.spec.sprt, out->mutable_spec()->mutable_sprt());
        const ChainRead* read = in.state_of_kind<ChainRead>();
        if (!read) return;
        if (read->generate) generate_status_to_proto(*read->generate, out);
        if (!read->chain) return;
        const ChainState& chain = *read->chain;
        train_spec_to_proto(in.spec.train, out->mutable_spec()->mutable_train());
        v1::ChainSpec* spec = out->mutable_spec()->mutable_chain();
        spec->set_generations(uint32_t(chain.spec.generations));
        spec->set_verify_games(chain.spec.verify_games);
        spec->set_name(chain.spec.name);
        for (const ChainGeneration& g : chain.generations)
            generation_to_proto(g, out->mutable_chain()->add_generations());
    }
};

}  // namespace

const RunKindModule& chain_kind() {
    static const ChainKind kind;
    return kind;
}

}  // namespace sparring::coordinator
