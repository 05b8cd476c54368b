// Run kinds as modules: everything that differs between regression, fixed-games, tuning,
// generation, training and chain runs sits behind this interface, one implementation per
// kind in coordinator/kinds/. The interface, its defaults and the look-ups are the domain's
// (run_kind.cpp); the table of kinds is built by the composition root (kinds/registry.h,
// called by server.cpp) and handed to Core (Core::Options::kinds), which makes it the one the
// look-ups use. The core, the RPC conversion and storage look a run's kind up and call it;
// they never branch on the kind themselves.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/domain/core.h"
#include "sparring/v1/common.pb.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Checks that a game's PGN, when it was read, has white's outcome as its Result.
absl::Status check_pgn_result(const GameRecord& game, Outcome white, const std::string& name);

// What a kind asks the core to do to other aggregates (versions, runs) once it has counted a
// report, ended a run or recorded a new run: the kind decides, the core applies it in the same
// transaction, in this order. A kind writes its own state in its own store itself.
struct KindEffects {
    // A version to add, under its name or, when that is taken, NAME.2, NAME.3, ...
    std::optional<Version> add_version;
    // A run to submit; when a version is added too, the run tests it.
    std::optional<RunSpec> start_run;
    // The started run's link: the run that starts it and why (its child is the run started;
    // no link without a parent).
    RunLink start_link;
    // Records in the kind's state what was added and started (the version's name, "" for
    // none; the run's id, 0 for none).
    std::function<void(Storage& storage, const std::string& version, int64_t run_id)> record;
    // When the version or the run cannot be added or started: the run that says why, and
    // whether it ends (stopped, its result the prefix and the reason) or, already over, adds
    // "; " and them to its result.
    struct Failure {
        int64_t run_id = 0;
        bool stops = false;
        std::string prefix;
    } failure;
    // Runs to end afterwards, each with a state and a result.
    struct End {
        int64_t run_id = 0;
        RunState state = RunState::Stopped;
        std::string result;
    };
    std::vector<End> end_runs;
};

// Games of a run that each pair plays from one opening of its book and nothing else sets
// apart: as a warning names them ("up to 20000 games") and their pairs.
struct BookGames {
    std::string games;
    uint64_t pairs = 0;
};

// Records a kind's own state once its run has been inserted and has an id; returns what the
// core does next (a chain's first step).
using RecordKindState = std::function<KindEffects(Storage& storage, const Run& run)>;

// One run kind. The defaults describe a run of game pairs played by workers, each opening
// played once with each colour, that completes when all its pairs are counted.
class RunKindModule {
  public:
    virtual ~RunKindModule() = default;

    virtual RunKind kind() const = 0;
    // Returns the name stored in the database and shown in metrics ("regression", ...).
    virtual std::string_view name() const = 0;
    // Returns how a user error message names the kind ("regression (SPRT)", ...).
    virtual std::string_view label() const = 0;
    virtual v1::RunKind proto_kind() const = 0;
    // Returns the number of the RunSpec.kind_spec field that holds the kind's own settings
    // (0: none; a spec of the kind with another one set is refused).
    virtual int spec_field() const { return 0; }

    // Spec: checks a submitted spec and fills its defaults (the versions are checked apart).
    virtual absl::Status check_spec(RunSpec& spec) const;
    // Returns whether a spec of the kind must name a time control.
    virtual bool needs_time_control() const { return true; }
    // Resolves the spec against storage and its base version, before the run is inserted;
    // returns what records the kind's state once it is.
    virtual absl::StatusOr<RecordKindState> prepare(Storage& storage, RunSpec& spec,
                                                    const Version& base) const;
    // Fills the kind's state of a run read alone.
    virtual void load(Storage& storage, Run& run) const;

    // Leases: whether workers play the run's game pairs (else the coordinator runs it).
    virtual bool plays_games() const { return true; }
    // Whether the run's games may end by adjudication (generation runs play every game out).
    virtual bool adjudicates() const { return plays_games(); }
    // Whether the run's versions play as given, UCI engines with several threads if asked
    // (generation runs play the built-in engine, single-threaded).
    virtual bool takes_threads() const { return plays_games(); }
    // Returns whether a worker's pairs can be taken out of the run's totals again (a purge):
    // not when they have changed more than counts (tuned values, stored positions).
    virtual bool purgeable() const { return plays_games(); }
    // Returns whether a user may change the run's games after its submission: not when they
    // set more than a limit (a tuning's SPSA schedule, a generation's positions).
    virtual bool games_changeable() const { return purgeable(); }
    // Returns the most pairs one lease holds, given the coordinator's own limit.
    virtual uint32_t max_pairs_per_lease(uint32_t limit) const { return limit; }
    // Records what a new lease needs before it is granted.
    virtual void on_leased(Storage& storage, const Lease& lease) const;
    // Fills what a grant carries: by default the opening of each pair of the lease.
    virtual void fill_grant(Storage& storage, const std::vector<Opening>& book,
                            LeaseGrant& grant) const;

