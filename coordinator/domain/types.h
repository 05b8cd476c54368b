// The coordinator's domain records: versions, runs, workers, leases and reports.
// Plain data shared by the core, the scheduler and storage; no gRPC, no SQL.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/fault_bound.h"
#include "common/opening.h"
#include "common/outcome.h"
#include "common/time_control.h"
#include "coordinator/domain/worker_controls.h"
#include "coordinator/domain/worker_identity.h"
#include "match/adjudication.h"
#include "match/engine_options.h"
#include "match/output_checks.h"
#include "stats/homogeneity.h"
#include "stats/spsa.h"
#include "stats/stats.h"

namespace sparring::coordinator {

// A token's role. An admin may do all a user may, and stop or change any user's runs.
enum class Role { Worker, User, Admin };

// Returns whether a token of role `have` may make a call that needs `need`.
inline bool role_allows(Role have, Role need) {
    return have == need || (need == Role::User && have == Role::Admin);
}

// A token holder, established from the request's bearer token.
struct Caller {
    int64_t token_id = 0;
    Role role = Role::Worker;
    std::string user;  // the token's name: the user who owns what the call creates
    std::string peer;  // where the call came from, for the log; empty when unknown
};

struct Token {
    int64_t id = 0;
    Role role = Role::Worker;
    std::string name;
    int64_t created_ms = 0;
    bool revoked = false;
};

// A further build of an uploaded version's engine, for an instruction-set level (issue 52;
// common/engine_builds.h): its own file, the version's arguments and options.
struct EngineBuild {
    std::string level;  // "x86-64-v3", ...; "" portable
    std::string sha256;
    uint64_t size = 0;
    bool archive = false;
    std::string entry;  // archive: the executable
};

struct Version {
    enum class Kind { Builtin, Uci, Uploaded };

    int64_t id = 0;
    std::string name;
    std::string description;
    Kind kind = Kind::Builtin;
    std::string preset;                              // builtin
    std::map<std::string, int> overrides;            // builtin
    std::string params_json;                         // builtin: the resolved parameter set
    int hash_mb = 0;                                 // builtin: 0 is the engine's default
    std::string uci_command;                         // uci
    std::map<std::string, std::string> uci_options;  // uci and uploaded
    std::string engine_sha256;                       // uploaded: the file (see EngineFile)
    uint64_t engine_size = 0;                        // uploaded
    bool engine_archive = false;                     // uploaded: a .tar.gz archive
    std::string engine_entry;                        // uploaded archive: the executable
    std::vector<std::string> engine_args;            // uploaded
    uint64_t bench = 0;                              // 0: not checked (uci only)
    int64_t created_ms = 0;
    std::string owner;           // the user who added it; empty before owners were recorded
    uint64_t reference_nps = 0;  // the speed its clocks are defined for (0: none)
    std::vector<match::EngineOption> options;  // uci and uploaded: what its engine declares
    std::string engine_level;                  // uploaded: the level its file needs ("": any)
    std::vector<EngineBuild> engine_builds;    // uploaded: its builds for other levels

