#include "coordinator/web/page_parts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/dates.h"
#include "common/json_text.h"
#include "coordinator/web/html.h"
#include "match/adjudication.h"

namespace sparring::coordinator::web {

// Returns the whole document around a page's body.
std::string layout(std::string_view title, std::string_view body, bool scripts) {
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>";
    out += escape_html(title);
    out +=
        " · Sparring</title><link rel=\"stylesheet\" href=\"/static/dygraph.min.css\">"
        "<link rel=\"stylesheet\" href=\"/static/dashboard.css\">"
        "</head><body><header><a class=\"brand\" href=\"/\">Sparring</a><nav>"
        "<a href=\"/\">Runs</a><a href=\"/workers\">Workers</a><a href=\"/versions\">Versions</a>"
        "</nav></header><main>";
    out += body;
    out += "</main>";
    if (scripts)
        out +=
            "<script src=\"/static/dygraph.min.js\"></script>"
            "<script src=\"/static/dashboard.js\"></script>";
    out += "</body></html>\n";
    return out;
}

// Returns a table row of a label and a value that is already HTML.
std::string row(std::string_view label, std::string_view html) {
    return "<tr><th>" + escape_html(label) + "</th><td>" + std::string(html) + "</td></tr>";
}

// Returns a value marked for live updates, with its current text.
std::string live(const std::map<std::string, std::string>& fields, const std::string& name) {
    const auto it = fields.find(name);
    return "<span data-field=\"" + name + "\">" +
           escape_html(it == fields.end() ? "" : it->second) + "</span>";
}

// Returns a live value given its text directly.
std::string live_text(const std::string& name, const std::string& text) {
    return "<span data-field=\"" + name + "\">" + escape_html(text) + "</span>";
}

// Returns how a fault reads: "time loss", "crash", "stall", "illegal move" (its enum name).
std::string fault_text(v1::GameEnding fault) {
    std::string text = v1::GameEnding_Name(fault).substr(sizeof "GAME_ENDING_" - 1);
    for (char& c : text) c = c == '_' ? ' ' : char(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// Returns a worker's fit in its run as `sparring show` and `workers` print it ("p 0.421,
// residual +1.2", "too few pairs", "alone in its class"), quarantine marked.
std::string fit_cell(const v1::WorkerFit& fit) {
    std::string out;
    if (fit.df() > 0)
        out = "p " + p_value_text(fit.p_value()) + ", residual " + signed_fixed(fit.residual(), 1);
    else if (!fit.cpu_class().empty() && fit.class_rest_games() == 0)
        out = "alone in its class";
    else
        out = "too few pairs";
    if (fit.quarantined()) out += " <span class=\"badge h0\">quarantined</span>";
    return out;
}

// Returns the CSS class of a run's state and SPRT outcome: active, h1, h0 or neutral.
std::string outcome_class(const v1::RunStatus& run) {
    if (run.state() == v1::RUN_STATE_ACTIVE) return "active";
    if (run.sprt_outcome() == v1::SPRT_OUTCOME_H1) return "h1";
    if (run.sprt_outcome() == v1::SPRT_OUTCOME_H0) return "h0";
    return "neutral";
}

// Returns whether the run has an SPRT whose LLR means something.
bool has_sprt(const v1::RunStatus& run) {
    return run.llr_upper() > run.llr_lower();
}

// Returns a small SVG error bar of an Elo interval on a fixed scale of +-25 Elo.
std::string elo_bar(const v1::RunStatus& run) {
    const auto x = [](double elo) { return fixed(std::clamp(50 + 2 * elo, 0.0, 100.0), 1); };
    std::string out = "<svg class=\"elobar\" width=\"100\" height=\"12\" viewBox=\"0 0 100 12\">";
    out += "<line x1=\"50\" y1=\"0\" x2=\"50\" y2=\"12\" class=\"zero\"/>";
    out += "<line x1=\"" + x(run.elo_low()) + "\" y1=\"6\" x2=\"" + x(run.elo_high()) +
           "\" y2=\"6\" class=\"ci\"/>";
    out += "<circle cx=\"" + x(run.elo()) + "\" cy=\"6\" r=\"2.5\" class=\"mid\"/></svg>";
    return out;
}

// Returns the LLR as a bar between its bounds, the position marked.
std::string llr_bar(const v1::RunStatus& run) {
    const double share =
        std::clamp((run.llr() - run.llr_lower()) / (run.llr_upper() - run.llr_lower()), 0.0, 1.0);
    return "<span class=\"llrbar\" title=\"LLR " + fixed(run.llr(), 2) + " in [" +
           fixed(run.llr_lower(), 2) + ", " + fixed(run.llr_upper(), 2) +
           "]\"><span class=\"llrmark\" style=\"left:" + fixed(100 * share, 1) +
           "%\"></span></span>";
}

}  // namespace sparring::coordinator::web
