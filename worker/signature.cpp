#include "worker/signature.h"

#include <cctype>

#include "engine/params.h"
#include "match/bench_cache.h"
#include "match/child_process.h"
#include "match/engine_options.h"

namespace sparring::worker {

namespace {

constexpr size_t kMaxBenchOutput = 1 << 20;  // a bench that floods its output has failed

// Runs `COMMAND ARGS... bench` of an external engine through the child-process code of games
// (its stdout and stderr read, killed at the timeout).
Signature run_bench_command(const v1::Version& version, const std::string& command,
                            std::vector<std::string> args, const BenchOptions& options) {
    Signature result;
    args.push_back("bench");
    match::ChildOptions child = engine_confinement(version, command, options.limits);
    child.merge_stderr = true;
    child.cpu_limit_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(options.timeout).count() + 1;
    match::ChildProcess process;
    if (!process.start(command, args, child, &result.error)) return result;
    result.status = Signature::Status::NoSignature;
    const auto deadline = match::ChildProcess::Clock::now() + options.timeout;
    std::string output;
    std::string line;
    while (true) {
        const auto status = process.read_line(&line, deadline);
        if (status == match::ChildProcess::ReadStatus::Line) {
            output += line;
            output += '\n';
            if (output.size() <= kMaxBenchOutput) continue;
            result.error = command + " bench printed more than " +
                           std::to_string(kMaxBenchOutput >> 20) + " MiB";
            process.stop(std::chrono::milliseconds(0));
            return result;
        }
        if (status == match::ChildProcess::ReadStatus::Timeout) {
            process.stop(std::chrono::milliseconds(0));
            result.error = command + " bench gave no result within " +
                           std::to_string(options.timeout.count() / 1000) + " s; killed";
            return result;
        }
        break;
    }
    const std::string ended = process.stop(std::chrono::milliseconds(1000));
    if (ended != "exit status 0") {
        result.error = command + " bench ended with " + ended;
        return result;
    }
    const auto nodes = parse_bench_output(output);
    if (!nodes) {
        result.error = command + " bench printed no 'Nodes searched'";
        return result;
    }
    result.status = Signature::Status::Computed;
    result.nodes = *nodes;
    return result;
}

}  // namespace

std::optional<uint64_t> parse_bench_output(const std::string& output) {
    const size_t at = output.rfind("Nodes searched");
    if (at == std::string::npos) return std::nullopt;
    size_t i = at + 14;
    while (i < output.size() && !std::isdigit(static_cast<unsigned char>(output[i])) &&
           output[i] != '\n')
        ++i;
    if (i >= output.size() || !std::isdigit(static_cast<unsigned char>(output[i])))
        return std::nullopt;
    uint64_t nodes = 0;
    while (i < output.size() && std::isdigit(static_cast<unsigned char>(output[i])))
        nodes = nodes * 10 + uint64_t(output[i++] - '0');
    return nodes;
}

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
