// `sparring submit`: starts a regression (SPRT), fixed-games or SPSA tuning run on the
// coordinator, with the shipped opening book, nodes=1000 and a normalized-Elo SPRT [0, 5]
// unless told otherwise.
#include <CLI/CLI.hpp>
#include <climits>
#include <cstdint>
#include <functional>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/fault_display.h"
#include "cli/run_kinds.h"
#include "cli/spec_flags.h"
#include "cli/waiting_display.h"
#include "common/opening.h"
#include "common/printable.h"
#include "common/run_limits.h"

namespace sparring::cli {

namespace {

// Reads the scheduling flags every run takes (with --like, those given: the others stay the
// origin's), submits the run and returns it; prints it with --json.
v1::RunStatus send(const SubmitFlags& args, v1::SubmitRunRequest& request) {
    v1::RunSpec& spec = *request.mutable_spec();
    const bool all = !args.like;
    if (all || given(args.priority_option)) spec.set_priority(int32_t(args.priority));
    if (all || given(args.throughput_option)) spec.set_throughput(uint32_t(args.throughput));
    if (all || args.pairs_per_thread)
        spec.set_pairs_per_thread(uint32_t(args.pairs_per_thread.value_or(0)));
    if (all || args.description) spec.set_description(valid_utf8(args.description.value_or("")));
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::SubmitRun, request, &run);
    if (args.json) std::cout << to_json(run) << "\n";
    warn_unplayable(run);  // on stderr: the run is submitted all the same
    return run;
}

// Reads the --then flags given into a follow-up, naming each field it sets.
void read_then_flags(const SubmitFlags& args, v1::FollowUp& follow_up,
                     const std::function<void(const char*)>& set) {
    if (args.then_tc) {
        follow_up.clear_time_control();
        read_time_control(*args.then_tc, follow_up.mutable_time_control(), "then-tc");
        set("follow_up.time_control");
    }
    if (given(args.then_on_option)) {
        const std::string& on = args.then_on;
        if (on != "H1" && on != "H0" && on != "any")
            throw UsageError("--then-on must be H1, H0 or any, not '" + on + "'");
        follow_up.set_on_result(on);
        set("follow_up.on_result");
    }
    if (args.then_elo0) {
        follow_up.mutable_sprt()->set_elo0(*args.then_elo0);
        set("follow_up.sprt.elo0");
    }
    if (args.then_elo1) {
        follow_up.mutable_sprt()->set_elo1(*args.then_elo1);
        set("follow_up.sprt.elo1");
    }
    if (args.then_games) {
        const int64_t games = *args.then_games;
        if (games % 2) throw UsageError("--then-games must be even: every opening is played twice");
        follow_up.set_games(uint64_t(games));
        set("follow_up.games");
    }
}

// Reads --then-tc and its companions into a regression run's follow-up.
void read_follow_up(const SubmitFlags& args, v1::RunSpec& spec) {
    if (!args.then_tc && !given(args.then_on_option) && !args.then_elo0 && !args.then_elo1 &&
        !args.then_games)
        return;
    if (spec.kind() != v1::RUN_KIND_REGRESSION)
        throw UsageError("--then-tc and the other --then flags go with a regression run");
    if (!args.then_tc)
        throw UsageError("a follow-up needs --then-tc: the time control of the second run");
    v1::FollowUp& follow_up = *spec.mutable_follow_up();
    read_then_flags(args, follow_up, [](const char*) {});
    if (follow_up.has_sprt()) {  // the bounds given, the others the run's
        v1::Sprt sprt = spec.sprt();
        if (args.then_elo0) sprt.set_elo0(*args.then_elo0);
        if (args.then_elo1) sprt.set_elo1(*args.then_elo1);
        *follow_up.mutable_sprt() = sprt;
    }
}

// Fills in the kind's spec from its flags, with --tc and --book when the kind takes them,
// submits the run and says what started.
int submit_kind(const SubmitFlags& args, const CliRunKind& kind, v1::SubmitRunRequest& request) {
    v1::RunSpec& spec = *request.mutable_spec();
    kind.read_spec(args, spec);
    const CliRunKind& made = cli_run_kind(spec.kind());
    if (made.takes_time_control) read_time_control(args.tc, spec.mutable_time_control());
    if (made.takes_book) read_book(args, spec.mutable_book());
    v1::Adjudication& rules = *spec.mutable_adjudication();
    rules.set_draw(args.draw.value_or(""));
    rules.set_resign(args.resign.value_or(""));
    rules.set_max_plies(uint32_t(args.maxplies));
    spec.set_threads(uint32_t(args.engine_threads));
    if (args.reference_nps) spec.set_reference_nps(uint64_t(*args.reference_nps));
    if (args.fault_bound)
        fault_bound_to_proto(parse_fault_bound_flag(*args.fault_bound), spec.mutable_fault_bound());
    read_follow_up(args, spec);
    const v1::RunStatus run = send(args, request);
    print_warnings(run);
    if (!args.json)
        std::cout << "run " << run.id() << " submitted: " << made.submitted(run, spec)
                  << " ('sparring show " << run.id() << "' follows it)\n";
    return 0;
}

// Runs `submit generate` and `submit train`: the versions come from the run's own flags.
int submit_training(const SubmitFlags& args, const CliRunKind& kind) {
    if (args.arguments.size() != 1)
        throw UsageError("submit generate and submit train take flags only (--version V ...)");
    for (const CLI::Option* option : args.not_training_options)
        if (given(option))
            throw UsageError(option->get_name() + " does not go with submit " + args.arguments[0]);
    v1::SubmitRunRequest request;
    return submit_kind(args, kind, request);
}

// Runs `submit --like RUN [TEST BASE] [FLAGS]`: the coordinator submits a run like RUN (its
// spec, openings and follow-up) with the fields of the flags given changed.
int submit_like(const SubmitFlags& args) {
    const int64_t like = *args.like;
    if (args.arguments.size() != 0 && args.arguments.size() != 2)
        throw UsageError("submit --like RUN takes no versions or both: TEST BASE");
    for (const auto* options : {&args.training_options, &args.tune_options})
        for (const CLI::Option* option : *options)
            if (given(option)) throw UsageError(option->get_name() + " does not go with --like");
    v1::SubmitRunRequest request;
    request.set_like(like);
    v1::RunSpec& spec = *request.mutable_spec();
    const std::function<void(const char*)> override = [&](const char* field) {
        request.add_overrides(field);
    };
    if (args.arguments.size() == 2) {
        spec.set_test_version(args.arguments[0]);
        spec.set_base_version(args.arguments[1]);
        override("test_version");
        override("base_version");
    }
    if (args.kind) {
        const CliRunKind* kind = cli_run_kind_by_flag(*args.kind);
        if (!kind) throw UsageError("--kind must be regression or fixed");
        spec.set_kind(kind->proto_kind);
        override("kind");
        if (kind->proto_kind == v1::RUN_KIND_FIXED_GAMES && has_sprt_flags(args))
            throw UsageError("SPRT flags need --kind regression");
    }
    // All five, defaults included: a fixed-games run made a regression run takes them whole.
    sparring::cli::read_sprt(args, spec.mutable_sprt());  // not stats_command.cpp's (unity build)
    // The SPRT flags in their order: --elo0, --elo1, --alpha, --beta, --model.
    const char* const sprt_fields[] = {"sprt.elo0", "sprt.elo1", "sprt.alpha", "sprt.beta",
                                       "sprt.model"};
    for (size_t flag = 0; flag < args.sprt_options.size(); ++flag)
        if (given(args.sprt_options[flag])) override(sprt_fields[flag]);
    if (args.games) {
        spec.set_games(uint64_t(read_games(args, 0)));
        override("games");
    }
    if (given(args.tc_option)) {
        read_time_control(args.tc, spec.mutable_time_control());
        override("time_control");
    }
    if (args.book || args.book_format || given(args.book_plies_option)) {
        read_book(args, spec.mutable_book());
        override("book");
    } else {
        // The coordinator copies the openings; the order and seed are the origin's unless given.
        if (given(args.book_order_option)) {
            const auto order = parse_book_order(args.book_order);
            if (!order) throw UsageError("--book-order must be random or sequential");
            spec.mutable_book()->set_random_order(*order == BookOrder::Random);
            override("book.random_order");
        }
        if (args.seed) {
            spec.mutable_book()->set_seed(uint64_t(*args.seed));
            override("book.seed");
        }
    }
    v1::Adjudication& rules = *spec.mutable_adjudication();
    if (args.draw) {
        rules.set_draw(*args.draw);
        override("adjudication.draw");
    }
    if (args.resign) {
        rules.set_resign(*args.resign);
        override("adjudication.resign");
    }
    if (given(args.maxplies_option)) {
        rules.set_max_plies(uint32_t(args.maxplies));
        override("adjudication.max_plies");
    }
    if (given(args.engine_threads_option)) {
        spec.set_threads(uint32_t(args.engine_threads));
        override("threads");
    }
    if (args.reference_nps) {
        spec.set_reference_nps(uint64_t(*args.reference_nps));
        override("reference_nps");
    }
    if (args.fault_bound) {
        fault_bound_to_proto(parse_fault_bound_flag(*args.fault_bound), spec.mutable_fault_bound());
        override("fault_bound");
    }
    read_then_flags(args, *spec.mutable_follow_up(), override);
    const v1::RunStatus run = send(args, request);
    print_warnings(run);
    if (!args.json)
        std::cout << "run " << run.id() << " submitted like run " << like << ": "
                  << cli_run_kind(run.spec().kind()).submitted(run, run.spec())
                  << " ('sparring show " << run.id() << "' follows it)\n";
    return 0;
}

// Runs `submit TEST BASE [--kind K]`, `submit tune BASE`, `submit generate` and
// `submit train`.
int submit(const SubmitFlags& args) {
    if (args.like) return submit_like(args);
    const std::string first = args.arguments.empty() ? "" : args.arguments[0];
    const CliRunKind* by_word = cli_run_kind_by_word(first);
    if (by_word && by_word->versions_from_flags) return submit_training(args, *by_word);
    for (const CLI::Option* option : args.training_options)
        if (given(option))
            throw UsageError(option->get_name() + " goes with submit generate or train");
    if (by_word && args.arguments.size() != 2)
        throw UsageError("give the version to tune: submit " + first + " BASE --params ...");
    if (!by_word && args.arguments.size() != 2)
        throw UsageError(
            "give the test version and the base version (see `sparring versions list`)");
    if (by_word && args.kind) throw UsageError("--kind does not go with submit " + first);
    const std::string kind_flag = args.kind.value_or("regression");
    const CliRunKind* kind = by_word ? by_word : cli_run_kind_by_flag(kind_flag);
    if (!kind) throw UsageError("--kind must be regression or fixed, got '" + kind_flag + "'");
    for (const CLI::Option* option : args.tune_options)
        if (!by_word && given(option))
            throw UsageError(option->get_name() + " goes with submit tune BASE");
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    spec.set_test_version(args.arguments[by_word ? 1 : 0]);
    spec.set_base_version(args.arguments[1]);
    return submit_kind(args, *kind, request);
}

}  // namespace