    // Uploaded: the levels of its file and of each further build, in that order.
    std::vector<std::string> build_levels() const {
        std::vector<std::string> levels{engine_level};
        for (const EngineBuild& b : engine_builds) levels.push_back(b.level);
        return levels;
    }
};

// An uploaded engine file, stored once by its SHA-256 beside the database.
struct EngineFile {
    std::string sha256;
    uint64_t size = 0;
    bool archive = false;
    int64_t created_ms = 0;
    std::string uploader;  // the user who uploaded it first ("" before issue 49)
};

struct Book {
    std::vector<Opening> openings;
    bool random_order = false;
    uint64_t seed = 0;
    std::string source;
};

enum class RunKind { Regression, FixedGames, Tune, Generate, Train, Chain };

// A parameter of a tuning run as submitted: what is left out defaults from the registry's
// bounds and the base version's value.
struct TuneParamRequest {
    std::string name;
    std::optional<double> start;
    std::optional<double> min;
    std::optional<double> max;
    std::optional<double> c_end;
    std::optional<double> r_end;
};

// What a tuning run tunes and whether a regression run (with RunSpec::sprt) verifies it.
struct TuneSpec {
    std::vector<TuneParamRequest> params;
    bool verify = false;
    uint64_t verify_games = 0;            // most games of the verification run (fixed: exactly)
    double average = 0;                   // report the average over this last fraction of the pairs
    bool verify_fixed = false;            // the verification is a fixed-games run
    std::optional<uint64_t> verify_seed;  // the verification's book seed
};

// A tuning run's parameters, current values (theta) and verification.
struct TuneState {
    int64_t run_id = 0;
    std::vector<spsa::Param> params;
    std::vector<double> theta;
    uint64_t seed = 0;  // the perturbation of step k comes from (seed, k)
    int64_t pairs_applied = 0;
    bool verify = false;
    uint64_t verify_games = 0;
    stats::SprtParams sprt;     // of the verification run
    std::string tuned_version;  // made when the run finishes, with verify
    int64_t verify_run_id = 0;
    double average = 0;                   // averaged last fraction of the pairs (0: none)
    int64_t averaged_pairs = 0;           // pairs summed into average_sum so far
    std::vector<double> average_sum;      // per parameter: the values after each averaged pair
    bool verify_fixed = false;            // the verification plays exactly verify_games games
    std::optional<uint64_t> verify_seed;  // its book seed; unset: the run's
    int64_t pairs_faulty = 0;             // pairs left out of theta: a game of theirs was faulty

    // Returns the values the run reports: the average of the values after each averaged pair,
    // or the current values before the first.
    std::vector<double> result() const {
        if (averaged_pairs == 0 || average_sum.size() != theta.size()) return theta;
        std::vector<double> mean = average_sum;
        for (double& sum : mean) sum /= double(averaged_pairs);
        return mean;
    }
};

// How a generation run opens its games and which positions it keeps, as submitted.
struct GenerateSpec {
    uint64_t seed = 0;
    std::optional<int> random_plies;  // default 2
    std::string filters;              // as `--filter` takes it; empty: all
};

// A generation run's settings with defaults filled in, and the positions it has stored.
struct GenerateState {
    int64_t run_id = 0;
    uint64_t seed = 0;
    int random_plies = 2;
    std::string filters = "all";
    int max_plies = 400;
    uint64_t positions = 0;
};

// What a training run fits, from which generation runs' positions, and how.
struct TrainSpec {
    std::vector<int64_t> data_runs;
    int epochs = 0;  // 0: 100
    std::optional<double> learning_rate;
    std::optional<double> l2;
    std::optional<double> k;
    uint64_t batch_size = 0;
    std::string select;  // empty: all
    int threads = 0;     // 0: 1
    uint64_t seed = 0;
};

// A training run's settings (defaults filled in), progress and result.
struct TrainState {
    int64_t run_id = 0;
    TrainSpec spec;
    int epoch = 0;  // epochs done
    uint64_t positions = 0;
    double k = 0;
    double initial_loss = 0;
    std::vector<double> loss_curve;
    double final_loss = 0;
    std::string params_json;  // the result; empty until finished
    uint64_t bench = 0;       // the result's bench signature
};

// How a chain runs its generations (RunSpec's other fields apply to each child run).
struct ChainSpec {
    int generations = 0;
    uint64_t verify_games = 0;
    std::string name;  // prefix of the versions it makes
};

// One generation of a chain: the runs it started and what they gave.
struct ChainGeneration {
    int generation = 0;
    std::string version;  // played and trained from
    int64_t generate_run_id = 0;
    int64_t train_run_id = 0;
    int64_t verify_run_id = 0;
    std::string trained_version;
    // Filled from the child runs when a chain is read.
    uint64_t positions = 0;
    double final_loss = 0;
    stats::EloEstimate verify_elo;
    std::string verify_result;
};

struct ChainState {
    int64_t run_id = 0;
    ChainSpec spec;
    std::vector<ChainGeneration> generations;
};

// A tuning run's values after a number of applied game pairs.
struct TunePoint {
    int64_t pairs = 0;
    int64_t recorded_ms = 0;
    std::vector<double> values;
};
// Paused: its faulty games passed its fault bound; it waits for its owner to resume it.
enum class RunState { Active, Finished, Stopped, Paused };

// What the SPRT of a run has decided: the hypothesis its LLR accepts, or neither yet (for a
// finished run: its games ran out first).
enum class SprtOutcome { H0, H1, Inconclusive };

// Why a run leads to another: the parent started the child (a tuning's verification, a
// chain's step, a regression run's follow-up), or the child was submitted like the parent.
enum class RunLinkReason { Verifies, ChainStep, FollowUp, SubmittedLike };

// One edge of the one relation of runs that lead to runs (the table run_links).
struct RunLink {
    int64_t parent = 0;
    int64_t child = 0;
    RunLinkReason reason = RunLinkReason::SubmittedLike;
};

// The run a regression run starts when it ends with a chosen result: typically the same
// versions at a longer time control, with SPRT bounds of its own (fishtest's STC, then LTC).
struct FollowUpSpec {
    std::string on_result = "H1";  // "H1", "H0" or "any" (any verdict; a stop starts nothing)
    TimeControl time_control;
    std::optional<stats::SprtParams> sprt;  // none: the first run's
    uint64_t games = 0;                     // 0: the first run's

