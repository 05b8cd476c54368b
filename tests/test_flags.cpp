// Our layer over CLI11: declared defaults, environment variables, range checks, typed values,
// the help text and the one-line errors of run_command_line.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/flags.h"

namespace sparring {
namespace {

// The flags of the tests, as variables of their own types.
struct TypedFlags {
    std::string db;
    CLI::Option* db_option = nullptr;
    int64_t lease_seconds = 0;
    CLI::Option* lease_seconds_option = nullptr;
    double rate = 0;
    std::vector<int64_t> counts;
    std::optional<std::string> address;
    CLI::Option* address_option = nullptr;
    bool verbose = false;
    std::optional<int64_t> offset;
    std::vector<std::string> engines;
    std::vector<std::string> arguments;

    // Declares the flags on app; with every, all of them read their environment variables.
    explicit TypedFlags(CLI::App& app, bool every = false) {
        db_option = add_flag(app, "db", db, "FILE", "database");
        lease_seconds_option =
            add_flag(app, "lease-seconds", lease_seconds, "N", "lease time", "60", 1, 100);
        add_flag(app, "rate", rate, "R", "reports per second", "2.5");
        add_flag(app, "counts", counts, "A,B", "a list");
        address_option =
            from_environment(add_flag(app, "address", address, "HOST:PORT", "where to connect"));
        add_switch(app, "verbose", verbose, "a boolean flag");
        add_flag(app, "offset", offset, "N", "an integer without a default or a range");
        add_flag(app, "engine", engines, "E", "an engine (repeatable)");
        if (every) every_flag_from_environment(app);
        add_arguments(app, arguments);
    }
};

// Parses arguments (without the program name) into TypedFlags; errors propagate.
std::unique_ptr<TypedFlags> parse_typed(std::vector<std::string> arguments, CLI::App& app,
                                        bool every = false) {
    auto flags = std::make_unique<TypedFlags>(app, every);
    std::reverse(arguments.begin(), arguments.end());
    app.parse(arguments);
    return flags;
}

// A command line parsed into TypedFlags, with its app.
struct Parsed {
    // Declares the flags and parses the arguments; errors propagate.
    explicit Parsed(std::vector<std::string> arguments, bool every = false)
        : flags(parse_typed(std::move(arguments), app, every)) {}
    CLI::App app{"test", "prog"};
    std::unique_ptr<TypedFlags> flags;
};

// Returns the message of the UsageError that parsing arguments throws, or "no error".
std::string usage_error(std::vector<std::string> arguments) {
    CLI::App app{"test", "prog"};
    try {
        parse_typed(std::move(arguments), app);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "no error";
}

class FlagsTest : public ::testing::Test {
  protected:
    void TearDown() override {
        for (const char* name :
             {"SPARRING_DB", "SPARRING_LEASE_SECONDS", "SPARRING_VERBOSE", "SPARRING_ADDRESS"})
            unsetenv(name);
    }
};

TEST_F(FlagsTest, ValuesDefaultsAndPositionals) {
    const Parsed p({"--db", "x.db", "one", "--rate=-1.5", "two"});
    EXPECT_EQ(p.flags->db, "x.db");
    EXPECT_EQ(p.flags->lease_seconds, 60);
    EXPECT_FALSE(given(p.flags->lease_seconds_option));
    EXPECT_DOUBLE_EQ(p.flags->rate, -1.5);
    EXPECT_EQ(p.flags->arguments, (std::vector<std::string>{"one", "two"}));
    EXPECT_FALSE(p.flags->verbose);
}

TEST_F(FlagsTest, NegativeNumbersAreValues) {
    const Parsed p({"--offset", "-5", "-7"});
    EXPECT_EQ(p.flags->offset, -5);
    EXPECT_EQ(p.flags->arguments, std::vector<std::string>{"-7"});
}

TEST_F(FlagsTest, MissingAndMalformedValuesAreUsageErrors) {
    const Parsed p({});
    EXPECT_THROW(require(p.flags->db_option), UsageError);
    EXPECT_EQ(usage_error({"--lease-seconds", "6x"}), "--lease-seconds: '6x' is not an integer");
    EXPECT_EQ(usage_error({"--counts", "1,,2"}), "--counts: '' is not an integer");
    EXPECT_EQ(usage_error({"--rate", "nan"}), "--rate: 'nan' is not a number");
    const Parsed q({"--counts", "3,-4,5"});
    EXPECT_EQ(q.flags->counts, (std::vector<int64_t>{3, -4, 5}));
}

TEST_F(FlagsTest, RangesAreChecked) {
    EXPECT_EQ(usage_error({"--lease-seconds", "0"}), "--lease-seconds must be from 1 to 100");
    EXPECT_EQ(Parsed({"--lease-seconds", "1"}).flags->lease_seconds, 1);
    // A flag not given keeps its value, which the range does not check.
    CLI::App app{"test", "prog"};
    int64_t n = 7;
    in_range(add_flag(app, "n", n, "N", "a number"), 0, 5);
    app.parse(std::vector<std::string>{});
    EXPECT_EQ(n, 7);
    app.parse(std::vector<std::string>{"0", "--n"});
    EXPECT_EQ(n, 0);
}

TEST_F(FlagsTest, AWordFlagTakesOneOfItsWords) {
    CLI::App app{"test", "prog"};
    std::string mode = "auto";
    one_of(add_flag(app, "mode", mode, "MODE", "a mode"), {"auto", "on", "off"});
    app.parse(std::vector<std::string>{"on", "--mode"});  // CLI11 reads a vector from its end
    EXPECT_EQ(mode, "on");
    try {
        app.parse(std::vector<std::string>{"sometimes", "--mode"});
        ADD_FAILURE() << "a word not listed was taken";
    } catch (const UsageError& error) {
        EXPECT_EQ(std::string(error.what()), "--mode must be auto, on or off");
    }
}

TEST_F(FlagsTest, CommandLineMistakesAreParseErrors) {
    EXPECT_THROW(Parsed({"--frobnicate"}), CLI::ParseError);
    EXPECT_THROW(Parsed({"--db"}), CLI::ParseError);
    EXPECT_THROW(Parsed({"--db", "a", "--db", "b"}), CLI::ParseError);
    EXPECT_THROW(Parsed({"--verbose=yes"}), CLI::ParseError);
    EXPECT_THROW(Parsed({"--verbose", "--verbose"}), CLI::ParseError);
    EXPECT_THROW(Parsed({"-x"}), CLI::ParseError);
}

TEST_F(FlagsTest, EnvironmentNamesFollowTheFlag) {
    EXPECT_EQ(environment_name("lease-seconds"), "SPARRING_LEASE_SECONDS");
    EXPECT_EQ(environment_name("db"), "SPARRING_DB");
}

TEST_F(FlagsTest, VariablesFillFlagsThatAreNotGiven) {
    setenv("SPARRING_DB", "/var/lib/sparring/sparring.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    const Parsed every({}, true);
    EXPECT_EQ(every.flags->db, "/var/lib/sparring/sparring.db");
    EXPECT_EQ(every.flags->lease_seconds, 90);
    EXPECT_TRUE(given(every.flags->db_option));
    const Parsed marked({});
    EXPECT_FALSE(given(marked.flags->db_option));
    EXPECT_EQ(marked.flags->lease_seconds, 60);
}

TEST_F(FlagsTest, MarkedFlagsReadTheirVariable) {
    setenv("SPARRING_ADDRESS", "10.0.0.1:5", 1);
    EXPECT_EQ(Parsed({}).flags->address, "10.0.0.1:5");
    setenv("SPARRING_ADDRESS", "", 1);
    const Parsed empty({});
    EXPECT_FALSE(given(empty.flags->address_option));
    EXPECT_FALSE(empty.flags->address);
}

TEST_F(FlagsTest, TheCommandLineBeatsTheEnvironment) {
    setenv("SPARRING_DB", "env.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    const Parsed p({"--db", "flag.db", "--lease-seconds=30"}, true);
    EXPECT_EQ(p.flags->db, "flag.db");
    EXPECT_EQ(p.flags->lease_seconds, 30);
}

TEST_F(FlagsTest, BooleanVariablesTakeYesOrNoWords) {
    setenv("SPARRING_VERBOSE", "true", 1);
    EXPECT_TRUE(Parsed({}, true).flags->verbose);
    setenv("SPARRING_VERBOSE", "0", 1);
    EXPECT_FALSE(Parsed({}, true).flags->verbose);
    setenv("SPARRING_VERBOSE", "maybe", 1);
    EXPECT_THROW(Parsed({}, true), CLI::ParseError);
}

TEST_F(FlagsTest, ARequiredFlagNamesItsVariable) {
    const Parsed p({}, true);
    try {
        require(p.flags->db_option);
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "--db is required (or set SPARRING_DB)");
    }
}

TEST_F(FlagsTest, HelpNamesTheProgramAndShowsDefaultsAndVariables) {
    CLI::App app("Serve things.", "sparring-coordinator");
    CLI::App* serve = app.add_subcommand("serve", "serve");
    set_synopsis(*serve, "--db FILE [FLAGS]");
    const TypedFlags flags(*serve, true);
    testing::internal::CaptureStdout();
    const char* argv[] = {"sparring-coordinator", "serve", "--help"};
    EXPECT_EQ(run_command_line(app, 3, argv, [] { return 5; }), 0);
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(help.starts_with("usage: sparring-coordinator serve --db FILE [FLAGS]\n")) << help;
    EXPECT_NE(help.find("--lease-seconds N=60"), std::string::npos) << help;
    EXPECT_NE(help.find("SPARRING_LEASE_SECONDS"), std::string::npos) << help;
}

TEST_F(FlagsTest, TypedFlagsHoldTheirValuesAndDefaults) {
    CLI::App app{"test", "prog"};
    setenv("SPARRING_ADDRESS", "host:1", 1);
    const auto f = parse_typed({"--db", "x.db", "one", "--rate=-1.5", "--counts", " 1,+2",
                                "--engine", "a", "--engine", "b", "two"},
                               app);
    EXPECT_EQ(f->db, "x.db");
    EXPECT_TRUE(given(f->db_option));
    EXPECT_EQ(f->lease_seconds, 60);
    EXPECT_DOUBLE_EQ(f->rate, -1.5);
    EXPECT_EQ(f->counts, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(f->address, "host:1");
    EXPECT_FALSE(f->verbose);
    EXPECT_EQ(f->engines, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(f->arguments, (std::vector<std::string>{"one", "two"}));
}

TEST_F(FlagsTest, TypedFlagsAreCheckedWithOurMessages) {
    EXPECT_EQ(usage_error({"--lease-seconds", "x"}), "--lease-seconds: 'x' is not an integer");
    EXPECT_EQ(usage_error({"--lease-seconds", "101"}), "--lease-seconds must be from 1 to 100");
    EXPECT_EQ(usage_error({"--rate", "inf"}), "--rate: 'inf' is not a number");
    EXPECT_EQ(usage_error({"--counts", "1,,2"}), "--counts: '' is not an integer");
    CLI::App app{"test", "prog"};
    const auto f = parse_typed({}, app);
    EXPECT_THROW(require(f->db_option), UsageError);
    EXPECT_NE(app.help().find("--lease-seconds N=60"), std::string::npos) << app.help();
}

TEST_F(FlagsTest, RepeatedListFlagsAccumulate) {
    CLI::App app{"test", "prog"};
    std::optional<std::string> set;
    std::string select;
    std::vector<int64_t> data;
    std::string db;
    add_list(app, "set", set, "NAME=V,...", "overrides");
    add_list(app, "select", select, "LIST", "parameters", "all");
    add_flag(app, "data", data, "RUN,...", "runs");
    add_flag(app, "db", db, "FILE", "one value");
    app.parse(std::vector<std::string>{});
    EXPECT_FALSE(set);
    EXPECT_EQ(select, "all");
    EXPECT_TRUE(data.empty());
    // CLI11 reads a vector from its end.
    app.parse(std::vector<std::string>{"5", "--data", "3,4", "--data", "B=2", "--set", "A=1",
                                       "--set", "Knight*", "--select"});
    EXPECT_EQ(set, "A=1,B=2");
    EXPECT_EQ(select, "Knight*");
    EXPECT_EQ(data, (std::vector<int64_t>{3, 4, 5}));
    app.parse(std::vector<std::string>{"C=3", "--set"});
    EXPECT_EQ(set, "C=3");
    // A flag of one value still refuses a second.
    EXPECT_THROW(app.parse(std::vector<std::string>{"b", "--db", "a", "--db"}), CLI::ParseError);
}

TEST_F(FlagsTest, ErrorsAreOneLineWithTheCommandAndAStatus) {
    CLI::App app("Serve things.", "sparring-coordinator");
    CLI::App* serve = app.add_subcommand("serve", "serve");
    const TypedFlags flags(*serve);
    const auto run = [&](std::vector<const char*> argv, const std::function<int()>& body) {
        testing::internal::CaptureStderr();
        const int status = run_command_line(app, int(argv.size()), argv.data(), body);
        return std::pair(status, testing::internal::GetCapturedStderr());
    };
    auto [status, err] = run({"sparring-coordinator", "serve", "--frobnicate"}, [] { return 0; });
    EXPECT_EQ(status, 2);
    EXPECT_TRUE(err.starts_with("sparring-coordinator serve: ")) << err;
    EXPECT_NE(err.find("--frobnicate"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    std::tie(status, err) =
        run({"sparring-coordinator", "serve", "--lease-seconds", "101"}, [] { return 0; });
    EXPECT_EQ(status, 2);
    EXPECT_EQ(err, "sparring-coordinator serve: --lease-seconds must be from 1 to 100\n");
    std::tie(status, err) = run({"sparring-coordinator", "serve"}, [&] {
        require(flags.db_option);
        return 0;
    });
    EXPECT_EQ(status, 2);
    EXPECT_EQ(err, "sparring-coordinator serve: --db is required\n");
    std::tie(status, err) = run({"sparring-coordinator", "serve"},
                                []() -> int { throw std::runtime_error("disk full"); });
    EXPECT_EQ(status, 1);
    EXPECT_EQ(err, "sparring-coordinator serve: disk full\n");
}

}  // namespace
}  // namespace sparring
