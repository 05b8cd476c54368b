#include "cli/spec_flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <random>

#include "cli/book_path.h"
#include "common/printable.h"
#include "common/time_control.h"
#include "match/opening_book.h"
#include "proto/time_control.h"
#include "stats/stats.h"

namespace sparring::cli {

void read_time_control(const std::string& text, v1::TimeControl* out, std::string_view flag) {
    std::string error;
    const auto tc = parse_time_control(text, &error);
    if (!tc) throw UsageError("--" + std::string(flag) + ": " + error);
    time_control_to_proto(*tc, out);
}

void read_book(const SubmitFlags& args, v1::Book* out) {
    const std::string path = args.book ? *args.book : default_book_path();
    const bool pgn_name = path.size() > 4 && path.ends_with(".pgn");
    const std::string format_text = args.book_format.value_or(pgn_name ? "pgn" : "epd");
    const auto format = match::parse_book_format(format_text);
    if (!format) throw UsageError("--book-format must be epd or pgn, got '" + format_text + "'");
    const std::string& order_text = args.book_order;
    const auto order = parse_book_order(order_text);
    if (!order)
        throw UsageError("--book-order must be random or sequential, got '" + order_text + "'");
    std::string error;
    const auto book = match::load_book(path, *format, int(args.book_plies), &error);
    if (!book) throw std::runtime_error(error);
    for (const Opening& o : *book) {
        v1::Opening* opening = out->add_openings();
        opening->set_fen(o.fen);
        for (const std::string& move : o.moves) opening->add_moves(move);
    }
    out->set_random_order(*order == BookOrder::Random);
    out->set_seed(args.seed ? uint64_t(*args.seed) : std::random_device{}());
    out->set_source(valid_utf8(path));
}

void print_warnings(const v1::RunStatus& run) {
    for (const std::string& warning : run.warnings()) std::cerr << "warning: " << warning << "\n";
}

bool has_sprt_flags(const SubmitFlags& args) {
    return std::any_of(args.sprt_options.begin(), args.sprt_options.end(),
                       [](const CLI::Option* option) { return given(option); });
}

void read_sprt(const SubmitFlags& args, v1::Sprt* out) {
    stats::SprtParams sprt;
    sprt.elo0 = args.elo0;
    sprt.elo1 = args.elo1;
    sprt.alpha = args.alpha;
    sprt.beta = args.beta;
    if (!stats::parse_model(args.model, &sprt.model))
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

int64_t read_games(const SubmitFlags& args, int64_t default_games) {
    // Outside 2..10^9, the flag's range check refuses a given value on parsing.
    const int64_t games = args.games.value_or(default_games);
    if (games % 2) throw UsageError("--games must be even: every opening is played twice");
    return games;
}

}  // namespace sparring::cli