// The most games of a run, and of a step of a training run.
constexpr int64_t kMaxSubmitGames = kMaxGames;

SubmitFlags::SubmitFlags(CLI::App& app) {
    CLI::Option* kind_option = add_flag(
        app, "kind", kind, "K", "regression (SPRT, default) or fixed (exactly --games games)");
    in_range(
        add_flag(app, "games", games, "N",
                 "fixed, tune: games to play (default 1000); regression: maximum (default 20000)"),
        2, kMaxSubmitGames);
    declare_tune_flags(app, kind_option);
    declare_game_flags(app);
    declare_training_flags(app);
    declare_follow_up_flags(app);
    declare_common(app, "print the run as JSON");
}

// Declares the flags of tuning runs and of their verification.
void SubmitFlags::declare_tune_flags(CLI::App& app, CLI::Option* kind_option) {
    tune_options.push_back(
        add_list(app, "params", params, "NAMES",
                 "tune: parameters or groups to tune, e.g. Material,BishopPairMg"));
    tune_options.push_back(
        add_flag(app, "param", param, "SPEC",
                 "tune: a parameter or engine spin option, NAME[:START:MIN:MAX:C_END:R_END] "
                 "(repeatable)"));
    tune_options.push_back(
        add_flag(app, "params-file", params_file, "FILE",
                 "tune: parameters in the OpenBench/fishtest SPSA format, NAME, int|float, START, "
                 "MIN, MAX, C_END, R_END a line"));
    tune_options.push_back(
        add_flag(app, "c-end", c_end, "C",
                 "tune: perturbation at the last step (default: (max - min) / 20)"));
    tune_options.push_back(
        add_flag(app, "r-end", r_end, "R", "tune: learning rate at the last step (default 0.002)"));
    tune_options.push_back(
        add_flag(app, "average", average, "F",
                 "tune: report the average of the values over the last fraction F of the pairs, "
                 "e.g. 0.4 (default 0: the last values)"));
    tune_options.push_back(add_switch(
        app, "verify", verify, "tune: afterwards, an SPRT run of the tuned values against BASE"));
    not_training_options = {kind_option};
    not_training_options.insert(not_training_options.end(), tune_options.begin(),
                                tune_options.end());
    tune_options.push_back(
        add_flag(app, "verify-games", verify_games, "N",
                 "tune: most games of the verification (default 20000; with --verify-fixed "
                 "exactly, default 8000); train chains: of each generation's verification "
                 "(default 2000)"));
    CLI::Option* verify_fixed_option =
        add_switch(app, "verify-fixed", verify_fixed,
                   "tune: the verification plays a fixed number of games, no SPRT");
    CLI::Option* verify_seed_option = in_range(
        add_flag(app, "verify-seed", verify_seed, "N",
                 "tune: the verification's book seed, in random order (default: the tuning run's "
                 "book and order)"),
        0, INT64_MAX);
    for (CLI::Option* option : {verify_fixed_option, verify_seed_option}) {
        tune_options.push_back(option);
        not_training_options.push_back(option);
    }
}

