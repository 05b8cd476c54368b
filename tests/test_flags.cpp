// Our layer over CLI11: declared defaults, environment variables, range checks, typed values,
// the help text and the one-line errors of run_command_line.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/flags.h"

namespace sparring {
namespace {

constexpr Flag kFlags[] = {
    {"db", "FILE", "database"},
    {"lease-seconds", "N", "lease time", "60"},
    {"rate", "R", "reports per second", "2.5"},
    {"counts", "A,B", "a list"},
    {"address", "HOST:PORT", "where to connect", "", true},
    {"verbose", "", "a boolean flag"},
};

// Parses a command line (without the program name) against kFlags.
class Parsed {
  public:
    // Declares the flags and parses the arguments; CLI11's errors propagate.
    explicit Parsed(std::vector<std::string> arguments,
                    Environment environment = Environment::Marked)
        : flags(app, kFlags, Arguments::Any, environment) {
        std::reverse(arguments.begin(), arguments.end());
        app.parse(arguments);
    }
    CLI::App app{"test", "prog"};
    Flags flags;
};

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
    EXPECT_EQ(p.flags.get_string("db"), "x.db");
    EXPECT_EQ(p.flags.get_int("lease-seconds"), 60);
    EXPECT_FALSE(p.flags.has("lease-seconds"));
    EXPECT_DOUBLE_EQ(p.flags.get_double("rate"), -1.5);
    EXPECT_EQ(p.flags.positional(), (std::vector<std::string>{"one", "two"}));
    EXPECT_FALSE(p.flags.has("verbose"));
}

TEST_F(FlagsTest, NegativeNumbersAreValues) {
    const Parsed p({"--lease-seconds", "-5", "-7"});
    EXPECT_EQ(p.flags.get_int("lease-seconds"), -5);
    EXPECT_EQ(p.flags.positional(), std::vector<std::string>{"-7"});
}

TEST_F(FlagsTest, MissingAndMalformedValuesAreUsageErrors) {
    const Parsed p({"--lease-seconds", "6x", "--counts", "1,,2"});
    EXPECT_THROW(p.flags.get_string("db"), UsageError);
    EXPECT_THROW(p.flags.get_int("lease-seconds"), UsageError);
    EXPECT_THROW(p.flags.get_int_list("counts"), UsageError);
    const Parsed q({"--counts", "3,-4,5", "--rate", "nan"});
    EXPECT_EQ(q.flags.get_int_list("counts"), (std::vector<int64_t>{3, -4, 5}));
    EXPECT_THROW(q.flags.get_double("rate"), UsageError);
}

TEST_F(FlagsTest, RangesAreChecked) {
    const Parsed p({"--lease-seconds", "0"});
    EXPECT_THROW(p.flags.get_int_in("lease-seconds", 1, 100), UsageError);
    EXPECT_EQ(p.flags.get_int_in("lease-seconds", 0, 100), 0);
    EXPECT_EQ(p.flags.get_int_in("db", 7, 1, 10), 7);
    try {
        p.flags.get_int_in("lease-seconds", 1, 100);
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "--lease-seconds must be from 1 to 100");
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

TEST_F(FlagsTest, DeclaringTheDefaultTwiceIsALogicError) {
    const Parsed p({});
    EXPECT_THROW(p.flags.get_int("lease-seconds", 30), std::logic_error);
    EXPECT_THROW(p.flags.has("undeclared"), std::logic_error);
    EXPECT_THROW(p.flags.get_string("verbose"), std::logic_error);
}

TEST_F(FlagsTest, EnvironmentNamesFollowTheFlag) {
    EXPECT_EQ(environment_name("lease-seconds"), "SPARRING_LEASE_SECONDS");
    EXPECT_EQ(environment_name("db"), "SPARRING_DB");
}

TEST_F(FlagsTest, VariablesFillFlagsThatAreNotGiven) {
    setenv("SPARRING_DB", "/var/lib/sparring/sparring.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    const Parsed every({}, Environment::EveryFlag);
    EXPECT_EQ(every.flags.get_string("db"), "/var/lib/sparring/sparring.db");
    EXPECT_EQ(every.flags.get_int("lease-seconds"), 90);
    EXPECT_TRUE(every.flags.has("db"));
    const Parsed marked({});
    EXPECT_FALSE(marked.flags.has("db"));
    EXPECT_EQ(marked.flags.get_int("lease-seconds"), 60);
}

TEST_F(FlagsTest, MarkedFlagsReadTheirVariable) {
    setenv("SPARRING_ADDRESS", "10.0.0.1:5", 1);
    EXPECT_EQ(Parsed({}).flags.get_string("address"), "10.0.0.1:5");
    setenv("SPARRING_ADDRESS", "", 1);
    EXPECT_FALSE(Parsed({}).flags.has("address"));
}

TEST_F(FlagsTest, TheCommandLineBeatsTheEnvironment) {
    setenv("SPARRING_DB", "env.db", 1);
    setenv("SPARRING_LEASE_SECONDS", "90", 1);
    const Parsed p({"--db", "flag.db", "--lease-seconds=30"}, Environment::EveryFlag);
    EXPECT_EQ(p.flags.get_string("db"), "flag.db");
    EXPECT_EQ(p.flags.get_int("lease-seconds"), 30);
}

TEST_F(FlagsTest, BooleanVariablesTakeYesOrNoWords) {
    setenv("SPARRING_VERBOSE", "true", 1);
    EXPECT_TRUE(Parsed({}, Environment::EveryFlag).flags.has("verbose"));
    setenv("SPARRING_VERBOSE", "0", 1);
    EXPECT_FALSE(Parsed({}, Environment::EveryFlag).flags.has("verbose"));
    setenv("SPARRING_VERBOSE", "maybe", 1);
    EXPECT_THROW(Parsed({}, Environment::EveryFlag), CLI::ParseError);
}

TEST_F(FlagsTest, ARequiredFlagNamesItsVariable) {
    const Parsed p({}, Environment::EveryFlag);
    try {
        p.flags.get_string("db");
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "--db is required (or set SPARRING_DB)");
    }
}

TEST_F(FlagsTest, HelpNamesTheProgramAndShowsDefaultsAndVariables) {
    CLI::App app("Serve things.", "sparring-coordinator");
    CLI::App* serve = app.add_subcommand("serve", "serve");
    set_synopsis(*serve, "--db FILE [FLAGS]");
    const Flags flags(*serve, kFlags, Arguments::None, Environment::EveryFlag);
    testing::internal::CaptureStdout();
    const char* argv[] = {"sparring-coordinator", "serve", "--help"};
    EXPECT_EQ(run_command_line(app, 3, argv, [] { return 5; }), 0);
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(help.starts_with("usage: sparring-coordinator serve --db FILE [FLAGS]\n")) << help;
    EXPECT_NE(help.find("--lease-seconds N=60"), std::string::npos) << help;
    EXPECT_NE(help.find("SPARRING_LEASE_SECONDS"), std::string::npos) << help;
}

// The typed flags: kFlags declared as variables of their own types.
struct TypedFlags {
    std::string db;
    CLI::Option* db_option = nullptr;
    int64_t lease_seconds = 0;
    double rate = 0;
    std::vector<int64_t> counts;
    std::optional<std::string> address;
    bool verbose = false;
    std::vector<std::string> engines;
    std::vector<std::string> arguments;

    explicit TypedFlags(CLI::App& app) {
        db_option = add_flag(app, "db", db, "FILE", "database");
        add_flag(app, "lease-seconds", lease_seconds, "N", "lease time", "60", 1, 100);
        add_flag(app, "rate", rate, "R", "reports per second", "2.5");
        add_flag(app, "counts", counts, "A,B", "a list");
        from_environment(add_flag(app, "address", address, "HOST:PORT", "where to connect"));
        add_switch(app, "verbose", verbose, "a boolean flag");
        add_flag(app, "engine", engines, "E", "an engine (repeatable)");
        add_arguments(app, arguments);
    }
};

// Parses arguments (without the program name) into TypedFlags; errors propagate.
std::unique_ptr<TypedFlags> parse_typed(std::vector<std::string> arguments, CLI::App& app) {
    auto flags = std::make_unique<TypedFlags>(app);
    std::reverse(arguments.begin(), arguments.end());
    app.parse(arguments);
    return flags;
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
    const auto error = [](std::vector<std::string> arguments) {
        CLI::App app{"test", "prog"};
        try {
            parse_typed(std::move(arguments), app);
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error({"--lease-seconds", "x"}), "--lease-seconds: 'x' is not an integer");
    EXPECT_EQ(error({"--lease-seconds", "101"}), "--lease-seconds must be from 1 to 100");
    EXPECT_EQ(error({"--rate", "inf"}), "--rate: 'inf' is not a number");
    EXPECT_EQ(error({"--counts", "1,,2"}), "--counts: '' is not an integer");
    CLI::App app{"test", "prog"};
    const auto f = parse_typed({}, app);
    EXPECT_THROW(require(f->db_option), UsageError);
    EXPECT_NE(app.help().find("--lease-seconds N=60"), std::string::npos) << app.help();
}

TEST_F(FlagsTest, ErrorsAreOneLineWithTheCommandAndAStatus) {
    CLI::App app("Serve things.", "sparring-coordinator");
    CLI::App* serve = app.add_subcommand("serve", "serve");
    const Flags flags(*serve, kFlags, Arguments::None);
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
    std::tie(status, err) = run({"sparring-coordinator", "serve"},
                                [&] { return int(flags.get_int_in("lease-seconds", 61, 100)); });
    EXPECT_EQ(status, 2);
    EXPECT_EQ(err, "sparring-coordinator serve: --lease-seconds must be from 61 to 100\n");
    std::tie(status, err) = run({"sparring-coordinator", "serve"},
                                []() -> int { throw std::runtime_error("disk full"); });
    EXPECT_EQ(status, 1);
    EXPECT_EQ(err, "sparring-coordinator serve: disk full\n");
}

}  // namespace
}  // namespace sparring