    // Returns whether a run that ended with this outcome starts the follow-up.
    bool starts_on(SprtOutcome outcome) const {
        if (on_result == "any") return true;
        return on_result == (outcome == SprtOutcome::H1   ? "H1"
                             : outcome == SprtOutcome::H0 ? "H0"
                                                          : "");
    }
};

struct RunSpec {
    RunKind kind = RunKind::Regression;
    std::string test_version;
    std::string base_version;
    // Training runs play no games: theirs stays "nodes=0", as stored since the first of them.
    TimeControl time_control{.kind = TimeControl::Kind::Nodes, .nodes = 0};
    Book book;
    stats::SprtParams sprt;  // regression runs
    uint64_t games = 0;      // fixed: exact; regression: maximum
    int priority = 0;
    int throughput = 100;
    int pairs_per_thread = 0;
    std::string description;
    TuneSpec tune;          // tuning runs
    GenerateSpec generate;  // generation runs and chains
    TrainSpec train;        // training runs and chains
    ChainSpec chain;        // chains
    // The rules in force: regression, fixed-games and tuning runs take the defaults below
    // unless turned off; generation runs and runs stored before rules existed have none.
    match::Adjudication adjudication;
    int threads = 1;            // of each UCI engine in a game: the cores one game holds
    int64_t origin_run_id = 0;  // the run this one was submitted like; 0: none
    std::string owner;          // the user who submitted it (set by the coordinator)
    // The run it starts when it ends (regression runs); filled when a single run is read.
    std::optional<FollowUpSpec> follow_up;
    // Clock runs: the speed of the test version's engine the clock is defined for; each worker
    // scales the clock by reference_nps over its own speed (0: raw clocks).
    uint64_t reference_nps = 0;
    // Whether its SPRT settings are stored with it (regression runs, and tuning runs for their
    // verification): set by the core from the run's kind, read back from the stored settings.
    bool sprt_stored = false;
    // Runs that play games: the fault bound that pauses it (unset when submitted: the
    // coordinator's); filled when a single run is read.
    std::optional<FaultBound> fault_bound;
};

// Result counts of a run, a report or a worker, from the test version's point of view.
struct Counts {
    int64_t pairs = 0;
    int64_t wins = 0;
    int64_t draws = 0;
    int64_t losses = 0;
    stats::Pentanomial penta;

