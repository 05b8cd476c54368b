// Core: versions: adding one (an uploaded engine checked against its file), the version a
// run's result makes, and looking them up.
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"

namespace sparring::coordinator {

namespace {

// Finds the stored file of an uploaded engine's build and fills in its size and kind.
absl::Status find_build_file(Storage& storage, const std::string& sha256, const std::string& entry,
                             uint64_t* size, bool* archive) {
    const std::optional<EngineFile> file = storage.find_engine(sha256);
    if (!file)
        return absl::FailedPreconditionError("no engine file " + sha256 +
                                             " on the coordinator: upload it first");
    if (file->archive && entry.empty())
        return absl::InvalidArgumentError(
            "an engine archive needs --entry: the executable's path inside it");
    if (!file->archive && !entry.empty())
        return absl::InvalidArgumentError("--entry applies to an archive, not a single file");
    *size = file->size;
    *archive = file->archive;
    return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Version> Core::add_version(Storage& storage, Version version) const {
    if (absl::Status status = check_version(version); !status.ok()) return status;
    if (storage.find_version(version.name))
        return absl::AlreadyExistsError("version '" + version.name +
                                        "' already exists; versions never change, pick a new name");
    if (version.kind == Version::Kind::Uploaded) {
        absl::Status file = find_build_file(storage, version.engine_sha256, version.engine_entry,
                                            &version.engine_size, &version.engine_archive);
        for (EngineBuild& build : version.engine_builds)
            if (file.ok())
                file = find_build_file(storage, build.sha256, build.entry, &build.size,
                                       &build.archive);
        if (!file.ok()) return file;
    }
    version.created_ms = now_ms_();
    version.id = storage.insert_version(version);
    publish(storage, VersionAdded{version.name, version.bench});
    return version;
}

absl::StatusOr<Version> Core::version_of_run(Storage& storage, int64_t run_id) const {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    // A run its faults paused (and not resumed: paused still, or stopped since) has values
    // made of faulty games: no version comes of it.
    if (const std::optional<RunFaults> faults = storage.find_run_faults(run_id);
        faults && faults->pause)
        return absl::FailedPreconditionError(
            "run " + std::to_string(run_id) + " was paused for faults (" + faults->pause->reason +
            "): its result makes no version; fix the engine and resume it (`sparring resume " +
            std::to_string(run_id) + "`) or submit it again");
    return run_kind(run->spec.kind).made_version(storage, *run);
}

absl::StatusOr<Version> Core::get_version(Storage& storage, std::string_view name) const {
    if (absl::Status status = check_lookup_name(name); !status.ok()) return status;
    std::optional<Version> version = storage.find_version(name);
    if (!version)
        return absl::NotFoundError("no version '" + excerpt(name) +
                                   "' (see `sparring versions list`)");
    return *version;
}

std::vector<Version> Core::list_versions(Storage& storage) const {
    return storage.list_versions();
}

}  // namespace sparring::coordinator