    // Reports: checks a report as a whole (name: "report N of lease M").
    virtual absl::Status check_report(const Report& report, const std::string& name) const;
    // Checks one reported pair (name: "pair I").
    virtual absl::Status check_pair(const PairRecord& pair, const std::string& name) const;
    // Accounts a counted pair beyond its result counts.
    virtual void count_pair(Storage& storage, const Run& run, const Lease& lease,
                            const PairRecord& pair) const;
    // Returns what a counted report changes beyond its result counts (a tuning run's values
    // and trajectory point).
    virtual KindEffects count_report(Storage& storage, const Run& run, const Lease& lease,
                                     const Report& report, int64_t now_ms) const;

    // Returns the games of a run whose pairs differ only by their openings, for
    // the warning that at a node or depth limit the pairs past the book's end replay pairs
    // already played (run_warnings); none for a kind whose pairs differ by more (a tuning's
    // perturbed values, a generation's random plies) or that plays no games.
    virtual std::optional<BookGames> book_games(const Run&) const { return std::nullopt; }

    // Statistics: whether an SPRT decides the run (its LLR is kept and shown).
    virtual bool decided_by_sprt() const { return false; }
    // Returns whether the run's spec keeps SPRT settings (its own or its verifications').
    virtual bool keeps_sprt() const { return decided_by_sprt(); }
    // Recomputes the kind's statistics after the counts changed (the Elo is the core's).
    virtual void refresh_statistics(Run& run) const;

    // Ending: returns the result that ends the run after a counted report, if any.
    virtual std::optional<std::string> verdict(const Run& run) const;
    // Returns what follows the run's finishing (a tuning run's verification).
    virtual KindEffects on_finished(Storage& storage, const Run& run) const;
    // Returns what follows the run's stopping (the end of a chain's active children).
    virtual KindEffects on_stopped(Storage& storage, const Run& run) const;
    // Returns what follows the end of a run this one started (a chain's next step or its
    // end); parent is this run.
    virtual KindEffects on_child_ended(Storage& storage, int64_t parent_id) const;

    // Versions: returns the version the run's result makes on top of its base version (a
    // tuning run's values, a training run's parameters), unnamed, with a description; what
    // `versions add --from-run` adds. FAILED_PRECONDITION for a kind whose runs make none or a
    // run without a result yet.
    virtual absl::StatusOr<Version> made_version(Storage& storage, const Run& run) const;

    // Proto: reads the kind's own fields of a spec.
    virtual void spec_from_proto(const v1::RunSpec& in, RunSpec* out) const;
    // Writes the kind's own spec and status fields of a run.
    virtual void status_to_proto(const Run& in, v1::RunStatus* out) const;
    // Writes what a lease of the kind carries besides versions and time control.
    virtual void lease_to_proto(const LeaseGrant& in, v1::Lease* out) const;
    // Writes the run's trajectory of tuned values (GetTuneHistory); NOT_FOUND for a kind that
    // tunes nothing.
    virtual absl::Status tune_history_to_proto(Storage& storage, const Run& run,
                                               v1::TuneHistory* out) const;
    // Writes a page of the run's stored positions, up to max_games games from start_game on
    // (ExportPositions); FAILED_PRECONDITION for a kind that stores none.
    virtual absl::Status positions_to_proto(Storage& storage, const Run& run, uint64_t start_game,
                                            uint32_t max_games,
                                            v1::ExportPositionsResponse* out) const;

  protected:
    // The answer of made_version for a run that makes no version.
    absl::Status makes_no_version(const Run& run) const;
    // The answers of tune_history_to_proto and positions_to_proto for a run without them.
    static absl::Status tunes_nothing(const Run& run);
    static absl::Status stores_no_positions(const Run& run);
    // Gives each pair of a grant its opening: pair p plays opening p of the book, cyclically.
    static void fill_openings(const std::vector<Opening>& book, LeaseGrant& grant);
};

// A kind that keeps state in its own store (kind_stores.h) and sees nothing else: the core
// calls it with the whole Storage, which is narrowed to Store here before the kind's code
// runs, so a kind cannot read or write what is not its own.
template <class Store>
class KindWithStore : public RunKindModule {
  public:
    // Records the kind's state of a new run in its store.
    using Record = std::function<KindEffects(Store& store, const Run& run)>;