    // Adds another set of counts.
    void add(const Counts& other);
    // Takes another set of counts away.
    void subtract(const Counts& other);
};

// A JSON POST telling a URL that a run ended, in the outbox until the URL took it (2xx), its
// attempts ran out, or it was dropped (the URL cleared, or off the operator's list).
struct Notification {
    int64_t id = 0;  // sent as the body's "id" and the Idempotency-Key header: for de-duplication
    int64_t run_id = 0;
    std::string url;
    std::string destination;  // the URL's HOST:PORT: one POST at a time goes to each
    std::string body;         // a JSON object, without its id and link
    int attempts = 0;
    int64_t next_ms = 0;  // not sent before
    int64_t delivered_ms = 0;
    std::string last_error;
};

// A change made to a run after its submission: who made it, when, and the field's values.
struct RunChange {
    int64_t run_id = 0;
    int64_t changed_ms = 0;
    std::string user;       // the token's name
    std::string field;      // "priority", "throughput", "games", "description" or "state"
    std::string old_value;  // as text
    std::string new_value;
};

struct BenchMismatch {
    int64_t worker_id = 0;
    int64_t version_id = 0;
    std::string version;
    uint64_t expected = 0;
    uint64_t computed = 0;
    std::string message;
    int64_t created_ms = 0;
};

// How a game ended, as its worker reported it; the last four are faults, each a loss for the
// engine at fault.
enum class GameEnding { Unknown, Rules, Adjudication, TimeLoss, Crash, Stall, IllegalMove };

// Returns whether the ending is a fault of the engine that lost.
inline bool is_fault(GameEnding ending) {
    return ending >= GameEnding::TimeLoss;
}

// Games of a run lost by one kind of fault on one worker by one version.
struct FaultCount {
    int64_t worker_id = 0;
    std::string worker_name;
    bool test_version = false;  // the test version's engine was at fault, else the base's
    GameEnding fault = GameEnding::TimeLoss;
    int64_t games = 0;
};

// Why the coordinator paused a run: the engine whose faults passed the run's fault bound.
struct FaultPause {
    std::string version;  // the version at fault
    std::string engine;   // its engine: the UCI command, the uploaded file, or "built-in"
    GameEnding fault = GameEnding::IllegalMove;  // its most frequent fault in the run
    int64_t fault_games = 0;                     // the run's games it lost by that fault
    int64_t faulty_games = 0;                    // faulty games counted against the bound
    int64_t games = 0;                           // games counted against the bound
    uint64_t example_game = 0;                   // a game lost by that fault (2 * pair + 0/1)
    int64_t paused_ms = 0;
    std::string reason;  // the whole reason in one sentence
};

// A run's count against its fault bound (the table run_faults): faulty games among the games
// counted since from_games (its submission: 0; its latest resume), and why it is paused.
struct RunFaults {
    int64_t run_id = 0;
    FaultBound bound;
    int64_t faults = 0;
    int64_t from_games = 0;
    std::optional<FaultPause> pause;  // while paused
};

// One version's games lost by one fault in a run, with the first of them.
struct FaultTally {
    bool test_version = false;
    GameEnding fault = GameEnding::IllegalMove;
    int64_t games = 0;
    uint64_t example_game = 0;
};

// One engine-output check failed by one version's engine in one game, as its worker reported
// it (match/output_checks.h; checked by the rpc layer: a count of 1 to kMaxOutputCount, an
// example and go command of at most kMaxOutputExampleBytes).
struct GameOutputWarning {
    bool test_version = false;
    match::OutputCheck check = match::OutputCheck::InfoUnparsable;
    int64_t count = 0;    // the lines that failed it in the game
    std::string example;  // the first of them
    std::string go;       // the go command that line answered
};

// One check failed by one version's engine over a run's games (the table output_warnings).
struct OutputWarningCount {
    bool test_version = false;
    match::OutputCheck check = match::OutputCheck::InfoUnparsable;
    int64_t games = 0;          // the games with such lines
    int64_t count = 0;          // the lines in all
    uint64_t example_game = 0;  // the first game reported with it (2 * pair + 0/1)
    std::string example;        // its first such line
    std::string go;             // the go command that line answered
};

// One worker's counted pairs in a run, tested against the rest of its CPU class's in the run
// (class_stats.h).
struct WorkerFit {
    int64_t run_id = 0;
    int64_t worker_id = 0;
    std::string name;
    Counts counts;
    stats::Homogeneity fit;
    bool quarantined = false;      // p below the coordinator's quarantine threshold
    int64_t time_losses = 0;       // its games lost on time, by either version
    double time_loss_p = 1;        // stats::excess_loss_p against the rest of its class
    int64_t faults = 0;            // its faulty games (time losses, crashes, stalls, illegal moves)
    double fault_p = 1;            // stats::excess_loss_p of faults against the rest of its class
    std::string cpu_class;         // its worker's CPU class; "unknown" for a worker without one
    int64_t class_rest_pairs = 0;  // the pairs of the rest of its class it was tested against
};

// A run's counted pairs played by one CPU class of workers (class_stats.h).
struct ClassResult {
    std::string cpu_class;  // "unknown": workers that reported no identity
    int64_t workers = 0;    // its workers with counted pairs
    Counts counts;
    stats::EloEstimate elo;
    int64_t time_losses = 0;  // its games lost on time, by either version
    int64_t faults = 0;       // its faulty games
};

// A CPU class whose result differs from the rest of the run's beyond chance: shown to the
// run's owner to judge, never purged (class_stats.h).
struct ClassFinding {
    ClassResult group;       // the class
    ClassResult rest;        // the rest of the run (cpu_class empty)
    double elo_p = 1;        // stats::score_difference of the class against the rest
    double time_loss_p = 1;  // stats::excess_loss_p of its time losses against the rest's
    std::string text;        // "zen5-avx512: +12.0 ± 4.1 Elo, the rest +2.0 ± 3.0 (p 2e-05)"
};

// A worker's games removed from a run's totals: by whom, when, and what they counted.
struct Purge {
    int64_t id = 0;
    int64_t run_id = 0;
    int64_t worker_id = 0;
    std::string worker_name;
    int64_t token_id = 0;
    std::string token_name;  // who purged (the user token's name)
    std::string peer;        // where the call came from
    int64_t purged_ms = 0;
    Counts counts;
};

// A lease a worker handed back because an engine failed; read back per worker of a run.
struct LeaseFailure {
    int64_t lease_id = 0;
    int64_t run_id = 0;
    int64_t worker_id = 0;
    std::string message;
    int64_t created_ms = 0;
    int count = 1;  // read back: the worker's failures of the run
};

// A worker's speed with a version's engine, as measured for scaled clocks.
struct WorkerSpeed {
    int64_t worker_id = 0;
    int64_t version_id = 0;
    std::string version;  // its name, when read
    uint64_t nps = 0;     // nodes per second of one game's engine
    int games_at_once = 1;
    int64_t measured_ms = 0;  // when the coordinator learnt it
};

// How one worker scaled a run's clock, over its counted reports.
struct WorkerClock {
    int64_t worker_id = 0;
    std::string worker_name;
    double min_factor = 0;
    double max_factor = 0;
    double last_factor = 0;
    uint64_t last_nps = 0;
    int64_t reports = 0;
    int64_t pairs = 0;
};

struct Run {
    int64_t id = 0;
    RunSpec spec;  // book.openings is empty unless loaded on purpose
    int64_t test_id = 0;
    int64_t base_id = 0;
    RunState state = RunState::Active;
    std::string result;
    uint64_t book_size = 0;
    uint64_t next_pair = 0;     // pairs [0, next_pair) have been leased at least once
    uint64_t free_pairs = 0;    // pairs handed back by expired or released leases
    uint64_t pairs_leased = 0;  // unreported pairs out on active leases
    int active_leases = 0;
    int active_cores = 0;  // concurrency of the workers holding those leases
    Counts counts;
    stats::EloEstimate elo;
    stats::SprtResult sprt;
    int64_t created_ms = 0;
    int64_t finished_ms = 0;
    // The kind's state, when a single run is read: its kind's load writes it and only the kind
    // reads it (state_of_kind), so the run names no kind's state (a tuning run's TuneState, a
    // generation run's GenerateState, a training run's TrainState, a chain's own).
    std::any kind_state;
    int64_t follow_up_run_id = 0;  // the run its follow-up started; 0: none (yet)
    int64_t follows_run_id = 0;    // the run whose follow-up it is; 0: none

