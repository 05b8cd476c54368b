// `sparring tune-history` and the tuning parts of `submit`, `show` and `versions add`.
#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/engine_options.h"
#include "cli/run_kinds.h"
#include "cli/tune.h"
#include "common/printable.h"
#include "common/progress.h"
#include "engine/params.h"

namespace sparring::cli {

namespace {

// Returns a parameter name without "Value", for short progress lines: "KnightMg".
std::string short_name(std::string name) {
    if (const size_t at = name.find("Value"); at != std::string::npos) name.erase(at, 5);
    return name;
}

}  // namespace

std::string values_line(const v1::TuneStatus& tune) {
    std::map<std::string, size_t> index;
    for (int i = 0; i < tune.params_size(); ++i) index[tune.params(i).name()] = size_t(i);
    std::string line;
    std::set<std::string> done;
    for (int i = 0; i < tune.params_size(); ++i) {
        const std::string& name = tune.params(i).name();
        if (done.count(name)) continue;
        const std::string value = std::to_string(std::lround(tune.values(i)));
        const std::string stem = name.size() > 2 ? name.substr(0, name.size() - 2) : name;
        const auto eg = index.find(stem + "Eg");
        if (name.ends_with("Mg") && eg != index.end()) {
            line += " " + short_name(stem) + " " + value + "/" +
                    std::to_string(std::lround(tune.values(int(eg->second))));
            done.insert(stem + "Eg");
        } else {
            line += " " + short_name(name) + " " + value;
        }
    }
    return line;
}

namespace {

// The flags of `sparring tune-history`: --csv.
struct TuneHistoryFlags : SwitchFlags {
    // Declares the flags on app.
    explicit TuneHistoryFlags(CLI::App& app)
        : SwitchFlags(
              app, "csv",
              "print comma-separated values (pairs, games, unix_ms, one column a parameter)") {}
};

// Runs `tune-history RUN [--csv]`.
int tune_history(const TuneHistoryFlags& args) {
    if (args.arguments.size() != 1) throw UsageError("give one tuning run id");
    v1::GetTuneHistoryRequest request;
    request.set_run_id(parse_run_id(args.arguments[0]));
    RemoteClient client(args.remote);
    v1::TuneHistory history;
    client.call(&v1::UserService::Stub::GetTuneHistory, request, &history);
    if (print_if_json(args.json, history)) return 0;
    const bool csv = args.on;  // --csv
    const std::string separator = csv ? "," : " ";
    std::ostringstream out;
    std::vector<size_t> widths = {7, 7};
    out << (csv ? "pairs,games,unix_ms" : "  PAIRS   GAMES");
    for (const std::string& name : history.names()) {
        widths.push_back(std::max<size_t>(name.size(), 7));
        out << separator << (csv ? name : std::string(widths.back() - name.size(), ' ') + name);
    }
    out << "\n";
    for (const v1::TunePoint& point : history.points()) {
        if (csv) {
            out << point.pairs() << "," << 2 * point.pairs() << "," << point.unix_ms();
            for (double value : point.values()) out << "," << fixed(value, 3);
        } else {
            const std::string pairs = std::to_string(point.pairs());
            const std::string games = std::to_string(2 * point.pairs());
            out << std::string(widths[0] - std::min(widths[0], pairs.size()), ' ') << pairs << " "
                << std::string(widths[1] - std::min(widths[1], games.size()), ' ') << games;
            for (int i = 0; i < point.values_size(); ++i) {
                const std::string value = fixed(point.values(i), 1);
                const size_t width = widths[size_t(i) + 2];
                out << " " << std::string(width - std::min(width, value.size()), ' ') << value;
            }
        }
        out << "\n";
    }
    std::cout << out.str();
    return 0;
}

}  // namespace

void read_tune_spec(const SubmitFlags& args, v1::TuneSpec* out) {
    const std::vector<std::string>& each = args.param;
    if (!args.params && each.empty() && !args.params_file)
        throw UsageError(
            "--params is required: parameter names or groups (e.g. Material); or --param "
            "NAME[:START:MIN:MAX:C_END:R_END] or --params-file FILE for an engine's options");
    std::set<std::string> groups;
    for (const ParamSpec& p : param_registry()) groups.insert(std::string(p.group));
    std::istringstream items(args.params.value_or(""));
    for (std::string item; std::getline(items, item, ',');) {
        if (groups.count(item)) {
            for (const ParamSpec& p : param_registry())
                if (p.group == item) out->add_params()->set_name(std::string(p.name));
        } else if (param_index(item)) {
            out->add_params()->set_name(item);
        } else {
            throw UsageError("--params: '" + item + "' is neither a parameter nor a group");
        }
    }
    // Engine options are checked by the coordinator against the version's engine.
    for (const std::string& text : each) *out->add_params() = parse_tune_param(text);
    if (args.params_file) {
        const std::string& file = *args.params_file;
        std::ifstream in(file);
        if (!in) throw UsageError("--params-file: cannot read " + file);
        std::ostringstream text;
        text << in.rdbuf();
        for (v1::TuneParam& p : parse_params_file(text.str(), file)) *out->add_params() = p;
    }
    for (v1::TuneParam& p : *out->mutable_params()) {
        if (args.c_end && !p.has_c_end()) p.set_c_end(*args.c_end);
        if (args.r_end && !p.has_r_end()) p.set_r_end(*args.r_end);
    }
    if (args.average) {
        if (!(*args.average >= 0 && *args.average < 1))
            throw UsageError("--average must be a fraction from 0 to below 1, e.g. 0.4");
        out->set_average(*args.average);
    }
    out->set_verify(args.verify);
    if (args.verify_games && !args.verify) throw UsageError("--verify-games needs --verify");
    if (args.verify_fixed && !args.verify) throw UsageError("--verify-fixed needs --verify");
    if (args.verify_seed && !args.verify) throw UsageError("--verify-seed needs --verify");
    if (args.verify) {
        out->set_verify_fixed(args.verify_fixed);
        const int64_t games = args.verify_games.value_or(args.verify_fixed ? 8000 : 20000);
        if (games < 2 || games % 2 || games > 1'000'000'000)
            throw UsageError("--verify-games must be a positive even number");
        out->set_verify_games(uint64_t(games));
        if (args.verify_seed) out->set_verify_seed(uint64_t(*args.verify_seed));
    }
}

void print_tune(const v1::RunStatus& run, RemoteClient& client) {
    if (run.verifies_run_id())
        std::cout << "verifies:     tuning run " << run.verifies_run_id() << "\n";
    if (!run.has_tune()) return;
    const v1::TuneStatus& tune = run.tune();
    std::cout << "pairs applied: " << tune.pairs_applied() << " of " << run.spec().games() / 2;
    // A pair with a faulty game (time loss, crash, stall, illegal move) moves no value.
    if (tune.pairs_faulty() > 0)
        std::cout << " (" << tune.pairs_faulty() << " left out: a game of theirs was faulty)";
    std::cout << "\n\n";
    // A run that averages shows the average it reports beside the current values.
    const bool averages = run.spec().tune().average() > 0;
    if (averages)
        std::cout << "result:       the average of the values after each of the last "
                  << tune.averaged_pairs() << " pairs (averaging the last "
                  << fixed(100 * run.spec().tune().average(), 0) << "% of the run's pairs)\n\n";
    std::vector<std::vector<std::string>> rows = {
        {"PARAMETER", "START", "VALUE", "CHANGE", "MIN", "MAX", "C_END", "R_END"}};
    if (averages) rows[0].insert(rows[0].begin() + 3, "RESULT");
    for (int i = 0; i < tune.params_size(); ++i) {
        const v1::TuneParam& p = tune.params(i);
        const double change = tune.values(i) - p.start();
        rows.push_back({printable(p.name()), fixed(p.start(), 0), fixed(tune.values(i), 1),
                        (change >= 0 ? "+" : "") + fixed(change, 1), fixed(p.min(), 0),
                        fixed(p.max(), 0), fixed(p.c_end(), 2), fixed(p.r_end(), 4)});
        if (averages)
            rows.back().insert(rows.back().begin() + 3,
                               fixed(i < tune.result_size() ? tune.result(i) : tune.values(i), 1));
    }
    std::vector<size_t> widths(rows[0].size(), 0);
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    for (const auto& row : rows) {
        std::string line = row[0] + std::string(widths[0] - row[0].size(), ' ');
        for (size_t i = 1; i < row.size(); ++i)
            line += "  " + std::string(widths[i] - row[i].size(), ' ') + row[i];
        std::cout << line << "\n";
    }
    if (!run.spec().tune().verify()) return;
    std::cout << "\n";
    if (!tune.verify_run_id()) {
        const v1::TuneSpec& spec = run.spec().tune();
        std::cout << "verification: starts when the tuning finishes ("
                  << (spec.verify_fixed() ? "" : "up to ") << spec.verify_games()
                  << (spec.verify_fixed() ? " fixed games" : " games, SPRT")
                  << (spec.has_verify_seed() ? ", book seed " + std::to_string(spec.verify_seed())
                                             : std::string())
                  << ")\n";
        return;
    }
    v1::GetRunRequest request;
    request.set_run_id(tune.verify_run_id());
    v1::RunStatus verify;
    client.call(&v1::UserService::Stub::GetRun, request, &verify);
    std::cout << "verification: run " << verify.id() << ", " << printable(tune.tuned_version())
              << " vs " << printable(verify.spec().base_version()) << ": "
              << (verify.state() == v1::RUN_STATE_ACTIVE ? "active" : printable(verify.result()))
              << "\n"
              << "  games " << verify.games() << ", Elo " << fixed(verify.elo(), 1) << " ["
              << fixed(verify.elo_low(), 1) << ", " << fixed(verify.elo_high(), 1) << "] (95%)";
    if (verify.spec().kind() == v1::RUN_KIND_REGRESSION)
        std::cout << ", LLR " << fixed(verify.llr(), 2) << " (" << fixed(verify.llr_lower(), 2)
                  << ", " << fixed(verify.llr_upper(), 2) << ")";
    std::cout << "\n";
}

void watch_run(int64_t run_id, RemoteClient& client) {
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    ConsoleProgress progress;
    for (bool first = true;; first = false) {
        v1::RunStatus run;
        client.call(&v1::UserService::Stub::GetRun, request, &run);
        const bool over = run.state() != v1::RUN_STATE_ACTIVE;
        progress.show(cli_run_kind(run.spec().kind()).progress(run), first || over);
        if (over) {
            progress.finish();
            std::cerr << "run " << run_id << " " << run.result() << "\n";
            return;
        }
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
}

Command tune_history_command() {
    return {"tune-history", "show how a tuning run's parameter values moved, pair by pair",
            "RUN [--csv]", declare_flags<TuneHistoryFlags, tune_history>};
}

}  // namespace sparring::cli