// Declares the flags of runs that play games: SPRT, time control, book, adjudication,
// threads, clock scaling, and the scheduling of every run.
void SubmitFlags::declare_game_flags(CLI::App& app) {
    sprt_options = {
        add_flag(app, "elo0", elo0, "E", "SPRT H0", "0"),
        add_flag(app, "elo1", elo1, "E", "SPRT H1", "5"),
        add_flag(app, "alpha", alpha, "A", "SPRT false-positive rate", "0.05"),
        add_flag(app, "beta", beta, "B", "SPRT false-negative rate", "0.05"),
        add_flag(app, "model", model, "M", "SPRT Elo scale: normalized or logistic", "normalized")};
    tc_option = add_flag(app, "tc", tc, "TC", "nodes=N, depth=N, movetime=MS or BASE+INC seconds",
                         "nodes=1000");
    not_training_options.insert(not_training_options.begin() + 1, tc_option);
    from_environment(
        add_flag(app, "book", book, "FILE",
                 "EPD or PGN book (default: the shipped share/sparring/books/default.epd)"));
    add_flag(app, "book-format", book_format, "F",
             "epd or pgn (default: pgn for a .pgn file, else epd)");
    book_plies_option =
        add_flag(app, "book-plies", book_plies, "N",
                 "PGN book: plies of each game to play out (0: all)", "0", 0, 10000);
    book_order_option =
        add_flag(app, "book-order", book_order, "O", "random or sequential", "random");
    in_range(add_flag(app, "seed", seed, "N",
                      "seed of the random book order (default: a random one); generate, train: of "
                      "the openings and random plies (default 1)"),
             0, INT64_MAX);
    not_training_options.push_back(
        add_flag(app, "draw", draw, "RULE|off",
                 "draw adjudication: movenumber=N,movecount=N,score=CP (default: "
                 "movenumber=34,movecount=8,score=20)"));
    not_training_options.push_back(
        add_flag(app, "resign", resign, "RULE|off",
                 "resign adjudication: movecount=N,score=CP[,twosided=true] (default: "
                 "movecount=3,score=400,twosided=true)"));
    maxplies_option =
        add_flag(app, "maxplies", maxplies, "N",
                 "a game this many plies long is a draw (0: no limit)", "0", 0, 100000);
    engine_threads_option =
        add_flag(app, "engine-threads", engine_threads, "N",
                 "search threads of each UCI engine (its Threads option); a game holds N of a "
                 "worker's cores",
                 "1", 1, 256);
    CLI::Option* reference_nps_option = in_range(
        add_flag(app, "reference-nps", reference_nps, "N",
                 "a clock run: the speed its clock is defined for, nodes per second of the test "
                 "engine (default: the test version's, else the coordinator's; workers scale the "
                 "clock by it)"),
        1, 1'000'000'000'000);
    CLI::Option* fault_bound_option =
        add_flag(app, "fault-bound", fault_bound, "BOUND",
                 "pause the run once more than PERCENT% of its games are faulty (time loss, "
                 "crash, stall, illegal move), after MIN_GAMES: PERCENT%[/MIN_GAMES] (e.g. "
                 "25%/40) or off (default: the coordinator's --fault-bound, 10%/20)");
    not_training_options.insert(
        not_training_options.end(),
        {maxplies_option, engine_threads_option, reference_nps_option, fault_bound_option});
    priority_option = add_flag(app, "priority", priority, "N", "higher runs first", "0",
                               kMinPriority, kMaxPriority);
    throughput_option = add_flag(app, "throughput", throughput, "P",
                                 "share of workers among equal priorities, percent", "100",
                                 kMinThroughput, kMaxThroughput);
    in_range(add_flag(app, "pairs-per-thread", pairs_per_thread, "N",
                      "game pairs per worker thread in a lease (default: server's)"),
             0, 256);
    add_flag(app, "description", description, "TEXT", "free text");
}

