// Conversions of self-play training runs between the sparring.v1 messages and the domain
// records: generation, training and chain specs and statuses, and generation leases.
#include "coordinator/rpc/convert.h"
#include "training/position_record.h"

namespace sparring::coordinator {

namespace {

// Writes a resolved generation spec.
void generate_spec_to_proto(const GenerateState& in, v1::GenerateSpec* out) {
    out->set_seed(in.seed);
    out->set_random_plies(uint32_t(in.random_plies));
    out->set_filters(in.filters);
}

// Writes a resolved training spec.
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

}  // namespace

v1::RunKind run_kind_to_proto(RunKind kind) {
    switch (kind) {
        case RunKind::Regression:
            return v1::RUN_KIND_REGRESSION;
        case RunKind::FixedGames:
            return v1::RUN_KIND_FIXED_GAMES;
        case RunKind::Tune:
            return v1::RUN_KIND_TUNE;
        case RunKind::Generate:
            return v1::RUN_KIND_GENERATE;
        case RunKind::Train:
            return v1::RUN_KIND_TRAIN;
        case RunKind::Chain:
            return v1::RUN_KIND_CHAIN;
    }
    return v1::RUN_KIND_UNSPECIFIED;
}

void training_specs_from_proto(const v1::RunSpec& in, RunSpec* out) {
    const v1::GenerateSpec& g = in.generate();
    out->generate.seed = g.seed();
    if (g.has_random_plies())
        out->generate.random_plies = int(std::min<uint32_t>(g.random_plies(), 1'000'000));
    out->generate.filters = g.filters();

    const v1::TrainSpec& t = in.train();
    out->train.data_runs.assign(t.data_runs().begin(), t.data_runs().end());
    out->train.epochs = int(std::min<uint32_t>(t.epochs(), 1'000'000'000));
    if (t.has_learning_rate()) out->train.learning_rate = t.learning_rate();
    if (t.has_l2()) out->train.l2 = t.l2();
    if (t.has_k()) out->train.k = t.k();
    out->train.batch_size = t.batch_size();
    out->train.select = t.select();
    out->train.threads = int(std::min<uint32_t>(t.threads(), 1'000'000));
    out->train.seed = t.seed();

    const v1::ChainSpec& c = in.chain();
    out->chain.generations = int(std::min<uint32_t>(c.generations(), 1'000'000));
    out->chain.verify_games = c.verify_games();
    out->chain.name = c.name();
}

void training_to_proto(const Run& in, v1::RunStatus* out) {
    out->set_chain_run_id(in.chain_run_id);
    if (in.generate) {
        out->mutable_generate()->set_positions(in.generate->positions);
        generate_spec_to_proto(*in.generate, out->mutable_generate()->mutable_spec());
        generate_spec_to_proto(*in.generate, out->mutable_spec()->mutable_generate());
    }
    if (in.train) {
        train_status_to_proto(*in.train, out->mutable_train());
        train_spec_to_proto(in.train->spec, out->mutable_spec()->mutable_train());
    }
    if (in.chain) {
        train_spec_to_proto(in.spec.train, out->mutable_spec()->mutable_train());
        v1::ChainSpec* spec = out->mutable_spec()->mutable_chain();
        spec->set_generations(uint32_t(in.chain->spec.generations));
        spec->set_verify_games(in.chain->spec.verify_games);
        spec->set_name(in.chain->spec.name);
        for (const ChainGeneration& g : in.chain->generations)
            generation_to_proto(g, out->mutable_chain()->add_generations());
    }
}

void generate_lease_to_proto(const LeaseGrant& in, v1::Lease* out) {
    v1::GenerateLease* g = out->mutable_generate();
    for (const Opening& o : in.openings) opening_to_proto(o, g->add_game_openings());
    g->set_seed(in.generate->seed);
    g->set_random_plies(uint32_t(in.generate->random_plies));
    g->set_filters(in.generate->filters);
    g->set_max_plies(uint32_t(in.generate->max_plies));
}

absl::StatusOr<ImportChunk> import_chunk_from_proto(const v1::ImportPositionsRequest& in) {
    constexpr uint32_t kMaxChunk = 65536;
    if (in.count() > kMaxChunk)
        return absl::InvalidArgumentError("an import chunk holds at most 65536 positions");
    std::vector<training::LabelledPosition> positions;
    std::string error;
    if (!training::decode_positions(in.positions(), in.count(), &positions, &error))
        return absl::InvalidArgumentError("chunk " + std::to_string(in.chunk()) +
                                          ": malformed positions: " + error);
    ImportChunk chunk;
    chunk.run_id = in.run_id();
    chunk.version = in.version();
    chunk.source = in.source();
    chunk.chunk = in.chunk();
    chunk.data = in.positions();
    chunk.count = in.count();
    chunk.done = in.done();
    return chunk;
}

}  // namespace sparring::coordinator
