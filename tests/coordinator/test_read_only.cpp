// Read-only storage (what `backup` reads a fresh backup with): it reads what the file holds,
// never writes it (a write fails as an unwritable-storage fault), does not create a missing
// file, and refuses a file of another schema version.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "coordinator/storage/migrations.h"
#include "coordinator/storage/sqlite_storage.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

// Returns a file's size and modification time in nanoseconds.
std::pair<int64_t, int64_t> stamp(const std::string& path) {
    struct stat info {};
    EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
    return {int64_t(info.st_size),
            int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

TEST(ReadOnlyStorage, ReadsTheFileAndRefusesEveryWriteWithoutChangingIt) {
    TempDatabase db;
    {
        SqliteStorage storage(db.path());
        storage.begin(true);
        storage.insert_token(Token{.name = "kept"}, "hash");
        storage.commit();
    }
    // A read-write connection left it in WAL mode; a backup is a single file.
    {
        Database plain(db.path());
        plain.exec("PRAGMA journal_mode = DELETE");
    }
    const auto before = stamp(db.path());
    SqliteStorage storage(db.path(), SqliteStorage::Access::ReadOnly);
    storage.begin(false);
    ASSERT_TRUE(storage.find_token("hash").has_value());
    storage.commit();
    storage.begin(false);
    try {
        storage.insert_token(Token{.name = "refused"}, "other");
        ADD_FAILURE() << "a read-only connection wrote a token";
    } catch (const StorageError& e) {
        EXPECT_EQ(e.fault, StorageFault::unwritable) << e.what();
    }
    storage.rollback();
    EXPECT_EQ(stamp(db.path()), before);
    EXPECT_FALSE(std::filesystem::exists(db.path() + "-wal"));
}

TEST(ReadOnlyStorage, DoesNotCreateAMissingFile) {
    TempDatabase db;
    EXPECT_THROW(SqliteStorage(db.path(), SqliteStorage::Access::ReadOnly), StorageError);
    EXPECT_FALSE(std::filesystem::exists(db.path()));
}

TEST(ReadOnlyStorage, RefusesAFileOfAnotherSchemaVersion) {
    TempDatabase db;
    { SqliteStorage storage(db.path()); }
    {
        Database plain(db.path());
        plain.exec("PRAGMA user_version = " + std::to_string(schema_version() - 1));
    }
    try {
        SqliteStorage storage(db.path(), SqliteStorage::Access::ReadOnly);
        ADD_FAILURE() << "opened a file of schema version " << schema_version() - 1;
    } catch (const StorageError& e) {
        EXPECT_NE(
            std::string(e.what()).find("schema version " + std::to_string(schema_version() - 1)),
            std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace sparring::coordinator::testing
