#include "cli/version_builds.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "common/cpu_class.h"
#include "common/engine_archive.h"
#include "common/engine_builds.h"
#include "common/flags.h"
#include "match/bench_run.h"

namespace sparring::cli {

namespace {

constexpr std::chrono::milliseconds kBenchTimeout{300'000};

// Runs one build's bench here; an archive is unpacked to a scratch directory first.
match::BenchRun bench_of(const BuildArg& build, const std::string& entry,
                         const std::vector<std::string>& args) {
    if (!build.archive)
        return match::run_bench(std::filesystem::absolute(build.path).string(), args, {},
                                kBenchTimeout);
    match::BenchRun run;
    const std::string dir = match::make_scratch_dir("sparring-archive", &run.error);
    if (dir.empty()) return run;
    run.error = unpack_archive(build.path, dir, ArchiveLimits{});
    if (run.error.empty()) {
        match::ChildOptions child;
        child.working_dir = dir;
        run = match::run_bench(dir + "/" + entry, args, child, kBenchTimeout);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    return run;
}

}  // namespace

BuildArg parse_build_arg(const std::string& text, bool archive) {
    BuildArg build{text, "", archive};
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return build;
    const std::string suffix = text.substr(colon + 1);
    if (suffix.starts_with("x86-64") || suffix.starts_with("armv")) {
        if (const std::string why = build_level_error(suffix); !why.empty())
            throw UsageError(std::string(archive ? "--engine-archive" : "--engine-file") + " " +
                             text + ": " + why);
        build.path = text.substr(0, colon);
        build.level = suffix;
    }
    return build;
}

std::vector<const BuildArg*> lowest_level_first(const std::vector<BuildArg>& builds) {
    std::vector<const BuildArg*> order;
    for (const BuildArg& b : builds) order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](const BuildArg* a, const BuildArg* b) {
        const int rank_a = a->level.empty() ? -1 : isa_level_rank(a->level);
        const int rank_b = b->level.empty() ? -1 : isa_level_rank(b->level);
        return rank_a < rank_b;
    });
    return order;
}

uint64_t verify_build_benches(const std::vector<BuildArg>& builds, const std::string& entry,
                              const std::vector<std::string>& args,
                              std::optional<uint64_t> expected) {
    std::optional<uint64_t> signature = expected;
    std::string unsigned_build;  // the first build that ran here and printed no signature
    for (const BuildArg& build : builds) {
        const std::string name = build_level_name(build.level) + " build " + build.path;
        std::cerr << "running the bench of the " << name << "...\n";
        const match::BenchRun run = bench_of(build, entry, args);
        if (run.illegal_instruction) {
            std::cerr << "the " << name
                      << " was not verified here: it needs a CPU this machine lacks (it died of "
                         "SIGILL); each worker verifies it at first use\n";
            continue;
        }
        if (run.status != match::BenchRun::Status::Computed) {
            // An engine without a bench: its builds cannot be compared, unless --bench says
            // what they must print. One that does not start is not added.
            if (expected || run.status == match::BenchRun::Status::Error)
                throw std::runtime_error("the " + name + " gave no bench signature here: " +
                                         run.error + " (nothing was added)");
            std::cerr << "the " << name << " gave no bench signature here: " << run.error << "\n";
            if (unsigned_build.empty()) unsigned_build = name;
            continue;
        }
        if (signature && *signature != run.nodes)
            throw std::runtime_error("the " + name + " computes bench " +
                                     std::to_string(run.nodes) + ", not " +
                                     std::to_string(*signature) +
                                     ": builds of one version must search alike (nothing was "
                                     "added)");
        std::cerr << "the " << name << " has bench " << run.nodes << " here\n";
        signature = run.nodes;
    }
    if (signature && !unsigned_build.empty())
        throw std::runtime_error("the " + unsigned_build +
                                 " gave no bench signature and another "
                                 "build did: builds of one version must search alike (nothing "
                                 "was added)");
    if (!signature)
        std::cerr << "no build gave a bench signature here: the version's is not checked (give "
                     "--bench N to have workers check it)\n";
    return signature.value_or(0);
}

}  // namespace sparring::cli
