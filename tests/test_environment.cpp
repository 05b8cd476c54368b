// Flags from environment variables: names, precedence of the command line, booleans, "--".
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/environment.h"

namespace sparring::cli {
namespace {

constexpr Flag kFlags[] = {
    {"db", "FILE", "database"},
    {"lease-seconds", "N", "lease time"},
    {"verbose", "", "a boolean flag"},
};

// Runs with_environment on tokens and returns the result.
std::vector<std::string> expand(std::vector<std::string_view> tokens) {
    return with_environment(tokens, kFlags);
}

class EnvironmentTest : public ::testing::Test {
  protected:
    void TearDown() override {
        for (const char* name : {"SPARRING_DB", "SPARRING_LEASE_SECONDS", "SPARRING_VERBOSE"})
            unsetenv(name);
    }
};

TEST_F(EnvironmentTest, NamesAreUpperCaseWithUnderscores) {
    EXPECT_EQ(environment_name("lease-seconds"), "SPARRING_LEASE_SECONDS");
    EXPECT_EQ(environment_name("db"), "SPARRING_DB");
}

TEST_F(EnvironmentTest, VariablesFillFlagsThatAreNotGiven) {
    setenv("SPARRING_DB", "/var/lib/sparring/sparring.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    EXPECT_EQ(expand({"serve"}),
              (std::vector<std::string>{"serve", "--db", "/var/lib/sparring/sparring.db",
                                        "--lease-seconds", "90"}));
}

TEST_F(EnvironmentTest, TheCommandLineBeatsTheEnvironment) {
    setenv("SPARRING_DB", "env.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    EXPECT_EQ(expand({"--db", "flag.db", "--lease-seconds=30"}),
              (std::vector<std::string>{"--db", "flag.db", "--lease-seconds=30"}));
}

TEST_F(EnvironmentTest, EmptyVariablesAreIgnored) {
    setenv("SPARRING_DB", "", 1);
    EXPECT_EQ(expand({}), std::vector<std::string>{});
}

TEST_F(EnvironmentTest, BooleanFlagsTakeYesOrNoWords) {
    setenv("SPARRING_VERBOSE", "true", 1);
    EXPECT_EQ(expand({}), std::vector<std::string>{"--verbose"});
    setenv("SPARRING_VERBOSE", "0", 1);
    EXPECT_EQ(expand({}), std::vector<std::string>{});
    setenv("SPARRING_VERBOSE", "maybe", 1);
    EXPECT_THROW(expand({}), UsageError);
}

TEST_F(EnvironmentTest, FlagsGoBeforeTheEndOfFlags) {
    setenv("SPARRING_DB", "env.db", 1);
    EXPECT_EQ(expand({"serve", "--", "--db"}),
              (std::vector<std::string>{"serve", "--db", "env.db", "--", "--db"}));
}

}  // namespace
}  // namespace sparring::cli
