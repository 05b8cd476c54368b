// Run kinds as the dashboard sees them: what the run page and its live updates show
// differently for regression, fixed-games, tuning, generation, training and chain runs sits in
// one entry per kind, in one table (kinds[] below), as the CLI's does (cli/run_kinds.cpp). The
// pages look a run's kind up and call its entry; they never branch on the kind themselves.
#include "coordinator/web/run_kinds.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "coordinator/web/html.h"
#include "coordinator/web/page_parts.h"

namespace sparring::coordinator::web {

namespace {

constexpr size_t kMaxTunePoints = 500;

// Returns a tuning run's section: the digest table and the plot of every parameter.
std::string tune_section(const v1::RunStatus& run, const RunExtras& extras) {
    if (!run.has_tune() || run.tune().params_size() == 0) return "";
    const v1::TuneStatus& tune = run.tune();
    // A run that averages reports the average: a column of its own.
    const bool averages = run.spec().tune().average() > 0;
    std::string out =
        "<h2>Parameters</h2><table class=\"grid\"><thead><tr><th>parameter</th><th>start</th>"
        "<th>current</th>" +
        std::string(averages ? "<th>result (average)</th>" : "") +
        "<th>change</th><th>min</th><th>max</th><th>c</th><th>r</th></tr></thead><tbody>";
    for (int i = 0; i < tune.params_size(); ++i) {
        const v1::TuneParam& p = tune.params(i);
        const double value = i < tune.values_size() ? tune.values(i) : p.start();
        const std::string result =
            averages ? "<td class=\"num\">" +
                           fixed(i < tune.result_size() ? tune.result(i) : value, 1) + "</td>"
                     : "";
        out += "<tr><td>" + escape_html(p.name()) + "</td><td class=\"num\">" +
               fixed(p.start(), 1) + "</td><td class=\"num\"><strong>" + fixed(value, 1) +
               "</strong></td>" + result + "<td class=\"num\">" +
               signed_fixed(value - p.start(), 1) + "</td><td class=\"num\">" + fixed(p.min(), 0) +
               "</td><td class=\"num\">" + fixed(p.max(), 0) + "</td><td class=\"num\">" +
               fixed(p.c_end(), 2) + "</td><td class=\"num\">" + fixed(p.r_end(), 4) + "</td></tr>";
    }
    out += "</tbody></table><p>" + live_text("pairs_applied", grouped(tune.pairs_applied())) +
           " game pairs applied";
    if (tune.pairs_faulty() > 0)
        out += " · " + grouped(tune.pairs_faulty()) +
               " left out: a game of theirs was faulty (time loss, crash, stall, illegal move)";
    if (averages)
        out += " · the result averages the values after each of the last " +
               grouped(tune.averaged_pairs()) + " pairs";
    if (!tune.tuned_version().empty())
        out += " · tuned version <a href=\"/versions/" + escape_url(tune.tuned_version()) + "\">" +
               escape_html(tune.tuned_version()) + "</a>";
    if (tune.verify_run_id() > 0)
        out += " · verified by <a href=\"/runs/" + std::to_string(tune.verify_run_id()) +
               "\">run " + std::to_string(tune.verify_run_id()) + "</a>";
    out +=
        "</p><h2>Parameters against games <span class=\"toggle\"><label><input "
        "type=\"radio\" name=\"tune-scale\" value=\"raw\" checked> values</label> <label>"
        "<input type=\"radio\" name=\"tune-scale\" value=\"share\"> change as a fraction "
        "of c</label></span></h2><div class=\"plot\" id=\"tune-plot\"><p>The plot needs "
        "JavaScript; the table above has every value.</p></div><div class=\"legend\" "
        "id=\"tune-legend\"></div>"
        "<script type=\"application/json\" id=\"tune-data\">" +
        tune_series_json(run, extras.tune) + "</script>";
    return out;
}

// Returns a generation run's section: positions stored and the rate of play.
std::string generate_section(const v1::RunStatus& run, const RunExtras& extras) {
    if (!run.has_generate()) return "";
    const v1::LlrHistory& history = extras.history;
    // An active run's rate runs up to its last counted report.
    const int64_t end = run.finished_unix_ms() > 0 ? run.finished_unix_ms()
                        : history.points().empty() ? 0
                                                   : history.points().rbegin()->unix_ms();
    std::string out = "<h2>Generation</h2><table class=\"kv\">";
    out += row("positions stored", live_text("positions", grouped(run.generate().positions())));
    out += row("positions per game",
               run.games() > 0 ? fixed(double(run.generate().positions()) / double(run.games()), 1)
                               : "n/a");
    if (end > run.created_unix_ms() && run.games() > 0)
        out += row("games per second",
                   fixed(1000.0 * double(run.games()) / double(end - run.created_unix_ms()), 2));
    out += row("seed", std::to_string(run.generate().spec().seed()));
    out += row("filters", escape_html(run.generate().spec().filters()));
    return out + "</table>";
}

// Returns a training run's section: progress, the loss per epoch and the parameters that
// moved most from the version it started from.
std::string train_section(const v1::RunStatus& run, const RunExtras& extras) {
    if (!run.has_train()) return "";
    const v1::Version& start = extras.start;
    const v1::TrainStatus& train = run.train();
    std::string out = "<h2>Training</h2><table class=\"kv\">";
    out += row("epochs", live_text("epoch", std::to_string(train.epoch())) + " of " +
                             std::to_string(run.spec().train().epochs()));
    out += row("positions", grouped(train.positions()));
    out += row("K", fixed(train.k(), 4));
    out += row("loss", fixed(train.initial_loss(), 6) + " at the start" +
                           (train.final_loss() > 0 ? ", " + fixed(train.final_loss(), 6) + " final"
                                                   : std::string()));
    out += "</table><h2>Loss per epoch</h2><div class=\"plot\" id=\"loss-plot\"><p>" +
           std::to_string(train.loss_curve_size()) +
           " epochs recorded.</p></div><script type=\"application/json\" id=\"loss-data\">[";
    for (int i = 0; i < train.loss_curve_size(); ++i)
        out += (i ? "," : "") + std::string("[") + std::to_string(i + 1) + "," +
               fixed(train.loss_curve(i), 8) + "]";
    out += "]</script>";
    if (train.params_json().empty()) return out;
    v1::Version result;
    result.mutable_builtin()->set_params_json(train.params_json());
    const std::map<std::string, std::string> before = version_parameters(start);
    std::vector<std::pair<double, std::string>> moved;
    for (const auto& [name, value] : version_parameters(result)) {
        const auto it = before.find(name);
        if (it == before.end()) continue;
        const double delta =
            std::strtod(value.c_str(), nullptr) - std::strtod(it->second.c_str(), nullptr);
        if (delta != 0) moved.emplace_back(delta, name);
    }
    std::sort(moved.begin(), moved.end(),
              [](const auto& a, const auto& b) { return std::fabs(a.first) > std::fabs(b.first); });
    out +=
        "<h2>Parameters that moved most</h2><table class=\"grid\"><thead><tr><th>parameter"
        "</th><th>" +
        escape_html(start.name()) +
        "</th><th>trained</th><th>change</th></tr>"
        "</thead><tbody>";
    for (size_t i = 0; i < moved.size() && i < 15; ++i) {
        const std::string& name = moved[i].second;
        out += "<tr><td>" + escape_html(name) + "</td><td class=\"num\">" +
               escape_html(before.at(name)) + "</td><td class=\"num\">" +
               fixed(std::strtod(before.at(name).c_str(), nullptr) + moved[i].first, 0) +
               "</td><td class=\"num\">" + signed_fixed(moved[i].first, 0) + "</td></tr>";
    }
    return out + "</tbody></table>";
}

// Returns a chain's section: its generation settings, then each generation with its runs and
// its verification's Elo.
std::string chain_section(const v1::RunStatus& run, const RunExtras& extras) {
    if (!run.has_chain()) return generate_section(run, extras);
    std::string out =
        generate_section(run, extras) +
        "<h2>Generations</h2><table class=\"grid\"><thead><tr><th>#</th><th>version</th>"
        "<th>runs</th><th>trained version</th><th>positions</th><th>final loss</th>"
        "<th>Elo ± 95%</th><th>verification</th></tr></thead><tbody>";
    const auto link = [](int64_t id, const char* label) {
        return id > 0 ? "<a href=\"/runs/" + std::to_string(id) + "\">" + label + "</a> "
                      : std::string();
    };
    for (const v1::ChainGeneration& g : run.chain().generations()) {
        out +=
            "<tr><td>" + std::to_string(g.generation()) + "</td><td>" + escape_html(g.version()) +
            "</td><td>" + link(g.generate_run_id(), "generate") + link(g.train_run_id(), "train") +
            link(g.verify_run_id(), "verify") + "</td><td>" + escape_html(g.trained_version()) +
            "</td><td class=\"num\">" + grouped(g.positions()) + "</td><td class=\"num\">" +
            fixed(g.final_loss(), 6) + "</td><td class=\"num\">" +
            (g.verify_games() > 0 ? signed_fixed(g.elo(), 1) + " [" + signed_fixed(g.elo_low(), 1) +
                                        ", " + signed_fixed(g.elo_high(), 1) + "]"
                                  : std::string()) +
            "</td><td>" + escape_html(g.verify_result()) + "</td></tr>";
    }
    return out + "</tbody></table>";
}

// Adds a tuning run's live field: the pairs applied to its values.
void tune_fields(const v1::RunStatus& run, std::map<std::string, std::string>& fields) {
    if (run.has_tune()) fields["pairs_applied"] = grouped(run.tune().pairs_applied());
}

// Adds a generation run's (or a chain's) live field: the positions stored.
void generate_fields(const v1::RunStatus& run, std::map<std::string, std::string>& fields) {
    if (run.has_generate()) fields["positions"] = grouped(run.generate().positions());
}

// Adds a training run's live field: its epoch.
void train_fields(const v1::RunStatus& run, std::map<std::string, std::string>& fields) {
    if (run.has_train()) fields["epoch"] = std::to_string(run.train().epoch());
}

using Extra = WebRunKind::Extra;

const WebRunKind kinds[] = {
    {v1::RUN_KIND_REGRESSION, true, Extra::None, nullptr, nullptr},
    {v1::RUN_KIND_FIXED_GAMES, true, Extra::None, nullptr, nullptr},
    {v1::RUN_KIND_TUNE, false, Extra::TuneHistory, tune_section, tune_fields},
    {v1::RUN_KIND_GENERATE, false, Extra::None, generate_section, generate_fields},
    {v1::RUN_KIND_TRAIN, false, Extra::StartVersion, train_section, train_fields},
    {v1::RUN_KIND_CHAIN, false, Extra::None, chain_section, generate_fields},
};

// A kind this dashboard does not know (a newer coordinator's): the common parts only.
const WebRunKind unknown = {v1::RUN_KIND_UNSPECIFIED, false, Extra::None, nullptr, nullptr};

}  // namespace

const WebRunKind& web_run_kind(v1::RunKind kind) {
    const auto* it = std::find_if(std::begin(kinds), std::end(kinds),
                                  [kind](const WebRunKind& k) { return k.proto_kind == kind; });
    return it == std::end(kinds) ? unknown : *it;
}

std::string tune_series_json(const v1::RunStatus& run, const v1::TuneHistory& history) {
    nlohmann::json names = nlohmann::json::array();
    for (const std::string& name : history.names()) names.push_back(name);
    std::vector<double> start(size_t(history.names_size()), 0), c(start.size(), 1);
    for (int i = 0; i < run.tune().params_size() && size_t(i) < start.size(); ++i) {
        start[size_t(i)] = run.tune().params(i).start();
        if (run.tune().params(i).c_end() > 0) c[size_t(i)] = run.tune().params(i).c_end();
    }
    nlohmann::json raw = nlohmann::json::array(), share = nlohmann::json::array();
    // A point per report would outweigh the page: the first, then at most kMaxTunePoints
    // spread evenly, the last always among them (as the LLR series is thinned).
    const size_t n = size_t(history.points_size());
    const size_t wanted = std::min(n, kMaxTunePoints);
    std::vector<size_t> chosen;
    if (n > 0) chosen.push_back(0);
    for (size_t j = 1; j <= wanted; ++j) {
        const size_t index = (j * n + wanted - 1) / wanted - 1;
        if (index != chosen.back()) chosen.push_back(index);
    }
    for (const size_t index : chosen) {
        const v1::TunePoint& point = history.points(int(index));
        nlohmann::json a = {2 * point.pairs()}, b = {2 * point.pairs()};
        for (int i = 0; i < point.values_size() && size_t(i) < start.size(); ++i) {
            // Rounded below what a plot shows, so that the page keeps its weight.
            a.push_back(std::round(100 * point.values(i)) / 100);
            b.push_back(std::round(1000 * (point.values(i) - start[size_t(i)]) / c[size_t(i)]) /
                        1000);
        }
        raw.push_back(std::move(a));
        share.push_back(std::move(b));
    }
    return json_text(nlohmann::json{{"names", names}, {"raw", raw}, {"share", share}});
}

}  // namespace sparring::coordinator::web
