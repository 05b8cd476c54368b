#include "cli/run_display.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "cli/class_display.h"
#include "cli/fault_display.h"
#include "cli/waiting_display.h"
#include "common/printable.h"
#include "match/adjudication.h"
#include "proto/forecast_text.h"

namespace sparring::cli {

namespace {

// Returns "12.3 [4.5, 20.1]": a value and its confidence interval.
std::string with_interval(double value, double low, double high) {
    return fixed(value, 1) + " [" + fixed(low, 1) + ", " + fixed(high, 1) + "]";
}

// Prints each worker's fit in the run and the purges, below the run's table.
void print_workers(const v1::RunStatus& run) {
    print_classes(run);
    if (run.workers_size() > 0) {
        std::cout << "\nworkers (each against the rest of its CPU class; chi-squared test of the "
                     "pentanomial counts):\n";
        std::vector<std::vector<std::string>> rows = {{"WORKER", "NAME", "CLASS", "GAMES",
                                                       "PENTANOMIAL", "CHI2", "DF", "FIT",
                                                       "TIME LOSSES", "FAULTS"}};
        for (const v1::WorkerFit& w : run.workers()) {
            const auto& p = w.pentanomial();
            rows.push_back(
                {std::to_string(w.worker_id()), w.name(), w.cpu_class(), std::to_string(w.games()),
                 std::to_string(p.ll()) + "," + std::to_string(p.ld()) + "," +
                     std::to_string(p.dd_wl()) + "," + std::to_string(p.wd()) + "," +
                     std::to_string(p.ww()),
                 fixed(w.chi2(), 1), std::to_string(w.df()), fit_text(w),
                 std::to_string(w.time_losses()) +
                     (w.time_losses() > 0 ? " (p " + p_value_text(w.time_loss_p()) + ")" : ""),
                 std::to_string(w.faults()) +
                     (w.faults() > 0 ? " (p " + p_value_text(w.fault_p()) + ")" : "")});
        }
        print_table(rows);
    }
    if (run.clocks_size() > 0) {
        std::cout << "\nclock factors (reference nps over each worker's speed):\n";
        std::vector<std::vector<std::string>> rows = {
            {"WORKER", "NAME", "NPS (LAST)", "FACTOR (LAST)", "FACTOR RANGE", "REPORTS", "PAIRS"}};
        for (const v1::WorkerClock& c : run.clocks())
            rows.push_back({std::to_string(c.worker_id()), c.worker_name(),
                            std::to_string(c.last_nps()), fixed(c.last_factor(), 3),
                            fixed(c.min_factor(), 3) + " - " + fixed(c.max_factor(), 3),
                            std::to_string(c.reports()), std::to_string(c.pairs())});
        print_table(rows);
    }
    if (run.faults_size() > 0) {
        std::cout << "\ngames lost by faults:\n";
        std::vector<std::vector<std::string>> rows = {{"VERSION", "FAULT", "WORKER", "GAMES"}};
        for (const v1::FaultCount& f : run.faults()) {
            std::string fault = v1::GameEnding_Name(f.fault()).substr(sizeof "GAME_ENDING_" - 1);
            for (char& c : fault)
                c = c == '_' ? ' ' : char(std::tolower(static_cast<unsigned char>(c)));
            rows.push_back({f.version(), fault,
                            std::to_string(f.worker_id()) + " " + f.worker_name(),
                            std::to_string(f.games())});
        }
        print_table(rows);
    }
    if (run.output_warnings_size() > 0) {
        // Each line the engine wrote is the engine's text: printable, and cut.
        std::cout << "\nengine-output warnings (they decide no game; docs/engines.md):\n";
        for (const v1::OutputWarningCount& w : run.output_warnings())
            std::cout << "  " << printable(w.line()) << " (" << w.count()
                      << (w.count() == 1 ? " line; game " : " lines; game ") << w.example_game()
                      << ": '" << printable(w.example(), 120) << "' after '"
                      << printable(w.go(), 60) << "')\n";
    }
    for (const v1::Purge& p : run.purges())
        std::cout << "purged: worker " << p.worker_id() << " (" << p.worker_name() << "), "
                  << p.games() << " games (W/D/L " << p.wins() << "/" << p.draws() << "/"
                  << p.losses() << "), by '" << p.purged_by() << "' at " << utc(p.unix_ms())
                  << "\n";
    print_run_changes(run);
}

}  // namespace

void print_run_changes(const v1::RunStatus& run, uint32_t changes_offset) {
    // Users chose the values: printable, as every cell of a table.
    for (const v1::RunChange& c : run.changes())
        std::cout << "changed: " << printable(c.field()) << " '" << printable(c.old_value())
                  << "' -> '" << printable(c.new_value()) << "' by '" << printable(c.user())
                  << "' at " << utc(c.changed_unix_ms()) << "\n";
    // A run's status carries a page of its changes, the latest first in line.
    const uint64_t shown_back = uint64_t(changes_offset) + uint64_t(run.changes_size());
    if (run.change_count() > shown_back)
        std::cout << "changes: " << run.change_count() - shown_back << " earlier of "
                  << run.change_count() << " (sparring show " << run.id() << " --changes-offset "
                  << shown_back << ")\n";
}

std::string fit_text(const v1::WorkerFit& fit) {
    std::string text;
    if (fit.df() > 0)
        text = "p " + p_value_text(fit.p_value()) + ", residual " +
               (fit.residual() >= 0 ? "+" : "") + fixed(fit.residual(), 1);
    else if (!fit.cpu_class().empty() && fit.class_rest_games() == 0)
        text = "alone in its class";  // nothing of its kind to test it against
    else
        text = "too few pairs";
    if (fit.quarantined()) text += " QUARANTINED";
    return text;
}

void print_table(const std::vector<std::vector<std::string>>& raw_rows) {
    // Cells carry names and messages that users and workers chose: a terminal escape or a
    // newline in one must not reach the terminal.
    std::vector<std::vector<std::string>> rows;
    for (const auto& raw : raw_rows) {
        std::vector<std::string>& row = rows.emplace_back();
        for (const std::string& cell : raw) row.push_back(printable(cell));
    }
    // A cell's width on the terminal: its UTF-8 characters ("±" is one), not its bytes.
    const auto width = [](const std::string& cell) {
        return size_t(std::count_if(cell.begin(), cell.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    };
    std::vector<size_t> widths;
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) {
            if (widths.size() <= i) widths.push_back(0);
            widths[i] = std::max(widths[i], width(row[i]));
        }
    for (const auto& row : rows) {
        std::string line;
        for (size_t i = 0; i < row.size(); ++i)
            line += row[i] +
                    (i + 1 < row.size() ? std::string(widths[i] - width(row[i]) + 2, ' ') : "");
        std::cout << line << "\n";
    }
}

std::string utc(int64_t unix_ms) {
    if (unix_ms == 0) return "-";
    const std::time_t seconds = unix_ms / 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return text;
}

std::string state_name(v1::RunState state) {
    switch (state) {
        case v1::RUN_STATE_ACTIVE:
            return "active";
        case v1::RUN_STATE_FINISHED:
            return "finished";
        case v1::RUN_STATE_STOPPED:
            return "stopped";
        case v1::RUN_STATE_PAUSED:
            return "paused";
        default:
            return "?";
    }
}

std::string state_text(const v1::RunStatus& run, std::string_view separator) {
    const std::string state = state_name(run.state());
    const std::string& result = run.result();
    if (result.empty()) return state;
    const bool says_state =
        result.rfind(state, 0) == 0 && (result.size() == state.size() ||
                                        result[state.size()] == ' ' || result[state.size()] == ':');
    return says_state ? result : state + std::string(separator) + result;
}

namespace {

// Adds a run's Elo, nElo and LOS rows.
void add_elo_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    rows.push_back({"Elo", with_interval(run.elo(), run.elo_low(), run.elo_high()) + "  (95%)"});
    if (run.has_elo_unbiased())
        rows.push_back({"Elo unbiased", with_interval(run.elo_unbiased(), run.elo_unbiased_low(),
                                                      run.elo_unbiased_high()) +
                                            "  (median-unbiased at the SPRT's stop, 95%)"});
    rows.push_back({"nElo", with_interval(run.nelo(), run.nelo_low(), run.nelo_high())});
    rows.push_back({"LOS", fixed(100 * run.los(), 1) + "%"});
}

// Adds a run's SPRT settings and its LLR between the bounds.
void add_sprt_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    const auto& s = run.spec().sprt();
    rows.push_back(
        {"SPRT", "elo0=" + fixed(s.elo0(), 2) + " elo1=" + fixed(s.elo1(), 2) +
                     " alpha=" + fixed(s.alpha(), 3) + " beta=" + fixed(s.beta(), 3) + " model=" +
                     (s.model() == v1::SPRT_MODEL_LOGISTIC ? "logistic" : "normalized")});
    rows.push_back({"LLR", fixed(run.llr(), 3) + " (bounds " + fixed(run.llr_lower(), 3) + ", " +
                               fixed(run.llr_upper(), 3) + ")"});
}

// Adds the rows of a run's settings beyond its games: adjudication, priority, where it came
// from and what follows it, threads and a scaled clock.
void add_setting_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    const v1::RunSpec& spec = run.spec();
    if (spec.has_adjudication())
        rows.push_back(
            {"adjudication",
             match::adjudication_summary(spec.adjudication().draw(), spec.adjudication().resign(),
                                         int(spec.adjudication().max_plies()))});
    rows.push_back({"priority", std::to_string(spec.priority()) + ", throughput " +
                                    std::to_string(spec.throughput()) + "%"});
    if (spec.origin_run_id() != 0)
        rows.push_back({"like", "run " + std::to_string(spec.origin_run_id()) +
                                    " (submitted with `sparring submit --like " +
                                    std::to_string(spec.origin_run_id()) + "`)"});
    if (spec.has_follow_up()) {
        std::string text = follow_up_text(spec.follow_up());
        text += run.follow_up_run_id() > 0
                    ? "; started run " + std::to_string(run.follow_up_run_id())
                    : "; not started";
        rows.push_back({"follow-up", text});
    }
    if (run.follows_run_id() > 0)
        rows.push_back({"follows", "run " + std::to_string(run.follows_run_id()) +
                                       " (this run is its follow-up)"});
    if (spec.threads() > 1)
        rows.push_back({"threads", std::to_string(spec.threads()) +
                                       " per UCI engine (a game holds as many cores; the "
                                       "built-in engine searches with one)"});
    if (spec.reference_nps() > 0)
        rows.push_back({"scaled clock", "defined at " + std::to_string(spec.reference_nps()) +
                                            " nodes per second of " + spec.test_version() +
                                            "; each worker plays it times reference / its speed"});
}

}  // namespace

