#include "worker/signature.h"

#include "engine/params.h"
#include "match/bench_cache.h"
#include "match/bench_run.h"
#include "match/child_process.h"
#include "match/engine_options.h"

namespace sparring::worker {

namespace {

// Runs `COMMAND ARGS... bench` of an external engine, confined like the engine's games.
Signature run_bench_command(const v1::Version& version, const std::string& command,
                            std::vector<std::string> args, const BenchOptions& options) {
    match::ChildOptions child = engine_confinement(version, command, options.limits);
    child.cpu_limit_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(options.timeout).count() + 1;
    const match::BenchRun run = match::run_bench(command, std::move(args), child, options.timeout);
    Signature result;
    result.status = run.status == match::BenchRun::Status::Computed ? Signature::Status::Computed
                    : run.status == match::BenchRun::Status::NoSignature
                        ? Signature::Status::NoSignature
                        : Signature::Status::Error;
    result.nodes = run.nodes;
    result.error = run.error;
    result.illegal_instruction = run.illegal_instruction;
    return result;
}

}  // namespace

Signature signature_of(const v1::Version& version, const BenchOptions& options,
                       const EnginePaths& engines) {
    if (version.has_uci()) return run_bench_command(version, version.uci().command(), {}, options);
    Signature result;
    if (version.has_uploaded()) {
        const auto path = engines.find(version.uploaded().sha256());
        if (path == engines.end()) {
            result.error = "version '" + version.name() + "': its engine file is not fetched";
            return result;
        }
        const std::vector<std::string> args(version.uploaded().args().begin(),
                                            version.uploaded().args().end());
        return run_bench_command(version, path->second, args, options);
    }
    const auto params =
        ParamSet::from_json(version.builtin().params_json(), ParamSet(), &result.error);
    if (!params) return result;
    const BuiltinBench bench = builtin_bench(*params);
    result.status = Signature::Status::Computed;
    result.nodes = bench.nodes;
    result.cached = bench.cached;
    return result;
}

std::optional<std::string> engine_options_difference(const v1::Version& version,
                                                     const EnginePaths& engines,
                                                     const EngineLimits& limits,
                                                     std::string* error) {
    const std::optional<match::UciSpec> engine = confined_engine(version, limits, engines, error);
    if (!engine) return std::nullopt;
    const auto reported = match::read_engine_options(*engine, 10'000, error);
    if (!reported) return std::nullopt;
    std::vector<match::EngineOption> recorded;
    for (const v1::EngineOption& o : version.options())
        recorded.push_back({o.name(), o.type(), o.default_value(), o.min(), o.max()});
    return match::spin_options_difference(recorded, *reported);
}

std::optional<uint64_t> compute_signature(const v1::Version& version, std::string* error) {
    const Signature signature = signature_of(version, BenchOptions());
    if (signature.status == Signature::Status::Computed) return signature.nodes;
    *error = signature.error;
    return std::nullopt;
}

}  // namespace sparring::worker
