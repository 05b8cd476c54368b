#include "common/engine_builds.h"

#include <algorithm>

#include "common/cpu_class.h"

namespace sparring {

namespace {

bool contains(std::span<const std::string> list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// Returns whether a worker with these levels runs a build of this level (refusals aside).
bool runs(std::string_view level, std::span<const std::string> cpu_levels) {
    return level.empty() || contains(cpu_levels, level);
}

}  // namespace

std::string build_level_name(std::string_view level) {
    return level.empty() ? "portable" : std::string(level);
}

std::string build_level_error(std::string_view level) {
    if (level.empty() || isa_level_rank(level) >= 0) return "";
    std::string known;
    for (std::string_view name : known_isa_levels())
        known += (known.empty() ? "" : ", ") + std::string(name);
    const std::string shown(level.substr(0, 40));
    return "'" + shown + "' is no instruction-set level (known: " + known +
           "; none for a portable build)";
}

std::optional<size_t> best_build(std::span<const std::string> builds,
                                 std::span<const std::string> cpu_levels,
                                 std::span<const std::string> refused) {
    std::optional<size_t> best;
    int best_rank = -2;
    for (size_t i = 0; i < builds.size(); ++i) {
        if (!runs(builds[i], cpu_levels) || contains(refused, build_level_name(builds[i])))
            continue;
        const int rank = builds[i].empty() ? -1 : isa_level_rank(builds[i]);
        if (rank > best_rank) {
            best = i;
            best_rank = rank;
        }
    }
    return best;
}

std::string no_build_text(std::span<const std::string> builds,
                          std::span<const std::string> cpu_levels,
                          std::span<const std::string> refused) {
    std::string died;
    std::string needs;
    for (const std::string& level : builds) {
        if (runs(level, cpu_levels)) {
            if (contains(refused, build_level_name(level)))
                died += (died.empty() ? "" : ", ") + build_level_name(level);
        } else {
            needs += (needs.empty() ? "" : " or ") + level;
        }
    }
    const std::string_view top = top_isa_level(cpu_levels);
    std::string text;
    if (!needs.empty())
        text = "needs " + needs + "; it has " +
               (top.empty() ? std::string("no instruction-set level reported") : std::string(top));
    if (!died.empty())
        text += (text.empty() ? "" : "; ") + std::string("its ") + died + " build" +
                (died.find(',') == std::string::npos ? "" : "s") + " died of SIGILL there";
    return text;
}

}  // namespace sparring
