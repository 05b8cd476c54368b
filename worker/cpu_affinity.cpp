#include "worker/cpu_affinity.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "common/flags.h"

namespace sparring::worker {

namespace {

constexpr int kMaxCpu = 4095;

// Reads one CPU number of a list item; throws UsageError naming the item.
int cpu_number(std::string_view text, std::string_view item) {
    int value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 ||
        value > kMaxCpu)
        throw UsageError("--cpu-affinity: '" + std::string(item) +
                         "' is not a CPU number or range (0 to " + std::to_string(kMaxCpu) + ")");
    return value;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view list) {
    std::set<int> cpus;
    size_t start = 0;
    for (;;) {
        const size_t comma = list.find(',', start);
        const std::string_view item = list.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        const size_t dash = item.find('-');
        const int first = cpu_number(item.substr(0, dash), item);
        const int last =
            dash == std::string_view::npos ? first : cpu_number(item.substr(dash + 1), item);
        if (last < first)
            throw UsageError("--cpu-affinity: the range '" + std::string(item) +
                             "' goes backwards");
        for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return {cpus.begin(), cpus.end()};
}

std::string cpu_list_text(const std::vector<int>& cores) {
    std::string text;
    for (size_t i = 0; i < cores.size();) {
        size_t j = i;
        while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
        text += (text.empty() ? "" : ",") + std::to_string(cores[i]);
        if (j > i) text += "-" + std::to_string(cores[j]);
        i = j + 1;
    }
    return text;
}

std::vector<int> affinity_cores(std::string_view value, const std::vector<int>& allowed,
                                const std::vector<v1::CoreType>& types) {
    const bool numeric = !value.empty() && std::isdigit(static_cast<unsigned char>(value[0]));
    std::vector<int> cores;
    if (numeric) {
        cores = parse_cpu_list(value);
        for (const int cpu : cores)
            if (!std::binary_search(allowed.begin(), allowed.end(), cpu))
                throw UsageError("--cpu-affinity: CPU " + std::to_string(cpu) +
                                 " is not one this worker may use (" + cpu_list_text(allowed) +
                                 ")");
        return cores;
    }
    std::string known;
    for (const v1::CoreType& type : types) {
        known += (known.empty() ? "" : ", ") + type.name();
        if (lower(type.name()) != lower(value)) continue;
        for (const uint32_t cpu : type.cpu_ids())
            if (std::binary_search(allowed.begin(), allowed.end(), int(cpu)))
                cores.push_back(int(cpu));
        std::sort(cores.begin(), cores.end());
        cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
        if (cores.empty())
            throw UsageError("--cpu-affinity: none of the " + type.name() +
                             " cores is one this worker may use (" + cpu_list_text(allowed) + ")");
        return cores;
    }
    throw UsageError(
        "--cpu-affinity: '" + std::string(value) + "' is neither a CPU list (0-7,16-23) nor " +
        (types.empty() ? std::string("a core type: this CPU reports no core types (not hybrid)")
                       : "a core type of this CPU (" + known + ")"));
}

}  // namespace sparring::worker
