// `sparring versions add` with builds per instruction set (issue 52; docs/engines.md "Builds per
// instruction set"): `--engine-file PATH[:LEVEL]` and `--engine-archive FILE[:LEVEL]`, each a
// build of one engine for the level it needs, each verified by the same bench signature here
// where this machine runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparring::cli {

// One build given to `versions add`: its file and the level it needs ("" portable).
struct BuildArg {
    std::string path;
    std::string level;
    bool archive = false;
};

// Reads "PATH[:LEVEL]": a suffix after the last ':' that names a level (x86-64-v3, ...) is
// the level; throws UsageError for a suffix that looks like a level but is none.
BuildArg parse_build_arg(const std::string& text, bool archive);

// Returns the builds in the order they are tried for the engine's options: the lowest level
// first (portable before x86-64 before x86-64-v2 ...), where this machine most likely runs it.
std::vector<const BuildArg*> lowest_level_first(const std::vector<BuildArg>& builds);

// Runs each build's `bench` (after args; an archive unpacked to a scratch directory, its entry
// run) on this machine and returns the signature they share: expected when given, else the
// first computed; 0 when none gave one here. A build that dies of SIGILL needs a CPU this
// machine lacks: skipped with a note on stderr. Throws std::runtime_error (nothing is added)
// when a build computes another signature, or gives none where another build or --bench does
// (an engine without a bench gives none from any build: its builds are not compared).
uint64_t verify_build_benches(const std::vector<BuildArg>& builds, const std::string& entry,
                              const std::vector<std::string>& args,
                              std::optional<uint64_t> expected);

}  // namespace sparring::cli
