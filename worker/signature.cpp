#include "worker/signature.h"

#include <cctype>
#include <cstdio>

#include "engine/bench.h"
#include "engine/params.h"
#include "match/child_process.h"

namespace sparring::worker {

namespace {

// Runs a UCI engine's `bench` command and returns what it printed on stdout and stderr.
std::optional<std::string> run_bench_command(const std::string& command, std::string* error) {
    std::string quoted = "'";
    for (char c : command) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    FILE* pipe = popen((quoted + " bench 2>&1 </dev/null").c_str(), "r");
    if (!pipe) {
        *error = "cannot start " + command;
        return std::nullopt;
    }
    std::string output;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0) {
        *error = command + " bench exited with status " + std::to_string(status);
        return std::nullopt;
    }
    return output;
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

std::optional<uint64_t> compute_uploaded_signature(const std::string& executable,
                                                   const v1::UploadedEngine& engine,
                                                   std::string* error) {
    std::vector<std::string> args(engine.args().begin(), engine.args().end());
    args.push_back("bench");
    match::ChildProcess child;
    if (!child.start(executable, args, "", error)) return std::nullopt;
    // A bench at the engine's default depth takes seconds; ten minutes means it hangs.
    const auto deadline = match::ChildProcess::Clock::now() + std::chrono::minutes(10);
    std::string output;
    std::string line;
    match::ChildProcess::ReadStatus status;
    while ((status = child.read_line(&line, deadline)) == match::ChildProcess::ReadStatus::Line)
        output += line + "\n";
    const std::string ended = child.stop(std::chrono::milliseconds(2000));
    if (status == match::ChildProcess::ReadStatus::Timeout) {
        *error = "the engine's bench did not finish within ten minutes";
        return std::nullopt;
    }
    const auto nodes = parse_bench_output(output);
    if (!nodes) *error = "the engine's bench printed no 'Nodes searched' (" + ended + ")";
    return nodes;
}

std::optional<uint64_t> compute_signature(const v1::Version& version, std::string* error) {
    if (version.has_uci()) {
        const auto output = run_bench_command(version.uci().command(), error);
        if (!output) return std::nullopt;
        const auto nodes = parse_bench_output(*output);
        if (!nodes) *error = version.uci().command() + " bench printed no 'Nodes searched'";
        return nodes;
    }
    const auto params = ParamSet::from_json(version.builtin().params_json(), ParamSet(), error);
    if (!params) return std::nullopt;
    return run_bench(BENCH_DEFAULT_DEPTH, *params).nodes;
}

}  // namespace sparring::worker