void print_game_run(const v1::RunStatus& run, const GameRunLayout& layout) {
    const v1::RunSpec& spec = run.spec();
    const auto& p = run.pentanomial();
    std::vector<std::vector<std::string>> rows = {
        {"run", std::to_string(run.id())},
        {"kind", std::string(layout.label)},
        {"state", state_text(run)},
        {"test", spec.test_version()},
        {"base", spec.base_version()},
        {"time control", time_control_text(spec.time_control())},
        {"book", spec.book().source() + " (" + std::to_string(run.book_size()) + " openings, " +
                     (spec.book().random_order()
                          ? "random order, seed " + std::to_string(spec.book().seed())
                          : std::string("sequential")) +
                     ")"},
        {"games", std::to_string(run.games()) + " of " + (layout.games_at_most ? "at most " : "") +
                      std::to_string(spec.games())},
        {"W/D/L", std::to_string(run.wins()) + " / " + std::to_string(run.draws()) + " / " +
                      std::to_string(run.losses())},
        {"pentanomial", std::to_string(p.ll()) + ", " + std::to_string(p.ld()) + ", " +
                            std::to_string(p.dd_wl()) + ", " + std::to_string(p.wd()) + ", " +
                            std::to_string(p.ww()) + "  (LL, LD, DD+WL, WD, WW)"},
    };
    if (layout.against_itself) {
        rows[3] = {"version", spec.base_version()};
        rows.erase(rows.begin() + 4);
        rows[rows.size() - 2][0] = "W/D/L (+/-)";
        rows.back()[0] = "pentanomial (+/-)";
    } else {
        add_elo_rows(run, rows);
    }
    if (layout.sprt) add_sprt_rows(run, rows);
    for (ForecastRow& row : forecast_rows(run))  // when it ends (docs/statistics.md)
        rows.push_back({std::move(row.label), std::move(row.text)});
    add_setting_rows(run, rows);
    rows.push_back({"in progress", std::to_string(run.pairs_leased()) + " pairs on " +
                                       std::to_string(run.active_workers()) + " workers, " +
                                       std::to_string(run.active_cores()) + " cores"});
    add_waiting_rows(run, rows);
    add_fault_rows(run, rows);
    rows.push_back({"created", utc(run.created_unix_ms()) +
                                   (spec.owner().empty() ? "" : " by " + spec.owner())});
    rows.push_back({"finished", utc(run.finished_unix_ms())});
    if (!spec.description().empty()) rows.push_back({"description", spec.description()});
    for (const auto& m : run.bench_mismatches())
        rows.push_back({"bench mismatch", "worker " + std::to_string(m.worker_id()) + " computed " +
                                              std::to_string(m.computed()) + " for " + m.version() +
                                              " (expected " + std::to_string(m.expected()) + ")" +
                                              (m.message().empty() ? "" : ": " + m.message())});
    for (const std::string& warning : run.warnings()) rows.push_back({"warning", warning});
    add_class_finding_rows(run, rows);
    for (auto& row : rows) row[0] += ":";
    print_table(rows);
    print_workers(run);
}

}  // namespace sparring::cli
