// The flags of `sparring export` that select games across runs (cli/export_command.cpp): the
// games of a bulk export, streamed from the coordinator as one .pgn.gz.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparring/v1/user.pb.h"

namespace sparring::cli {

struct ExportSelection {
    std::vector<std::string> versions, tcs, results, kinds;
    std::optional<std::string> since, until;
    std::vector<CLI::Option*> options;  // each of the flags above

    // Declares the flags on app.
    void declare(CLI::App& app);
    // Returns whether any of the flags was given.
    bool any() const;
    // Checks every value and writes the selection into out (the runs are the caller's); throws
    // UsageError naming the flag of a bad value. Versions are checked by the coordinator.
    void read(v1::ExportGamesStreamRequest* out) const;
};

}  // namespace sparring::cli
