// SqliteStorage, versions and the uploaded engine files they run.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

// A version's engine options as JSON: [[name, type, default, min, max], ...] ("" for none).
std::string options_column(const std::vector<match::EngineOption>& options) {
    if (options.empty()) return "";
    nlohmann::json rows = nlohmann::json::array();
    for (const match::EngineOption& o : options)
        rows.push_back({o.name, o.type, o.default_value, o.min, o.max});
    return json_column(rows);
}

std::vector<match::EngineOption> read_options_column(const std::string& text) {
    using Row = std::tuple<std::string, std::string, std::string, int64_t, int64_t>;
    std::vector<match::EngineOption> options;
    for (auto& [name, type, value, min, max] :
         read_json_column<std::vector<Row>>(text, "versions.engine_options"))
        options.push_back({std::move(name), std::move(type), std::move(value), min, max});
    return options;
}

// An uploaded version's further builds as JSON: [[level, sha256, entry, size, archive], ...]
// in the order they were added ("" for none).
std::vector<EngineBuild> read_builds_column(const std::string& text) {
    using Row = std::tuple<std::string, std::string, std::string, int64_t, int64_t>;
    std::vector<EngineBuild> builds;
    for (auto& [level, sha256, entry, size, archive] :
         read_json_column<std::vector<Row>>(text, "version_builds"))
        builds.push_back(
            {std::move(level), std::move(sha256), uint64_t(size), archive != 0, std::move(entry)});
    return builds;
}

constexpr std::string_view kVersionColumns =
    "id, name, description, kind, preset, overrides, params, hash_mb, uci_command, "
    "uci_options, bench, created_ms, engine_sha256, engine_entry, engine_args, "
    "(SELECT size FROM engines e WHERE e.sha256 = engine_sha256), "
    "(SELECT archive FROM engines e WHERE e.sha256 = engine_sha256), owner, reference_nps, "
    "engine_options, engine_level, "
    "(SELECT json_group_array(json_array(b.level, b.sha256, b.entry, e.size, e.archive)) "
    "FROM (SELECT * FROM version_builds WHERE version_id = versions.id ORDER BY rowid) b "
    "JOIN engines e ON e.sha256 = b.sha256)";

}  // namespace

int64_t SqliteStorage::insert_version(const Version& v) {
    using Text = std::optional<std::string>;
    const bool builtin = v.kind == Version::Kind::Builtin;
    const bool uploaded = v.kind == Version::Kind::Uploaded;
    db_.prepare(
           "INSERT INTO versions (name, description, kind, preset, overrides, params, hash_mb, "
           "uci_command, uci_options, bench, created_ms, engine_sha256, engine_entry, "
           "engine_args, owner, reference_nps, engine_options, engine_level) VALUES (?, ?, ?, ?, "
           "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(v.name, v.description, builtin ? "builtin" : "uci",
              builtin ? Text(v.preset) : std::nullopt,
              builtin ? Text(json_column(v.overrides)) : std::nullopt,
              builtin ? Text(v.params_json) : std::nullopt, v.hash_mb,
              v.kind == Version::Kind::Uci ? Text(v.uci_command) : std::nullopt,
              builtin ? std::nullopt : Text(json_column(v.uci_options)), v.bench, v.created_ms,
              uploaded ? Text(v.engine_sha256) : std::nullopt,
              uploaded ? Text(v.engine_entry) : std::nullopt,
              uploaded ? Text(json_column(v.engine_args)) : std::nullopt, v.owner, v.reference_nps,
              options_column(v.options), uploaded ? v.engine_level : std::string())
        .run();
    const int64_t id = db_.last_insert_rowid();
    if (uploaded) {
        for (const EngineBuild& b : v.engine_builds)
            db_.prepare(
                   "INSERT INTO version_builds (version_id, level, sha256, entry) "
                   "VALUES (?, ?, ?, ?)")
                .bind(id, b.level, b.sha256, b.entry)
                .run();
    }
    return id;
}

Version SqliteStorage::read_version(const Statement& s) {
    Version v;
    v.id = s.int64(0);
    v.name = s.text(1);
    v.description = s.text(2);
    v.kind = s.text(3) == "uci" ? Version::Kind::Uci : Version::Kind::Builtin;
    v.hash_mb = int(s.int64(7));
    v.bench = uint64_t(s.int64(10));
    v.created_ms = s.int64(11);
    v.owner = s.text(17);
    v.reference_nps = uint64_t(s.int64(18));
    v.options = read_options_column(s.text(19));
    if (v.kind == Version::Kind::Builtin) {
        v.preset = s.text(4);
        v.overrides = read_json_column<std::map<std::string, int>>(s.text(5), "versions.overrides");
        v.params_json = s.text(6);
    } else {
        v.uci_command = s.text(8);
        v.uci_options =
            read_json_column<std::map<std::string, std::string>>(s.text(9), "versions.uci_options");
    }
    if (!s.is_null(12)) {
        v.kind = Version::Kind::Uploaded;
        v.engine_sha256 = s.text(12);
        v.engine_entry = s.text(13);
        v.engine_args =
            read_json_column<std::vector<std::string>>(s.text(14), "versions.engine_args");
        v.engine_size = uint64_t(s.int64(15));
        v.engine_archive = s.int64(16) != 0;
        v.engine_level = s.text(20);
        if (!s.is_null(21)) v.engine_builds = read_builds_column(s.text(21));
    }
    return v;
}