// Declares the flags of generation, training and chain runs.
void SubmitFlags::declare_training_flags(CLI::App& app) {
    const auto training = [&](CLI::Option* option) {
        training_options.push_back(option);
        return option;
    };
    training(add_flag(app, "version", version, "V",
                      "generate, train: the version to play and train from"));
    training(add_flag(app, "nodes", nodes, "N",
                      "generate, train chains: nodes a move of the self-play", "5000", 1,
                      kMaxSubmitGames));
    random_plies_option =
        training(add_flag(app, "random-plies", random_plies, "N",
                          "generate: random moves after the book opening", "2", 0, 200));
    training(add_list(app, "filter", filter, "LIST",
                      "generate: positions dropped, check,tactical,mate|all|none", "all"));
    generations_option = training(
        add_flag(app, "generations", generations, "G",
                 "train: a chain of G generations of generate, train, verify", "1", 1, 100));
    data_option = training(add_flag(app, "data", data, "RUN,...",
                                    "train: fit the positions of these generation runs"));
    training(
        add_flag(app, "epochs", epochs, "N", "train: passes over the data", "100", 1, 100'000));
    training(add_flag(app, "lr", lr, "X", "train: Adam step size in centipawns (default 1)"));
    training(
        add_flag(app, "l2", l2, "X", "train: penalty weight on (value - start)^2 (default 1e-7)"));
    training(add_flag(app, "k", k, "K|auto", "train: the sigmoid's scaling constant", "auto"));
    training(add_flag(app, "batch", batch, "N", "train: positions per step; 0: all", "0", 0,
                      kMaxSubmitGames));
    training(add_list(app, "select", select, "LIST",
                      "train: parameters to fit, names, group:G, PREFIX* or all", "all"));
    training(add_flag(app, "threads", threads, "N", "train: coordinator threads to fit with", "1",
                      1, 256));
    training(add_flag(app, "name", name, "NAME",
                      "train chains: prefix of the versions made (default chainRUN)"));
}

// Declares the follow-up of a regression run and --like.
void SubmitFlags::declare_follow_up_flags(CLI::App& app) {
    add_flag(app, "then-tc", then_tc, "TC",
             "regression: when the run ends with --then-on, start a follow-up run of the same "
             "versions at TC (typically a longer time control)");
    then_on_option = add_flag(app, "then-on", then_on, "RESULT",
                              "the result that starts the follow-up: H1, H0 or any", "H1");
    add_flag(app, "then-elo0", then_elo0, "E", "the follow-up's SPRT H0 (default: the run's)");
    add_flag(app, "then-elo1", then_elo1, "E", "the follow-up's SPRT H1 (default: the run's)");
    in_range(add_flag(app, "then-games", then_games, "N",
                      "the follow-up's maximum games (default: the run's)"),
             2, kMaxSubmitGames);
    in_range(add_flag(app, "like", like, "RUN",
                      "a regression or fixed-games run like RUN: its spec and openings, with the "
                      "flags (and TEST BASE) given changed"),
             1, INT64_MAX);
}

Command submit_command() {
    return {"submit",
            "start a regression (SPRT), fixed-games, SPSA tuning, self-play generation or "
            "training run",
            "TEST BASE [--kind regression|fixed] [--games N] [--tc TC] ... | --like RUN [TEST "
            "BASE] [FLAGS] | "
            "tune BASE --params NAMES [--verify] ... | generate --version V --games N [--nodes "
            "K] ... | train --version V (--data RUN,... | --generations G --games N --nodes K) "
            "...",
            declare_flags<SubmitFlags, submit>};
}

}  // namespace sparring::cli
