// `sparring stats`: Elo, LOS, normalized Elo and the SPRT of result counts given on the
// command line, as text or JSON.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "common/json_text.h"
#include "common/numbers.h"
#include "stats/stats.h"

namespace sparring::cli {

namespace {

namespace st = sparring::stats;

// The flags of `sparring stats`, and its arguments.
struct StatsFlags {
    std::vector<int64_t> penta, wdl;
    std::optional<double> elo0, elo1;
    double alpha = 0, beta = 0;
    std::string model;
    CLI::Option* penta_option = nullptr;
    CLI::Option* wdl_option = nullptr;
    std::vector<CLI::Option*> sprt_options;  // --alpha, --beta and --model
    bool json = false;
    std::vector<std::string> arguments;

    // Declares the flags on app.
    explicit StatsFlags(CLI::App& app) {
        penta_option = add_flag(app, "penta", penta, "LL,LD,DD+WL,WD,WW",
                                "pentanomial game-pair counts, from player 1's side");
        wdl_option = add_flag(app, "wdl", wdl, "W,D,L",
                              "trinomial game counts: wins, draws, losses of player 1");
        add_flag(app, "elo0", elo0, "E0", "SPRT null hypothesis (Elo of the model)");
        add_flag(app, "elo1", elo1, "E1", "SPRT alternative hypothesis, greater than E0");
        sprt_options = {add_flag(app, "alpha", alpha, "A", "SPRT false-positive rate", "0.05"),
                        add_flag(app, "beta", beta, "B", "SPRT false-negative rate", "0.05"),
                        add_flag(app, "model", model, "M", "SPRT Elo model: normalized or logistic",
                                 "normalized")};
        add_switch(app, "json", json, "print one JSON object");
        add_arguments(app, arguments);
    }
};

// The counts of one kind, as given.
struct Counts {
    std::optional<st::Trinomial> wdl;
    std::optional<st::Pentanomial> penta;
};

// Reads exactly `expected` counts from a list flag; throws UsageError otherwise.
std::vector<int64_t> read_counts(const std::vector<int64_t>& counts, std::string_view name,
                                 std::size_t expected, std::string_view layout) {
    if (counts.size() != expected)
        throw UsageError("--" + std::string(name) + " needs " + std::to_string(expected) +
                         " counts " + std::string(layout) + ", got " +
                         std::to_string(counts.size()));
    return counts;
}

// Reads --penta or --wdl, exactly one of them.
Counts read_results(const StatsFlags& args) {
    if (given(args.penta_option) == given(args.wdl_option))
        throw UsageError("give exactly one of --penta and --wdl");
    Counts counts;
    if (given(args.penta_option)) {
        const auto c = read_counts(args.penta, "penta", 5, "LL,LD,DD+WL,WD,WW");
        counts.penta = st::Pentanomial{{c[0], c[1], c[2], c[3], c[4]}};
    } else {
        const auto c = read_counts(args.wdl, "wdl", 3, "W,D,L");
        counts.wdl = st::Trinomial{c[2], c[1], c[0]};
    }
    return counts;
}

// Reads the SPRT parameters, or nullopt when no hypotheses are given.
std::optional<st::SprtParams> read_sprt(const StatsFlags& args) {
    if (!args.elo0 && !args.elo1) {
        for (const CLI::Option* option : args.sprt_options)
            if (given(option)) throw UsageError(option->get_name() + " needs --elo0 and --elo1");
        return std::nullopt;
    }
    if (!args.elo0 || !args.elo1) throw UsageError("--elo0 and --elo1 go together");
    st::SprtParams p;
    p.elo0 = *args.elo0;
    p.elo1 = *args.elo1;
    p.alpha = args.alpha;
    p.beta = args.beta;
    const std::string& model = args.model;
    if (!st::parse_model(model, &p.model))
        throw UsageError("--model: '" + model + "' is not logistic or normalized");
    if (std::string error = st::validate(p); !error.empty()) throw UsageError(error);
    return p;
}

// Returns a number with ten significant digits, as the JSON output shows it: whole numbers
// without a fraction, as printf's %g writes them.
nlohmann::ordered_json json_number(double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.10g", x);
    const double rounded = std::strtod(buffer, nullptr);
    if (std::abs(rounded) < 1e10 && rounded == std::trunc(rounded)) return int64_t(rounded);
    return rounded;
}

// Prints the results as aligned text.
void print_text(const Counts& counts, const st::EloEstimate& e,
                const std::optional<st::SprtParams>& params, const st::SprtResult& r) {
    std::ostringstream out;
    if (counts.penta) {
        const auto& c = counts.penta->counts;
        out << "Games   " << e.games << " (" << e.pairs << " pairs: LL " << c[0] << ", LD " << c[1]
            << ", DD+WL " << c[2] << ", WD " << c[3] << ", WW " << c[4] << ")\n";
    } else {
        out << "Games   " << e.games << " (W " << counts.wdl->wins << ", D " << counts.wdl->draws
            << ", L " << counts.wdl->losses << ")\n";
    }
    out << "Score   " << fixed(100 * e.score, 2) << "%\n"
        << "Elo     " << fixed(e.elo, 2) << " +- " << fixed((e.elo_high - e.elo_low) / 2, 2)
        << "  [" << fixed(e.elo_low, 2) << ", " << fixed(e.elo_high, 2) << "] (95%)\n"
        << "LOS     " << fixed(100 * e.los, 2) << "%\n"
        << "nElo    " << fixed(e.nelo, 2) << " +- " << fixed((e.nelo_high - e.nelo_low) / 2, 2)
        << "  [" << fixed(e.nelo_low, 2) << ", " << fixed(e.nelo_high, 2) << "] (95%)\n";
    if (params) {
        out << "SPRT    " << st::model_name(params->model) << " elo0 " << fixed(params->elo0, 2)
            << " elo1 " << fixed(params->elo1, 2) << " alpha " << params->alpha << " beta "
            << params->beta << "\n"
            << "LLR     " << fixed(r.llr, 2) << "  [" << fixed(r.lower, 2) << ", "
            << fixed(r.upper, 2) << "]  " << st::state_name(r.state) << "\n";
    }
    std::cout << out.str();
}

// Prints the results as one JSON object (non-finite numbers as null).
void print_json(const Counts& counts, const st::EloEstimate& e,
                const std::optional<st::SprtParams>& params, const st::SprtResult& r) {
    nlohmann::ordered_json out;
    if (counts.penta)
        out["penta"] = counts.penta->counts;
    else
        out["wdl"] = {counts.wdl->wins, counts.wdl->draws, counts.wdl->losses};
    out["games"] = e.games;
    out["pairs"] = e.pairs;
    const std::pair<const char*, double> estimates[] = {
        {"score", e.score}, {"elo", e.elo},   {"elo_low", e.elo_low},   {"elo_high", e.elo_high},
        {"los", e.los},     {"nelo", e.nelo}, {"nelo_low", e.nelo_low}, {"nelo_high", e.nelo_high}};
    for (const auto& [key, value] : estimates) out[key] = json_number(value);
    if (params) {
        nlohmann::ordered_json sprt;
        sprt["model"] = std::string(st::model_name(params->model));
        const std::pair<const char*, double> values[] = {
            {"elo0", params->elo0}, {"elo1", params->elo1}, {"alpha", params->alpha},
            {"beta", params->beta}, {"llr", r.llr},         {"lower", r.lower},
            {"upper", r.upper}};
        for (const auto& [key, value] : values) sprt[key] = json_number(value);
        sprt["state"] = std::string(st::state_name(r.state));
        out["sprt"] = std::move(sprt);
    }
    std::cout << json_text(out) << "\n";
}

// Computes and prints the statistics of the counts on the command line.
int run_stats(const StatsFlags& args) {
    if (!args.arguments.empty())
        throw UsageError("unexpected argument '" + args.arguments.front() + "'");
    const Counts counts = read_results(args);
    const std::optional<st::SprtParams> params = read_sprt(args);
    st::EloEstimate e;
    st::SprtResult r;
    try {
        e = counts.penta ? st::estimate(*counts.penta) : st::estimate(*counts.wdl);
        if (params)
            r = counts.penta ? st::sprt(*counts.penta, *params) : st::sprt(*counts.wdl, *params);
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    if (args.json)
        print_json(counts, e, params, r);
    else
        print_text(counts, e, params, r);
    return 0;
}

}  // namespace

Command stats_command() {
    return {"stats", "Elo, LOS, normalized Elo and SPRT log-likelihood ratio of result counts",
            "(--penta LL,LD,DD+WL,WD,WW | --wdl W,D,L) [--elo0 E0 --elo1 E1 [--alpha A] "
            "[--beta B] [--model M]] [--json]",
            declare_flags<StatsFlags, run_stats>};
}

}  // namespace sparring::cli
