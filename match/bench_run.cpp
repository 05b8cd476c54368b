#include "match/bench_run.h"

#include <cctype>
#include <csignal>

namespace sparring::match {

namespace {

constexpr size_t kMaxBenchOutput = 1 << 20;  // a bench that floods its output has failed

}  // namespace

bool died_of_sigill(std::string_view text) {
    // A sandboxed engine's end comes through bubblewrap, which exits with 128 + the signal
    // that killed the engine, as shells do.
    return text.find("killed by signal " + std::to_string(SIGILL) + " ") !=
               std::string_view::npos ||
           text.find("exit status " + std::to_string(128 + SIGILL)) != std::string_view::npos;
}

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

BenchRun run_bench(const std::string& command, std::vector<std::string> args, ChildOptions child,
                   std::chrono::milliseconds timeout) {
    BenchRun result;
    args.push_back("bench");
    child.merge_stderr = true;
    ChildProcess process;
    if (!process.start(command, args, child, &result.error)) return result;
    result.status = BenchRun::Status::NoSignature;
    const auto deadline = ChildProcess::Clock::now() + timeout;
    std::string output;
    std::string line;
    while (true) {
        const auto status = process.read_line(&line, deadline);
        if (status == ChildProcess::ReadStatus::Line) {
            output += line;
            output += '\n';
            if (output.size() <= kMaxBenchOutput) continue;
            result.error = command + " bench printed more than " +
                           std::to_string(kMaxBenchOutput >> 20) + " MiB";
            process.stop(std::chrono::milliseconds(0));
            return result;
        }
        if (status == ChildProcess::ReadStatus::Timeout) {
            process.stop(std::chrono::milliseconds(0));
            result.error = command + " bench gave no result within " +
                           std::to_string(timeout.count() / 1000) + " s; killed";
            return result;
        }
        break;
    }
    const std::string ended = process.stop(std::chrono::milliseconds(1000));
    if (ended != "exit status 0") {
        result.error = command + " bench ended with " + ended;
        result.illegal_instruction = died_of_sigill(ended);
        return result;
    }
    const auto nodes = parse_bench_output(output);
    if (!nodes) {
        result.error = command + " bench printed no 'Nodes searched'";
        return result;
    }
    result.status = BenchRun::Status::Computed;
    result.nodes = *nodes;
    return result;
}

}  // namespace sparring::match
