// The pieces the dashboard's pages share: the document around a page, table rows, live
// fields, and how a fault and a worker's fit read. For the page files of coordinator/web only.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "sparring/v1/common.pb.h"

namespace sparring::coordinator::web {

// Returns the whole document around a page's body.
std::string layout(std::string_view title, std::string_view body, bool scripts);

// Returns a table row of a label and a value that is already HTML.
std::string row(std::string_view label, std::string_view html);

// Returns a value marked for live updates, with its current text.
std::string live(const std::map<std::string, std::string>& fields, const std::string& name);

// Returns a live value given its text directly.
std::string live_text(const std::string& name, const std::string& text);

// Returns how a fault reads: "time loss", "crash", "stall", "illegal move" (its enum name).
std::string fault_text(v1::GameEnding fault);

// Returns a worker's fit in its run as `sparring show` and `workers` print it ("p 0.421,
// residual +1.2", "too few pairs", "alone in its class"), quarantine marked.
std::string fit_cell(const v1::WorkerFit& fit);

// Returns the CSS class of a run's state and SPRT outcome: active, h1, h0 or neutral.
std::string outcome_class(const v1::RunStatus& run);

// Returns whether the run has an SPRT whose LLR means something.
bool has_sprt(const v1::RunStatus& run);

// Returns a small SVG error bar of an Elo interval on a fixed scale of +-25 Elo.
std::string elo_bar(const v1::RunStatus& run);

// Returns the LLR as a bar between its bounds, the position marked.
std::string llr_bar(const v1::RunStatus& run);

}  // namespace sparring::coordinator::web
