#include "coordinator/domain/version_builds.h"

#include <algorithm>

#include "common/engine_archive.h"
#include "common/engine_builds.h"
#include "common/printable.h"
#include "common/sha256.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

absl::Status check_engine_builds(const Version& v) {
    const std::vector<std::string> levels = v.build_levels();
    if (levels.size() > kMaxEngineBuilds)
        return absl::InvalidArgumentError("a version holds at most " +
                                          std::to_string(kMaxEngineBuilds) + " builds");
    for (size_t i = 0; i < levels.size(); ++i) {
        if (const std::string why = build_level_error(levels[i]); !why.empty())
            return absl::InvalidArgumentError("a build's level: " + why);
        if (std::find(levels.begin(), levels.begin() + std::ptrdiff_t(i), levels[i]) !=
            levels.begin() + std::ptrdiff_t(i))
            return absl::InvalidArgumentError("two builds for " + build_level_name(levels[i]) +
                                              ": give each level one build");
    }
    for (const EngineBuild& b : v.engine_builds) {
        if (!is_sha256_hex(b.sha256))
            return absl::InvalidArgumentError(
                "a build names its engine file by a hex SHA-256 (64 digits)");
        if (!b.entry.empty())
            if (const std::string why = unsafe_relative_path(b.entry); !why.empty())
                return absl::InvalidArgumentError("--entry '" + b.entry + "': " + why);
    }
    return absl::OkStatus();
}

}  // namespace sparring::coordinator

namespace sparring::coordinator {

absl::Status Core::refuse_build(Storage& storage, const Run& run, const Release& release) const {
    if (release.version_id != run.test_id && release.version_id != run.base_id)
        return absl::InvalidArgumentError("version " + std::to_string(release.version_id) +
                                          " is not played in run " + std::to_string(run.id));
    const Version version = *storage.find_version(release.version_id);
    const std::vector<std::string> levels = version.build_levels();
    const bool known = version.kind == Version::Kind::Uploaded &&
                       std::any_of(levels.begin(), levels.end(), [&](const std::string& level) {
                           return build_level_name(level) == release.build_level;
                       });
    if (!known)
        return absl::InvalidArgumentError("version '" + version.name + "' has no build '" +
                                          excerpt(release.build_level) + "'");
    storage.insert_build_refusal(release.worker_id, {version.id, release.build_level},
                                 std::string(utf8_prefix(release.message, kMaxStatusBytes)),
                                 now_ms_());
    return absl::OkStatus();
}

}  // namespace sparring::coordinator
