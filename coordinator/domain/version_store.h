// The store of versions and the engine files they run, owned by the domain. SqliteStorage
// implements it as part of Storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// What every kind may read of the versions (see KindReads).
class VersionReads {
  public:
    virtual ~VersionReads() = default;

    virtual std::optional<Version> find_version(int64_t id) = 0;
    virtual std::optional<Version> find_version(std::string_view name) = 0;
};

class VersionStore : public virtual VersionReads {
  public:
    virtual int64_t insert_version(const Version& version) = 0;
    virtual std::vector<Version> list_versions() = 0;

    // Records an uploaded engine file; returns false (changing nothing) when it is known.
    virtual bool insert_engine(const EngineFile& engine) = 0;
    virtual std::optional<EngineFile> find_engine(std::string_view sha256) = 0;
    virtual std::vector<EngineFile> list_engines() = 0;
    // Returns the engine files no version refers to, recorded before the given time.
    virtual std::vector<EngineFile> unreferenced_engines(int64_t recorded_before_ms) = 0;
    // Forgets an engine file no version refers to.
    virtual void delete_engine(std::string_view sha256) = 0;
};

}  // namespace sparring::coordinator