bool SqliteStorage::insert_engine(const EngineFile& e) {
    db_.prepare(
           "INSERT INTO engines (sha256, size, archive, created_ms, uploader) "
           "VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING")
        .bind(e.sha256, int64_t(e.size), e.archive ? 1 : 0, e.created_ms, e.uploader)
        .run();
    return db_.changes() > 0;
}

namespace {

// Reads an engine file from the current row of a statement selecting its five columns.
EngineFile read_engine(const Statement& s) {
    return {s.text(0), uint64_t(s.int64(1)), s.int64(2) != 0, s.int64(3), s.text(4)};
}

}  // namespace

std::optional<EngineFile> SqliteStorage::find_engine(std::string_view sha256) {
    Statement& s = db_.prepare(
        "SELECT sha256, size, archive, created_ms, uploader FROM engines "
        "WHERE sha256 = ?");
    s.bind(sha256);
    if (!s.step()) return std::nullopt;
    return read_engine(s);
}

std::vector<EngineFile> SqliteStorage::list_engines() {
    Statement& s = db_.prepare(
        "SELECT sha256, size, archive, created_ms, uploader FROM engines "
        "ORDER BY sha256");
    s.bind();
    std::vector<EngineFile> engines;
    while (s.step()) engines.push_back(read_engine(s));
    return engines;
}

std::vector<EngineFile> SqliteStorage::unreferenced_engines(int64_t recorded_before_ms) {
    Statement& s = db_.prepare(
        "SELECT sha256, size, archive, created_ms, uploader FROM engines e WHERE created_ms < ? "
        "AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.engine_sha256 = e.sha256) "
        "AND NOT EXISTS (SELECT 1 FROM version_builds b WHERE b.sha256 = e.sha256) "
        "ORDER BY sha256");
    s.bind(recorded_before_ms);
    std::vector<EngineFile> engines;
    while (s.step()) engines.push_back(read_engine(s));
    return engines;
}

void SqliteStorage::delete_engine(std::string_view sha256) {
    db_.prepare(
           "DELETE FROM engines WHERE sha256 = ? AND "
           "NOT EXISTS (SELECT 1 FROM versions v WHERE v.engine_sha256 = engines.sha256) AND "
           "NOT EXISTS (SELECT 1 FROM version_builds b WHERE b.sha256 = engines.sha256)")
        .bind(sha256)
        .run();
}

std::optional<Version> SqliteStorage::find_version(int64_t id) {
    static const std::string sql =
        "SELECT " + std::string(kVersionColumns) + " FROM versions WHERE id = ?";
    Statement& s = db_.prepare(sql);
    s.bind(id);
    if (!s.step()) return std::nullopt;
    return read_version(s);
}

std::optional<Version> SqliteStorage::find_version(std::string_view name) {
    static const std::string sql =
        "SELECT " + std::string(kVersionColumns) + " FROM versions WHERE name = ?";
    Statement& s = db_.prepare(sql);
    s.bind(name);
    if (!s.step()) return std::nullopt;
    return read_version(s);
}

std::vector<Version> SqliteStorage::list_versions() {
    static const std::string sql =
        "SELECT " + std::string(kVersionColumns) + " FROM versions ORDER BY id";
    Statement& s = db_.prepare(sql);
    s.bind();
    std::vector<Version> versions;
    while (s.step()) versions.push_back(read_version(s));
    return versions;
}

}  // namespace sparring::coordinator

namespace sparring::coordinator {

void SqliteStorage::insert_build_refusal(int64_t worker_id, const RefusedBuild& build,
                                         const std::string& message, int64_t created_ms) {
    db_.prepare(
           "INSERT OR IGNORE INTO build_refusals (worker_id, version_id, level, message, "
           "created_ms) VALUES (?, ?, ?, ?, ?)")
        .bind(worker_id, build.version_id, build.level, message, created_ms)
        .run();
}

std::vector<RefusedBuild> SqliteStorage::refused_builds(int64_t worker_id) {
    Statement& s = db_.prepare("SELECT version_id, level FROM build_refusals WHERE worker_id = ?");
    s.bind(worker_id);
    std::vector<RefusedBuild> builds;
    while (s.step()) builds.push_back({s.int64(0), s.text(1)});
    return builds;
}

void SqliteStorage::set_lease_builds(int64_t lease_id, const std::string& test,
                                     const std::string& base) {
    db_.prepare("UPDATE batches SET test_build = ?, base_build = ? WHERE id = ?")
        .bind(test, base, lease_id)
        .run();
}

}  // namespace sparring::coordinator
