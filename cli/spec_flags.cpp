#include "cli/spec_flags.h"

#include <random>

#include "cli/book_path.h"
#include "common/printable.h"
#include "common/time_control.h"
#include "match/opening_book.h"
#include "proto/time_control.h"
#include "stats/stats.h"

namespace sparring::cli {

void read_time_control(const Flags& args, v1::TimeControl* out, const char* flag) {
    std::string error;
    const auto tc = parse_time_control(args.get_string(flag), &error);
    if (!tc) throw UsageError("--" + std::string(flag) + ": " + error);
    time_control_to_proto(*tc, out);
}

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
    out->set_source(valid_utf8(path));
}

bool has_sprt_flags(const Flags& args) {
    return args.has("elo0") || args.has("elo1") || args.has("alpha") || args.has("beta") ||
           args.has("model");
}

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

int64_t read_games(const Flags& args, int64_t default_games) {
    const int64_t games = args.get_int_in("games", default_games, 2, 1'000'000'000);
    if (games % 2) throw UsageError("--games must be even: every opening is played twice");
    return games;
}

}  // namespace sparring::cli