    absl::StatusOr<RecordKindState> prepare(Storage& storage, RunSpec& spec,
                                            const Version& base) const final {
        absl::StatusOr<Record> record = prepare(narrow(storage), spec, base);
        if (!record.ok()) return record.status();
        return RecordKindState([record = std::move(*record)](Storage& s, const Run& run) {
            return record(narrow(s), run);
        });
    }
    void load(Storage& storage, Run& run) const final { load(narrow(storage), run); }
    void on_leased(Storage& storage, const Lease& lease) const final {
        on_leased(narrow(storage), lease);
    }
    void fill_grant(Storage& storage, const std::vector<Opening>& book,
                    LeaseGrant& grant) const final {
        fill_grant(narrow(storage), book, grant);
    }
    void count_pair(Storage& storage, const Run& run, const Lease& lease,
                    const PairRecord& pair) const final {
        count_pair(narrow(storage), run, lease, pair);
    }
    KindEffects count_report(Storage& storage, const Run& run, const Lease& lease,
                             const Report& report, int64_t now_ms) const final {
        return count_report(narrow(storage), run, lease, report, now_ms);
    }
    KindEffects on_finished(Storage& storage, const Run& run) const final {
        return on_finished(narrow(storage), run);
    }
    KindEffects on_stopped(Storage& storage, const Run& run) const final {
        return on_stopped(narrow(storage), run);
    }
    KindEffects on_child_ended(Storage& storage, int64_t parent_id) const final {
        return on_child_ended(narrow(storage), parent_id);
    }
    absl::StatusOr<Version> made_version(Storage& storage, const Run& run) const final {
        return made_version(narrow(storage), run);
    }
    absl::Status tune_history_to_proto(Storage& storage, const Run& run,
                                       v1::TuneHistory* out) const final {
        return tune_history_to_proto(narrow(storage), run, out);
    }
    absl::Status positions_to_proto(Storage& storage, const Run& run, uint64_t start_game,
                                    uint32_t max_games,
                                    v1::ExportPositionsResponse* out) const final {
        return positions_to_proto(narrow(storage), run, start_game, max_games, out);
    }

  protected:
    // The same calls as RunKindModule's, with the kind's store; the defaults as there.
    virtual absl::StatusOr<Record> prepare(Store&, RunSpec&, const Version&) const {
        return Record([](Store&, const Run&) { return KindEffects(); });
    }
    virtual void load(Store&, Run&) const {}
    virtual void on_leased(Store&, const Lease&) const {}
    virtual void fill_grant(Store&, const std::vector<Opening>& book, LeaseGrant& grant) const {
        fill_openings(book, grant);
    }
    virtual void count_pair(Store&, const Run&, const Lease&, const PairRecord&) const {}
    virtual KindEffects count_report(Store&, const Run&, const Lease&, const Report&,
                                     int64_t) const {
        return {};
    }
    virtual KindEffects on_finished(Store&, const Run&) const { return {}; }
    virtual KindEffects on_stopped(Store&, const Run&) const { return {}; }
    virtual KindEffects on_child_ended(Store&, int64_t) const { return {}; }
    virtual absl::StatusOr<Version> made_version(Store&, const Run& run) const {
        return makes_no_version(run);
    }
    virtual absl::Status tune_history_to_proto(Store&, const Run& run, v1::TuneHistory*) const {
        return tunes_nothing(run);
    }
    virtual absl::Status positions_to_proto(Store&, const Run& run, uint64_t, uint32_t,
                                            v1::ExportPositionsResponse*) const {
        return stores_no_positions(run);
    }

  private:
    static Store& narrow(Storage& storage) { return storage; }
};

// The table of kinds, one module per RunKind in the order of the enum.
using RunKindTable = std::vector<const RunKindModule*>;
// Makes a table the one the look-ups below use (Core's constructor, with Core::Options::kinds).
void use_run_kinds(const RunKindTable& kinds);
// Returns the module of a kind.
const RunKindModule& run_kind(RunKind kind);
// Returns every module, in the order of the RunKind enum.
const RunKindTable& run_kinds();
// Returns the module stored under a name; nullptr for an unknown name.
const RunKindModule* find_run_kind(std::string_view name);
// Returns the module of a proto kind; INVALID_ARGUMENT, naming the kinds, when unknown.
absl::StatusOr<const RunKindModule*> run_kind_from_proto(v1::RunKind kind);

// GetTuneHistory: writes a run's trajectory through its kind; NOT_FOUND for an unknown run.
absl::Status tune_history_to_proto(Storage& storage, int64_t run_id, v1::TuneHistory* out);
// ExportPositions: writes a page of a run's positions through its kind; NOT_FOUND for an
// unknown run.
absl::Status positions_to_proto(Storage& storage, int64_t run_id, uint64_t start_game,
                                uint32_t max_games, v1::ExportPositionsResponse* out);

// Writes SPRT settings (helper for the modules whose specs keep them).
void sprt_to_proto(const stats::SprtParams& in, v1::Sprt* out);

// Returns what may make a run's figures mislead, one sentence each (RunStatus.warnings): games
// of its kind (book_games) that need more openings than its book has at a node or depth limit,
// where a game is decided by its opening and its engines (an engine searching with several
// threads may vary its games even so).
std::vector<std::string> run_warnings(const Run& run);

}  // namespace sparring::coordinator
