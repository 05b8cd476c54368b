// Generation runs: self-play games of one built-in version whose labelled positions workers
// report and the coordinator stores (generate_run.h has how openings are chosen and positions
// checked and stored).
#include "common/printable.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/kinds/generate_run.h"
#include "coordinator/kinds/self_play.h"
#include "proto/opening.h"

namespace sparring::coordinator {

namespace {

// Writes resolved generation settings.
void generate_spec_to_proto(const GenerateState& in, v1::GenerateSpec* out) {
    out->set_seed(in.seed);
    out->set_random_plies(uint32_t(in.random_plies));
    out->set_filters(in.filters);
}

class GenerateKind final : public KindWithStore<GenerateStore> {
  public:
    bool purgeable() const override { return false; }
    // Training data comes from games played out: no draw or resign rule cuts them short.
    bool adjudicates() const override { return false; }
    bool takes_threads() const override { return false; }
    RunKind kind() const override { return RunKind::Generate; }
    std::string_view name() const override { return "generate"; }
    std::string_view label() const override { return "generate"; }
    v1::RunKind proto_kind() const override { return v1::RUN_KIND_GENERATE; }

    // Resolves the settings; openings come from (seed, game number) alone, so the book stays
    // in its order.
    absl::StatusOr<Record> prepare(GenerateStore&, RunSpec& spec,
                                   const Version& base) const override {
        absl::StatusOr<GenerateState> generate = resolve_generate(spec, base);
        if (!generate.ok()) return generate.status();
        spec.book.random_order = false;
        spec.book.seed = generate->seed;
        return Record(
            [generate = std::move(*generate)](GenerateStore& storage, const Run& run) mutable {
                generate.run_id = run.id;
                storage.insert_generate(generate);
                return KindEffects();
            });
    }

    // Reads the settings and the positions stored.
    void load(GenerateStore& storage, Run& run) const override {
        if (std::optional<GenerateState> generate = storage.find_generate(run.id))
            run.kind_state = std::move(*generate);
    }

    // Keeps a report of a whole lease under gRPC's message limit.
    uint32_t max_pairs_per_lease(uint32_t) const override { return kMaxGeneratePairsPerLease; }

    // Gives each game its opening and the lease the run's settings.
    void fill_grant(GenerateStore& storage, const std::vector<Opening>& book,
                    LeaseGrant& grant) const override {
        grant.generate = storage.find_generate(grant.run.id);
        fill_generate_lease(book, grant);
    }

    // Takes labelled positions (checked on the calling thread by report_from_proto).
    absl::Status check_report(const Report&, const std::string&) const override {
        return absl::OkStatus();
    }

    // Takes any colours: both games of a pair are the same version's, with white's outcome.
    absl::Status check_pair(const PairRecord& pair, const std::string& name) const override {
        for (const GameRecord& game : pair.games)
            if (absl::Status status = check_pgn_result(game, game.outcome, name); !status.ok())
                return status;
        return absl::OkStatus();
    }

    // Stores the pair's positions in the transaction that counts it.
    void count_pair(GenerateStore& storage, const Run& run, const Lease& lease,
                    const PairRecord& pair) const override {
        store_pair_positions(storage, run, lease, pair);
    }

    // Reads the seed, random plies and filters.
    void spec_from_proto(const v1::RunSpec& in, RunSpec* out) const override {
        out->generate = generate_spec_from_proto(in.generate());
    }

    // Writes the resolved settings and the positions stored.
    void status_to_proto(const Run& in, v1::RunStatus* out) const override {
        if (const auto* generate = in.state_of_kind<GenerateState>())
            generate_status_to_proto(*generate, out);
    }

    // Writes a page of the run's stored positions.
    absl::Status positions_to_proto(GenerateStore& storage, const Run& run, uint64_t start_game,
                                    uint32_t max_games,
                                    v1::ExportPositionsResponse* out) const override {
        PositionsPage page = export_positions(storage, run, start_game, max_games);
        out->set_positions(std::move(page.data));
        out->set_count(page.count);
        out->set_games(page.games);
        out->set_next_start_game(page.next_start_game);
        out->set_done(page.done);
        return absl::OkStatus();
    }

    // Writes each game's opening and the settings games are played with.
    void lease_to_proto(const LeaseGrant& in, v1::Lease* out) const override {
        if (!in.generate) return RunKindModule::lease_to_proto(in, out);
        v1::GenerateLease* g = out->mutable_generate();
        for (const Opening& o : in.openings) opening_to_proto(o, g->add_game_openings());
        g->set_seed(in.generate->seed);
        g->set_random_plies(uint32_t(in.generate->random_plies));
        g->set_filters(in.generate->filters);
        g->set_max_plies(uint32_t(in.generate->max_plies));
    }
};

}  // namespace

GenerateSpec generate_spec_from_proto(const v1::GenerateSpec& in) {
    GenerateSpec spec;
    spec.seed = in.seed();
    if (in.has_random_plies())
        spec.random_plies = int(std::min<uint32_t>(in.random_plies(), 1'000'000));
    spec.filters = valid_utf8(in.filters());
    return spec;
}

void generate_status_to_proto(const GenerateState& in, v1::RunStatus* out) {
    out->mutable_generate()->set_positions(in.positions);
    generate_spec_to_proto(in, out->mutable_generate()->mutable_spec());
    generate_spec_to_proto(in, out->mutable_spec()->mutable_generate());
}

const RunKindModule& generate_kind() {
    static const GenerateKind kind;
    return kind;
}

}  // namespace sparring::coordinator