    // Returns the number of game pairs workers play for the run at most (none for the kinds
    // the coordinator runs itself); defined with the run kinds (coordinator/kinds/).
    uint64_t pairs_total() const;
    // Returns the number of pairs not yet leased to anybody.
    uint64_t pairs_available() const { return pairs_total() - next_pair + free_pairs; }
    // Returns the kind's state of a run read alone, when it is a State (else nullptr).
    template <class State>
    const State* state_of_kind() const {
        return std::any_cast<State>(&kind_state);
    }
    // Returns what the run's SPRT has decided: its LLR past a bound, as stats::sprt decides
    // (the SPRT's state is not stored, its LLR and bounds are).
    SprtOutcome sprt_outcome() const {
        if (counts.pairs > 0 && sprt.llr > sprt.upper) return SprtOutcome::H1;
        if (counts.pairs > 0 && sprt.llr < sprt.lower) return SprtOutcome::H0;
        return SprtOutcome::Inconclusive;
    }
};

// What is read of a run only when it is shown alone (Core::get_run, beside the Run).
struct RunDetails {
    std::vector<BenchMismatch> bench_mismatches;
    std::vector<WorkerClock> clocks;           // scaled clocks
    std::vector<LeaseFailure> lease_failures;  // per worker
    int64_t verifies_run_id = 0;               // the tuning run a regression run verifies
    int64_t chain_run_id = 0;                  // the chain that started the run
    std::vector<WorkerFit> workers;            // each worker's fit
    std::vector<Purge> purges;                 // workers purged from the run
    std::vector<FaultCount> faults;            // games lost by faults
    std::optional<RunFaults> fault_state;      // its count against its fault bound
    std::vector<RunChange> changes;            // changes after its submission (a page)
    int64_t change_count = 0;                  // the changes in all
    // Engine-output warnings, per version and check, most games first.
    std::vector<OutputWarningCount> output_warnings;
    std::vector<ClassResult> classes;          // its result per CPU class, most games first
    std::vector<ClassFinding> class_findings;  // classes whose result differs from the rest's
};

struct Worker {
    int64_t id = 0;
    int64_t token_id = 0;
    std::string name;
    int cores = 0;
    int64_t memory_mb = 0;
    int concurrency = 1;
    std::vector<std::string> uci_engines;
    std::string build;
    bool accept_uploaded_engines = false;
    int64_t registered_ms = 0;
    int64_t last_seen_ms = 0;
    int64_t lease_id = 0;     // the lease it holds, 0 when none
    int64_t games = 0;        // games it has reported
    WorkerControls controls;  // its fleet controls (issue 52)
    WorkerIdentity identity;  // its machine as it registered it (issue 52)
    std::string cpu_class;    // derived from identity ("": none reported)
};

enum class LeaseState { Leased, Done, Expired, Released, Stopped };

// A range of a run's game pairs leased to one worker; its id is the lease id.
struct Lease {
    int64_t id = 0;
    int64_t run_id = 0;
    int64_t worker_id = 0;
    uint64_t first_pair = 0;
    uint32_t pairs = 0;
    int cores = 0;  // the holder's concurrency when leased
    LeaseState state = LeaseState::Leased;
    uint32_t pairs_reported = 0;
    std::vector<uint8_t> reported;  // bitmap: bit i set once pair first_pair + i is counted
    uint32_t last_sequence = 0;
    int64_t created_ms = 0;
    int64_t expires_ms = 0;
    int64_t ended_ms = 0;

