// Run kinds as the dashboard sees them: one entry per kind (run_kinds.cpp) says what the run
// page shows of it, what it needs fetched besides the run, and which of its fields live updates
// carry.
#pragma once

#include <map>
#include <string>

#include "coordinator/web/pages.h"

namespace sparring::coordinator::web {

// One run kind of the dashboard.
struct WebRunKind {
    // What the run page needs fetched besides the run, its series and the viewer.
    enum class Extra { None, TuneHistory, StartVersion };

    v1::RunKind proto_kind;
    // Whether the run's games are a limit a user may change, and a run like it may be
    // submitted again (`submit --like`): regression and fixed-games runs.
    bool games_changeable;
    Extra extra;
    // Returns the kind's sections of the run page (null: none).
    std::string (*section)(const v1::RunStatus& run, const RunExtras& extras);
    // Adds the kind's live fields, sent again with every update (null: none).
    void (*live_fields)(const v1::RunStatus& run, std::map<std::string, std::string>& fields);
};

// Returns the entry of a run kind; a kind this dashboard does not know shows the common parts.
const WebRunKind& web_run_kind(v1::RunKind kind);

}  // namespace sparring::coordinator::web
