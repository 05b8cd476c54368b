// `sparring submit`: starts a regression (SPRT), fixed-games or SPSA tuning run on the
// coordinator, with the shipped opening book, nodes=1000 and a normalized-Elo SPRT [0, 5]
// unless told otherwise.
#include <cstdint>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/run_kinds.h"
#include "cli/spec_flags.h"
#include "common/opening.h"
#include "common/printable.h"

namespace sparring::cli {

namespace {

// Reads the scheduling flags every run takes (with --like, those given: the others stay the
// origin's), submits the run and returns it; prints it with --json.
v1::RunStatus send(const Flags& args, v1::SubmitRunRequest& request) {
    v1::RunSpec& spec = *request.mutable_spec();
    const bool all = !args.has("like");
    if (all || args.has("priority"))
        spec.set_priority(int32_t(args.get_int_in("priority", -1000, 1000)));
    if (all || args.has("throughput"))
        spec.set_throughput(uint32_t(args.get_int_in("throughput", 1, 10000)));
    if (all || args.has("pairs-per-thread"))
        spec.set_pairs_per_thread(uint32_t(args.get_int_in("pairs-per-thread", 0, 0, 256)));
    if (all || args.has("description"))
        spec.set_description(valid_utf8(args.get_string("description", "")));
    RemoteClient client(args);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::SubmitRun, request, &run);
    if (args.has("json")) std::cout << to_json(run) << "\n";
    return run;
}

// Reads --then-tc and its companions into a regression run's follow-up (with --like, those
// given change the origin's follow-up).
void read_follow_up(const Flags& args, v1::RunSpec& spec) {
    const bool given = args.has("then-tc") || args.has("then-on") || args.has("then-elo0") ||
                       args.has("then-elo1") || args.has("then-games");
    if (!given) return;
    if (spec.kind() != v1::RUN_KIND_REGRESSION)
        throw UsageError("--then-tc and the other --then flags go with a regression run");
    v1::FollowUp& follow_up = *spec.mutable_follow_up();
    if (args.has("then-tc")) {
        follow_up.clear_time_control();
        read_time_control(args, follow_up.mutable_time_control(), "then-tc");
    } else if (!follow_up.has_time_control()) {
        throw UsageError("a follow-up needs --then-tc: the time control of the second run");
    }
    if (args.has("then-on")) {
        const std::string on = args.get_string("then-on");
        if (on != "H1" && on != "H0" && on != "any")
            throw UsageError("--then-on must be H1, H0 or any, not '" + on + "'");
        follow_up.set_on_result(on);
    }
    if (args.has("then-elo0") || args.has("then-elo1")) {
        v1::Sprt sprt = follow_up.has_sprt() ? follow_up.sprt() : spec.sprt();
        if (args.has("then-elo0")) sprt.set_elo0(args.get_double("then-elo0"));
        if (args.has("then-elo1")) sprt.set_elo1(args.get_double("then-elo1"));
        *follow_up.mutable_sprt() = sprt;
    }
    if (args.has("then-games")) {
        const int64_t games = args.get_int_in("then-games", 2, 1'000'000'000);
        if (games % 2) throw UsageError("--then-games must be even: every opening is played twice");
        follow_up.set_games(uint64_t(games));
    }
}

// Flags of generation, training and chain runs only.
constexpr const char* kTrainingFlags[] = {
    "version", "nodes", "random-plies", "filter", "generations", "data", "epochs", "lr",
    "l2",      "k",     "batch",        "select", "threads",     "name"};

// Fills in the kind's spec from its flags, with --tc and --book when the kind takes them,
// submits the run and says what started.
int submit_kind(const Flags& args, const CliRunKind& kind, v1::SubmitRunRequest& request) {
    v1::RunSpec& spec = *request.mutable_spec();
    kind.read_spec(args, spec);
    const CliRunKind& made = cli_run_kind(spec.kind());
    if (made.takes_time_control) read_time_control(args, spec.mutable_time_control());
    if (made.takes_book) read_book(args, spec.mutable_book());
    v1::Adjudication& rules = *spec.mutable_adjudication();
    rules.set_draw(args.get_string("draw", ""));
    rules.set_resign(args.get_string("resign", ""));
    rules.set_max_plies(uint32_t(args.get_int_in("maxplies", 0, 100000)));
    spec.set_threads(uint32_t(args.get_int_in("engine-threads", 1, 256)));
    if (args.has("reference-nps"))
        spec.set_reference_nps(uint64_t(args.get_int_in("reference-nps", 1, 1'000'000'000'000)));
    read_follow_up(args, spec);
    const v1::RunStatus run = send(args, request);
    if (!args.has("json"))
        std::cout << "run " << run.id() << " submitted: " << made.submitted(run, spec)
                  << " ('sparring show " << run.id() << "' follows it)\n";
    return 0;
}

// Runs `submit generate` and `submit train`: the versions come from the run's own flags.
int submit_training(const Flags& args, const CliRunKind& kind) {
    if (args.positional().size() != 1)
        throw UsageError("submit generate and submit train take flags only (--version V ...)");
    for (const char* flag : {"kind", "tc", "params", "param", "params-file", "c-end", "r-end",
                             "average", "verify", "verify-fixed", "verify-seed", "draw", "resign",
                             "maxplies", "engine-threads", "reference-nps"})
        if (args.has(flag))
            throw UsageError("--" + std::string(flag) + " does not go with submit " +
                             args.positional()[0]);
    v1::SubmitRunRequest request;
    return submit_kind(args, kind, request);
}

// Runs `submit --like RUN [TEST BASE] [FLAGS]`: the run's spec (its book included, which the
// coordinator copies) with the flags given changed, linked to it.
int submit_like(const Flags& args) {
    const int64_t like = args.get_int_in("like", 1, INT64_MAX);
    if (args.positional().size() != 0 && args.positional().size() != 2)
        throw UsageError("submit --like RUN takes no versions or both: TEST BASE");
    for (const char* flag : kTrainingFlags)
        if (args.has(flag)) throw UsageError("--" + std::string(flag) + " does not go with --like");
    for (const char* flag : {"params", "param", "params-file", "c-end", "r-end", "average",
                             "verify", "verify-games", "verify-fixed", "verify-seed"})
        if (args.has(flag)) throw UsageError("--" + std::string(flag) + " does not go with --like");
    RemoteClient client(args);
    v1::GetRunRequest get;
    get.set_run_id(like);
    v1::RunStatus origin;
    client.call(&v1::UserService::Stub::GetRun, get, &origin);
    const v1::RunKind origin_kind = origin.spec().kind();
    if (origin_kind != v1::RUN_KIND_REGRESSION && origin_kind != v1::RUN_KIND_FIXED_GAMES)
        throw UsageError("--like copies regression and fixed-games runs; run " +
                         std::to_string(like) + " is a " +
                         std::string(cli_run_kind(origin_kind).name) + " run");
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    spec = origin.spec();
    spec.set_origin_run_id(like);
    if (args.positional().size() == 2) {
        spec.set_test_version(args.positional()[0]);
        spec.set_base_version(args.positional()[1]);
    }
    if (args.has("kind")) {
        const CliRunKind* kind = cli_run_kind_by_flag(args.get_string("kind"));
        if (!kind) throw UsageError("--kind must be regression or fixed");
        spec.set_kind(kind->proto_kind);
    }
    if (spec.kind() == v1::RUN_KIND_FIXED_GAMES) {
        if (has_sprt_flags(args)) throw UsageError("SPRT flags need --kind regression");
        spec.clear_sprt();
    } else if (!spec.has_sprt() || has_sprt_flags(args)) {
        // Each SPRT flag given replaces its own bound; the others stay the origin's (or take
        // their defaults, for a fixed-games run turned into a regression).
        v1::Sprt sprt;
        sparring::cli::read_sprt(args, &sprt);  // not stats_command.cpp's, in a unity build
        v1::Sprt* out = spec.mutable_sprt();
        const bool had = origin.spec().has_sprt();
        if (!had || args.has("elo0")) out->set_elo0(sprt.elo0());
        if (!had || args.has("elo1")) out->set_elo1(sprt.elo1());
        if (!had || args.has("alpha")) out->set_alpha(sprt.alpha());
        if (!had || args.has("beta")) out->set_beta(sprt.beta());
        if (!had || args.has("model")) out->set_model(sprt.model());
    }
    if (args.has("games"))
        spec.set_games(uint64_t(read_games(args, int64_t(spec.games()))));
    else if (origin_kind != spec.kind())
        spec.set_games(spec.kind() == v1::RUN_KIND_FIXED_GAMES ? 1000 : 20000);
    if (args.has("tc")) {
        spec.clear_time_control();
        read_time_control(args, spec.mutable_time_control());
    }
    if (args.has("book") || args.has("book-format") || args.has("book-plies")) {
        spec.clear_book();
        read_book(args, spec.mutable_book());
    } else {
        // The coordinator copies the openings; the order and seed are the origin's unless given.
        if (args.has("book-order")) {
            const auto order = parse_book_order(args.get_string("book-order"));
            if (!order) throw UsageError("--book-order must be random or sequential");
            spec.mutable_book()->set_random_order(*order == BookOrder::Random);
        }
        if (args.has("seed"))
            spec.mutable_book()->set_seed(uint64_t(args.get_int_in("seed", 0, 0, INT64_MAX)));
    }
    v1::Adjudication& rules = *spec.mutable_adjudication();
    if (args.has("draw")) rules.set_draw(args.get_string("draw"));
    if (args.has("resign")) rules.set_resign(args.get_string("resign"));
    if (args.has("maxplies")) rules.set_max_plies(uint32_t(args.get_int_in("maxplies", 0, 100000)));
    if (args.has("engine-threads"))
        spec.set_threads(uint32_t(args.get_int_in("engine-threads", 1, 256)));
    // The reference speed goes with the clock and the test version: given, kept, or (for a new
    // time control or versions) the new test version's or the coordinator's.
    if (args.has("reference-nps"))
        spec.set_reference_nps(uint64_t(args.get_int_in("reference-nps", 1, 1'000'000'000'000)));
    else if (args.has("tc") || args.positional().size() == 2)
        spec.clear_reference_nps();
    if (spec.kind() != v1::RUN_KIND_REGRESSION) spec.clear_follow_up();
    read_follow_up(args, spec);
    const v1::RunStatus run = send(args, request);
    if (!args.has("json"))
        std::cout << "run " << run.id() << " submitted like run " << like << ": "
                  << cli_run_kind(spec.kind()).submitted(run, spec) << " ('sparring show "
                  << run.id() << "' follows it)\n";
    return 0;
}

// Runs `submit TEST BASE [--kind K]`, `submit tune BASE`, `submit generate` and
// `submit train`.
int submit(const Flags& args) {
    if (args.has("like")) return submit_like(args);
    const std::string first = args.positional().empty() ? "" : args.positional()[0];
    const CliRunKind* by_word = cli_run_kind_by_word(first);
    if (by_word && by_word->versions_from_flags) return submit_training(args, *by_word);
    for (const char* flag : kTrainingFlags)
        if (args.has(flag))
            throw UsageError("--" + std::string(flag) + " goes with submit generate or train");
    if (by_word && args.positional().size() != 2)
        throw UsageError("give the version to tune: submit " + first + " BASE --params ...");
    if (!by_word && args.positional().size() != 2)
        throw UsageError(
            "give the test version and the base version (see `sparring versions list`)");
    if (by_word && args.has("kind")) throw UsageError("--kind does not go with submit " + first);
    const std::string kind_flag = args.get_string("kind", "regression");
    const CliRunKind* kind = by_word ? by_word : cli_run_kind_by_flag(kind_flag);
    if (!kind) throw UsageError("--kind must be regression or fixed, got '" + kind_flag + "'");
    for (const char* flag : {"params", "param", "params-file", "c-end", "r-end", "average",
                             "verify", "verify-games", "verify-fixed", "verify-seed"})
        if (!by_word && args.has(flag))
            throw UsageError("--" + std::string(flag) + " goes with submit tune BASE");
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    spec.set_test_version(args.positional()[by_word ? 1 : 0]);
    spec.set_base_version(args.positional()[1]);
    return submit_kind(args, *kind, request);
}

}  // namespace

Command submit_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"kind", "K", "regression (SPRT, default) or fixed (exactly --games games)"},
        {"games", "N",
         "fixed, tune: games to play (default 1000); regression: maximum (default 20000)"},
        {"params", "NAMES", "tune: parameters or groups to tune, e.g. Material,BishopPairMg"},
        {"param", "SPEC",
         "tune: a parameter or engine spin option, NAME[:START:MIN:MAX:C_END:R_END] "
         "(repeatable)",
         "", false, true},
        {"params-file", "FILE",
         "tune: parameters in the OpenBench/fishtest SPSA format, NAME, int|float, START, MIN, "
         "MAX, C_END, R_END a line"},
        {"c-end", "C", "tune: perturbation at the last step (default: (max - min) / 20)"},
        {"r-end", "R", "tune: learning rate at the last step (default 0.002)"},
        {"average", "F",
         "tune: report the average of the values over the last fraction F of the pairs, e.g. "
         "0.4 (default 0: the last values)"},
        {"verify", "", "tune: afterwards, an SPRT run of the tuned values against BASE"},
        {"verify-games", "N",
         "tune: most games of the verification (default 20000; with --verify-fixed exactly, "
         "default 8000); train chains: of each generation's verification (default 2000)"},
        {"verify-fixed", "", "tune: the verification plays a fixed number of games, no SPRT"},
        {"verify-seed", "N",
         "tune: the verification's book seed, in random order (default: the tuning run's "
         "book and order)"},
        {"elo0", "E", "SPRT H0", "0"},
        {"elo1", "E", "SPRT H1", "5"},
        {"alpha", "A", "SPRT false-positive rate", "0.05"},
        {"beta", "B", "SPRT false-negative rate", "0.05"},
        {"model", "M", "SPRT Elo scale: normalized or logistic", "normalized"},
        {"tc", "TC", "nodes=N, depth=N, movetime=MS or BASE+INC seconds", "nodes=1000"},
        {"book", "FILE", "EPD or PGN book (default: the shipped share/sparring/books/default.epd)",
         "", true},
        {"book-format", "F", "epd or pgn (default: pgn for a .pgn file, else epd)"},
        {"book-plies", "N", "PGN book: plies of each game to play out (0: all)", "0"},
        {"book-order", "O", "random or sequential", "random"},
        {"seed", "N",
         "seed of the random book order (default: a random one); generate, train: of the "
         "openings and random plies (default 1)"},
        {"draw", "RULE|off",
         "draw adjudication: movenumber=N,movecount=N,score=CP (default: "
         "movenumber=34,movecount=8,score=20)"},
        {"resign", "RULE|off",
         "resign adjudication: movecount=N,score=CP[,twosided=true] (default: "
         "movecount=3,score=400,twosided=true)"},
        {"maxplies", "N", "a game this many plies long is a draw (0: no limit)", "0"},
        {"engine-threads", "N",
         "search threads of each UCI engine (its Threads option); a game holds N of a "
         "worker's cores",
         "1"},
        {"reference-nps", "N",
         "a clock run: the speed its clock is defined for, nodes per second of the test engine "
         "(default: the test version's, else the coordinator's; workers scale the clock by it)"},
        {"priority", "N", "higher runs first", "0"},
        {"throughput", "P", "share of workers among equal priorities, percent", "100"},
        {"pairs-per-thread", "N", "game pairs per worker thread in a lease (default: server's)"},
        {"description", "TEXT", "free text"},
        {"version", "V", "generate, train: the version to play and train from"},
        {"nodes", "N", "generate, train chains: nodes a move of the self-play", "5000"},
        {"random-plies", "N", "generate: random moves after the book opening", "2"},
        {"filter", "LIST", "generate: positions dropped, check,tactical,mate|all|none", "all"},
        {"generations", "G", "train: a chain of G generations of generate, train, verify", "1"},
        {"data", "RUN,...", "train: fit the positions of these generation runs"},
        {"epochs", "N", "train: passes over the data", "100"},
        {"lr", "X", "train: Adam step size in centipawns (default 1)"},
        {"l2", "X", "train: penalty weight on (value - start)^2 (default 1e-7)"},
        {"k", "K|auto", "train: the sigmoid's scaling constant", "auto"},
        {"batch", "N", "train: positions per step; 0: all", "0"},
        {"select", "LIST", "train: parameters to fit, names, group:G, PREFIX* or all", "all"},
        {"threads", "N", "train: coordinator threads to fit with", "1"},
        {"name", "NAME", "train chains: prefix of the versions made (default chainRUN)"},
        {"then-tc", "TC",
         "regression: when the run ends with --then-on, start a follow-up run of the same "
         "versions at TC (typically a longer time control)"},
        {"then-on", "RESULT", "the result that starts the follow-up: H1, H0 or any", "H1"},
        {"then-elo0", "E", "the follow-up's SPRT H0 (default: the run's)"},
        {"then-elo1", "E", "the follow-up's SPRT H1 (default: the run's)"},
        {"then-games", "N", "the follow-up's maximum games (default: the run's)"},
        {"like", "RUN",
         "a regression or fixed-games run like RUN: its spec and openings, with the flags (and "
         "TEST BASE) given changed"},
        {"json", "", "print the run as JSON"},
    });
    return {"submit",
            "start a regression (SPRT), fixed-games, SPSA tuning, self-play generation or "
            "training run",
            "TEST BASE [--kind regression|fixed] [--games N] [--tc TC] ... | --like RUN [TEST "
            "BASE] [FLAGS] | "
            "tune BASE --params NAMES [--verify] ... | generate --version V --games N [--nodes "
            "K] ... | train --version V (--data RUN,... | --generations G --games N --nodes K) "
            "...",
            flags, submit};
}

}  // namespace sparring::cli
