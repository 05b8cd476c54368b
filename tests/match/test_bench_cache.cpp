// The bench cache: computed once per executable, parameters and depth, read back after;
// entries that cannot be read are computed again, and symbolic links are never followed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "match/bench_cache.h"

namespace sparring {
namespace {

namespace fs = std::filesystem;

constexpr int kDepth = 4;  // a small bench: the cache does not care how deep it searched

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class BenchCacheTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir = ::testing::TempDir() + "sparring-bench-cache-" + std::to_string(getpid()) + "/nested";
        fs::remove_all(fs::path(dir).parent_path());
        ASSERT_EQ(setenv(kBenchCacheVariable, dir.c_str(), 1), 0);
    }
    void TearDown() override {
        unsetenv(kBenchCacheVariable);
        fs::remove_all(fs::path(dir).parent_path());
    }
    std::string dir;
};

TEST(BenchCache, WithoutTheVariableEveryCallComputes) {
    unsetenv(kBenchCacheVariable);
    const ParamSet params;
    EXPECT_FALSE(bench_cache_entry(params, kDepth));
    const BuiltinBench first = builtin_bench(params, kDepth);
    const BuiltinBench second = builtin_bench(params, kDepth);
    EXPECT_EQ(first.nodes, run_bench(kDepth, params).nodes);
    EXPECT_EQ(second.nodes, first.nodes);
    EXPECT_FALSE(first.cached);
    EXPECT_FALSE(second.cached);
}

TEST_F(BenchCacheTest, ComputedOnceThenReadFromAPrivateEntry) {
    const ParamSet params;
    const BuiltinBench first = builtin_bench(params, kDepth);
    EXPECT_FALSE(first.cached);
    EXPECT_EQ(first.nodes, run_bench(kDepth, params).nodes);
    const std::string entry = *bench_cache_entry(params, kDepth);
    EXPECT_EQ(fs::path(entry).parent_path(), fs::path(dir));
    EXPECT_EQ(read(entry), std::to_string(first.nodes) + "\n");
    EXPECT_EQ(fs::status(entry).permissions(), fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(fs::status(dir).permissions(), fs::perms::owner_all);

    const BuiltinBench second = builtin_bench(params, kDepth);
    EXPECT_TRUE(second.cached);
    EXPECT_EQ(second.nodes, first.nodes);
    // Only the entry is left: no partial file of the write.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST_F(BenchCacheTest, OtherParametersOrDepthsHaveEntriesOfTheirOwn) {
    const ParamSet changed = *ParamSet::preset("seed");
    const ParamSet defaults;
    ASSERT_NE(changed, defaults);
    EXPECT_NE(*bench_cache_entry(changed, kDepth), *bench_cache_entry(defaults, kDepth));
    EXPECT_NE(*bench_cache_entry(defaults, kDepth + 1), *bench_cache_entry(defaults, kDepth));
    builtin_bench(defaults, kDepth);
    const BuiltinBench other = builtin_bench(changed, kDepth);
    EXPECT_FALSE(other.cached);
    EXPECT_EQ(other.nodes, run_bench(kDepth, changed).nodes);
    EXPECT_FALSE(builtin_bench(defaults, kDepth + 1).cached);
}

TEST_F(BenchCacheTest, TheEntryIsWhatIsReadAndAnUnreadableOneIsComputedAgain) {
    const ParamSet params;
    const uint64_t nodes = run_bench(kDepth, params).nodes;
    const std::string entry = *bench_cache_entry(params, kDepth);
    builtin_bench(params, kDepth);
    // The cache trusts its owner: an entry written by hand is what a lookup answers (so a
    // wrong one shows as a bench mismatch, like a wrong build).
    std::ofstream(entry, std::ios::trunc) << "12345\n";
    EXPECT_EQ(builtin_bench(params, kDepth).nodes, 12345u);

    for (const std::string& bad :
         {std::string(""), std::string("123"), std::string("0\n"), std::string("12a4\n"),
          std::string("-5\n"), std::string("99999999999999999999999\n"),
          std::string(40, '7') + "\n"}) {
        std::ofstream(entry, std::ios::trunc | std::ios::binary) << bad;
        const BuiltinBench again = builtin_bench(params, kDepth);
        EXPECT_FALSE(again.cached) << bad;
        EXPECT_EQ(again.nodes, nodes) << bad;
        EXPECT_EQ(read(entry), std::to_string(nodes) + "\n") << bad;
    }
}

TEST_F(BenchCacheTest, ASymbolicLinkIsNeitherReadNorWrittenThrough) {
    const ParamSet params;
    const uint64_t nodes = run_bench(kDepth, params).nodes;
    const std::string entry = *bench_cache_entry(params, kDepth);
    fs::create_directories(dir);
    const std::string target = fs::path(dir).parent_path() / "elsewhere";
    std::ofstream(target) << "777\n";
    fs::create_symlink(target, entry);
    const BuiltinBench bench = builtin_bench(params, kDepth);
    EXPECT_FALSE(bench.cached);
    EXPECT_EQ(bench.nodes, nodes);
    EXPECT_EQ(read(target), "777\n");     // the link's target is unchanged
    EXPECT_FALSE(fs::is_symlink(entry));  // the rename replaced the link with an entry
    EXPECT_EQ(read(entry), std::to_string(nodes) + "\n");
}

TEST_F(BenchCacheTest, AnUnwritableCacheStillAnswers) {
    fs::create_directories(fs::path(dir).parent_path());
    std::ofstream(dir) << "a file where the directory should be";
    const ParamSet params;
    const BuiltinBench bench = builtin_bench(params, kDepth);
    EXPECT_FALSE(bench.cached);
    EXPECT_EQ(bench.nodes, run_bench(kDepth, params).nodes);
    EXPECT_FALSE(builtin_bench(params, kDepth).cached);
}

}  // namespace
}  // namespace sparring
