// `sparring submit`: starts a regression (SPRT), fixed-games or SPSA tuning run on the
// coordinator, with the shipped opening book, nodes=1000 and a normalized-Elo SPRT [0, 5]
// unless told otherwise.
#include <iostream>
#include <random>

#include "cli/book_path.h"
#include "cli/client.h"
#include "cli/commands.h"
#include "cli/training_remote.h"
#include "cli/tune.h"
#include "common/time_control.h"
#include "match/opening_book.h"
#include "stats/stats.h"

namespace sparring::cli {

namespace {

// Writes the time control of --tc.
void read_time_control(const Flags& args, v1::TimeControl* out) {
    std::string error;
    const auto tc = parse_time_control(args.get_string("tc"), &error);
    if (!tc) throw UsageError("--tc: " + error);
    switch (tc->kind) {
        case TimeControl::Kind::Nodes:
            out->set_nodes(tc->nodes);
            break;
        case TimeControl::Kind::Depth:
            out->set_depth(uint32_t(tc->depth));
            break;
        case TimeControl::Kind::MoveTime:
            out->set_movetime_ms(uint32_t(tc->movetime_ms));
            break;
        case TimeControl::Kind::Clock:
            out->mutable_clock()->set_base_ms(uint32_t(tc->base_ms));
            out->mutable_clock()->set_increment_ms(uint32_t(tc->inc_ms));
            break;
    }
}

// Reads the book file (default: the shipped book) and its order into the request.
void read_book(const Flags& args, v1::Book* out) {
    const std::string path = args.get_string("book", default_book_path());
    const bool pgn_name = path.size() > 4 && path.ends_with(".pgn");
    const std::string format_text = args.get_string("book-format", pgn_name ? "pgn" : "epd");
    const auto format = match::parse_book_format(format_text);
    if (!format) throw UsageError("--book-format must be epd or pgn, got '" + format_text + "'");
    const std::string order_text = args.get_string("book-order");
    const auto order = parse_book_order(order_text);
    if (!order)
        throw UsageError("--book-order must be random or sequential, got '" + order_text + "'");
    std::string error;
    const auto book =
        match::load_book(path, *format, int(args.get_int_in("book-plies", 0, 10000)), &error);
    if (!book) throw std::runtime_error(error);
    for (const Opening& o : *book) {
        v1::Opening* opening = out->add_openings();
        opening->set_fen(o.fen);
        for (const std::string& move : o.moves) opening->add_moves(move);
    }
    out->set_random_order(*order == BookOrder::Random);
    out->set_seed(args.has("seed") ? uint64_t(args.get_int_in("seed", 0, 0, INT64_MAX))
                                   : std::random_device{}());
    out->set_source(path);
}

// Returns whether any SPRT flag was given.
bool has_sprt_flags(const Flags& args) {
    return args.has("elo0") || args.has("elo1") || args.has("alpha") || args.has("beta") ||
           args.has("model");
}

// Writes the SPRT of --elo0 --elo1 --alpha --beta --model (normalized [0, 5], 5% errors by
// default); throws UsageError when they are invalid.
void read_sprt(const Flags& args, v1::Sprt* out) {
    stats::SprtParams sprt;
    sprt.elo0 = args.get_double("elo0");
    sprt.elo1 = args.get_double("elo1");
    sprt.alpha = args.get_double("alpha");
    sprt.beta = args.get_double("beta");
    if (!stats::parse_model(args.get_string("model"), &sprt.model))
        throw UsageError("--model must be normalized or logistic");
    if (std::string error = stats::validate(sprt); !error.empty())
        throw UsageError("SPRT: " + error);
    out->set_elo0(sprt.elo0);
    out->set_elo1(sprt.elo1);
    out->set_alpha(sprt.alpha);
    out->set_beta(sprt.beta);
    out->set_model(sprt.model == stats::Model::Logistic ? v1::SPRT_MODEL_LOGISTIC
                                                        : v1::SPRT_MODEL_NORMALIZED);
}

// Reads the scheduling flags every run takes, submits the run and returns it; prints it
// with --json.
v1::RunStatus send(const Flags& args, v1::SubmitRunRequest& request) {
    v1::RunSpec& spec = *request.mutable_spec();
    spec.set_priority(int32_t(args.get_int_in("priority", -1000, 1000)));
    spec.set_throughput(uint32_t(args.get_int_in("throughput", 1, 10000)));
    spec.set_pairs_per_thread(uint32_t(args.get_int_in("pairs-per-thread", 0, 0, 256)));
    spec.set_description(args.get_string("description", ""));
    RemoteClient client(args);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::SubmitRun, request, &run);
    if (args.has("json")) std::cout << to_json(run) << "\n";
    return run;
}

// Flags of generation, training and chain runs only.
constexpr const char* kTrainingFlags[] = {
    "version", "nodes", "random-plies", "filter", "generations", "data", "epochs", "lr",
    "l2",      "k",     "batch",        "select", "threads",     "name"};

// Runs `submit generate` and `submit train`: the run's own flags, then the book and the
// scheduling flags every run takes.
int submit_training(const Flags& args, bool generate) {
    if (args.positional().size() != 1)
        throw UsageError("submit generate and submit train take flags only (--version V ...)");
    for (const char* flag : {"kind", "tc", "params", "c-end", "r-end", "verify"})
        if (args.has(flag))
            throw UsageError("--" + std::string(flag) + " does not go with submit " +
                             args.positional()[0]);
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    if (generate)
        read_generate_spec(args, &spec);
    else
        read_train_spec(args, &spec);
    const bool chain = spec.kind() == v1::RUN_KIND_CHAIN;
    if (chain)
        read_sprt(args, spec.mutable_sprt());
    else if (has_sprt_flags(args))
        throw UsageError("SPRT flags go with the verifications of a chain (--generations)");
    if (spec.kind() != v1::RUN_KIND_TRAIN) read_book(args, spec.mutable_book());
    const v1::RunStatus run = send(args, request);
    if (!args.has("json"))
        std::cout << "run " << run.id() << " submitted: "
                  << (generate ? "self-play data generation with "
                      : chain
                          ? std::to_string(spec.chain().generations()) +
                                (spec.chain().generations() == 1 ? " generation" : " generations") +
                                " of generate, train, verify from "
                          : "training of ")
                  << spec.base_version() << " ('sparring show " << run.id() << "' follows it)\n";
    return 0;
}

// Runs `submit TEST BASE`, `submit tune BASE`, `submit generate` and `submit train`.
int submit(const Flags& args) {
    const std::string first = args.positional().empty() ? "" : args.positional()[0];
    if (first == "generate" || first == "train") return submit_training(args, first == "generate");
    for (const char* flag : kTrainingFlags)
        if (args.has(flag))
            throw UsageError("--" + std::string(flag) + " goes with submit generate or train");
    const bool tune = !args.positional().empty() && args.positional()[0] == "tune";
    if (tune && args.positional().size() != 2)
        throw UsageError("give the version to tune: submit tune BASE --params ...");
    if (!tune && args.positional().size() != 2)
        throw UsageError(
            "give the test version and the base version (see `sparring versions list`)");
    const std::string kind = tune ? "tune" : args.get_string("kind", "regression");
    if (tune && args.has("kind")) throw UsageError("--kind does not go with submit tune");
    if (kind != "regression" && kind != "fixed" && kind != "tune")
        throw UsageError("--kind must be regression or fixed, got '" + kind + "'");
    for (const char* flag : {"params", "c-end", "r-end", "verify", "verify-games"})
        if (!tune && args.has(flag))
            throw UsageError("--" + std::string(flag) + " goes with submit tune BASE");
    const bool regression = kind == "regression";
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    spec.set_kind(tune         ? v1::RUN_KIND_TUNE
                  : regression ? v1::RUN_KIND_REGRESSION
                               : v1::RUN_KIND_FIXED_GAMES);
    spec.set_test_version(args.positional()[tune ? 1 : 0]);
    spec.set_base_version(args.positional()[1]);
    const int64_t games = args.get_int_in("games", regression ? 20000 : 1000, 2, 1'000'000'000);
    if (games % 2) throw UsageError("--games must be even: every opening is played twice");
    spec.set_games(uint64_t(games));
    if (tune) read_tune_spec(args, spec.mutable_tune());
    if (regression || args.has("verify"))
        read_sprt(args, spec.mutable_sprt());
    else if (has_sprt_flags(args))
        throw UsageError("SPRT flags need --kind regression, or submit tune with --verify");
    read_time_control(args, spec.mutable_time_control());
    read_book(args, spec.mutable_book());
    const v1::RunStatus run = send(args, request);
    if (args.has("json")) return 0;
    if (tune)
        std::cout << "run " << run.id() << " submitted: SPSA tuning of " << spec.base_version()
                  << ", " << run.tune().params_size() << " parameters, " << spec.games()
                  << " games ('sparring show " << run.id() << "' follows it)\n";
    else
        std::cout << "run " << run.id() << " submitted: " << spec.test_version() << " vs "
                  << spec.base_version() << ", " << run.book_size() << " openings ('sparring show "
                  << run.id() << "' follows it)\n";
    return 0;
}

}  // namespace

Command submit_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"kind", "K", "regression (SPRT, default) or fixed (exactly --games games)"},
        {"games", "N",
         "fixed, tune: games to play (default 1000); regression: maximum (default 20000)"},
        {"params", "NAMES", "tune: parameters or groups to tune, e.g. Material,BishopPairMg"},
        {"c-end", "C", "tune: perturbation at the last step (default: (max - min) / 20)"},
        {"r-end", "R", "tune: learning rate at the last step (default 0.002)"},
        {"verify", "", "tune: afterwards, an SPRT run of the tuned values against BASE"},
        {"verify-games", "N",
         "tune: most games of the verification (default 20000); train chains: of each "
         "generation's verification (default 2000)"},
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
        {"json", "", "print the run as JSON"},
    });
    return {"submit",
            "start a regression (SPRT), fixed-games, SPSA tuning, self-play generation or "
            "training run",
            "TEST BASE [--kind regression|fixed] [--games N] [--tc TC] ... | "
            "tune BASE --params NAMES [--verify] ... | generate --version V --games N [--nodes "
            "K] ... | train --version V (--data RUN,... | --generations G --games N --nodes K) "
            "...",
            flags, submit};
}

}  // namespace sparring::cli