    // Returns whether pair i of the lease has been reported.
    bool is_reported(uint32_t i) const { return reported[i / 8] >> (i % 8) & 1; }
    // Records pair i of the lease as reported.
    void mark_reported(uint32_t i) { reported[i / 8] |= uint8_t(1u << (i % 8)); }
};

// What a worker sends of a game lost by a UCI engine's fault (proto FaultEvidence), checked
// and inflated (coordinator/domain/evidence.h).
struct GameEvidence {
    std::string reason;
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> options;
    std::string position;
    std::string go;
    std::string transcript;
    bool transcript_complete = true;
    std::string stderr_tail;
    uint64_t stderr_bytes = 0;
};

struct GameRecord {
    Outcome outcome = Outcome::Draw;  // generation runs: white's
    bool test_white = true;
    std::string pgn;
    std::optional<Outcome> pgn_white_outcome;  // the PGN's Result, once its one game was read
    // The PGN as stored (storage's encode_pgn), made where the report is read off the wire so
    // that the writer does not compress; empty: the storage encodes pgn itself.
    std::string stored_pgn;
    std::string positions;  // generation runs: the kept labelled positions' records
    uint32_t position_count = 0;
    GameEnding ending = GameEnding::Unknown;
    std::optional<GameEvidence> evidence;  // a fault of a UCI engine, when the worker sent it
    std::vector<GameOutputWarning> output_warnings;  // its engines' output warnings
};

struct PairRecord {
    uint32_t index = 0;  // within the lease
    GameRecord games[2];
};

// A worker's report on a lease, as received.
struct Report {
    int64_t worker_id = 0;
    int64_t lease_id = 0;
    uint32_t sequence = 0;
    std::vector<PairRecord> pairs;
    double clock_factor = 0;  // scaled clocks: the factor played with (0: the clock as it is)
    uint64_t nps = 0;         // scaled clocks: the worker's speed it came from
    // The builds of uploaded engines the lease plays (GameBuilds of its first game: a level,
    // "portable", or "" for an engine not uploaded).
    std::string test_build;
    std::string base_build;
};

// A report as stored: what it counted and a digest of its content for duplicate checks.
struct ReportRecord {
    int64_t id = 0;  // the storage's, growing with every report counted
    int64_t lease_id = 0;
    uint32_t sequence = 0;
    int64_t run_id = 0;
    int64_t worker_id = 0;
    Counts counts;
    std::string digest;
    int64_t received_ms = 0;
    double clock_factor = 0;  // as Report's
    uint64_t nps = 0;
};

// A stored game, numbered 2 * pair + (0 or 1) within its run.
struct StoredGame {
    int64_t run_id = 0;
    uint64_t game = 0;
    int64_t lease_id = 0;
    int64_t worker_id = 0;
    Outcome outcome = Outcome::Draw;
    bool test_white = true;
    std::string pgn;
    std::string stored_pgn;  // pgn's stored form if already made (GameRecord::stored_pgn)
    GameEnding ending = GameEnding::Unknown;
};

// The stored labelled positions of one game of a generation run.
struct StoredPositions {
    uint64_t game = 0;
    uint32_t count = 0;
    std::string data;  // count records (training/position_record.h)
};

// An active run a connected worker does not play, and why (waiting.h).
struct DeclinedRun {
    int64_t run_id = 0;
    std::string reason;  // wait_reason_name: "no_engine", "cores", ...
    std::string text;    // the worker's side: "lacks the UCI engine '/usr/games/glaurung'"
};

// What the user sees of a worker: its record and the run it plays now (0: none).
struct WorkerSummary {
    Worker worker;
    int64_t run_id = 0;
    std::optional<WorkerFit> fit;       // in that run, else the run it reported to last
    std::vector<WorkerSpeed> speeds;    // measured for scaled clocks, newest first
    std::vector<DeclinedRun> declined;  // connected: the active runs it cannot play
};

// A contiguous range of a run's game pairs.
struct PairRange {
    uint64_t first = 0;
    uint64_t count = 0;
};

}  // namespace sparring::coordinator
