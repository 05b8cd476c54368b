// The CLI flag parser: both value spellings, boolean flags, positionals, typed getters and the
// errors a user can cause.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "common/args.h"

namespace {

using sparring::cli::Args;
using sparring::cli::Flag;
using sparring::cli::UsageError;

constexpr Flag Flags[] = {
    {"games", "N", "number of games"}, {"alpha", "A", "a rate"}, {"name", "TEXT", "a name"},
    {"counts", "A,B", "a list"},       {"json", "", "a switch"},
};

// Parses the tokens against Flags.
Args parse(std::vector<std::string_view> tokens) {
    return Args(tokens, Flags);
}

TEST(Args, ValuesInBothSpellings) {
    const Args a = parse({"--games", "40", "--alpha=0.25", "--name", "-x-", "--json"});
    EXPECT_EQ(a.get_int("games"), 40);
    EXPECT_DOUBLE_EQ(a.get_double("alpha"), 0.25);
    EXPECT_EQ(a.get_string("name"), "-x-");
    EXPECT_TRUE(a.has("json"));
    EXPECT_FALSE(a.help());
    EXPECT_TRUE(a.positional().empty());
}

TEST(Args, FallbacksAndMissingFlags) {
    const Args a = parse({});
    EXPECT_FALSE(a.has("games"));
    EXPECT_EQ(a.get_int("games", 7), 7);
    EXPECT_DOUBLE_EQ(a.get_double("alpha", 0.5), 0.5);
    EXPECT_EQ(a.get_string("name", "anon"), "anon");
    EXPECT_THROW(a.get_int("games"), UsageError);
    EXPECT_THROW(a.get_int_list("counts"), UsageError);
}

TEST(Args, NegativeNumbersArePositionalsOrValues) {
    const Args a = parse({"run", "--alpha", "-3.5", "-2", "--", "--games"});
    EXPECT_DOUBLE_EQ(a.get_double("alpha"), -3.5);
    EXPECT_EQ(a.positional(), (std::vector<std::string>{"run", "-2", "--games"}));
    EXPECT_FALSE(a.has("games"));
}

TEST(Args, IntegerLists) {
    EXPECT_EQ(parse({"--counts", "1, 2,3"}).get_int_list("counts"),
              (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(parse({"--counts=-4"}).get_int_list("counts"), (std::vector<int64_t>{-4}));
    EXPECT_THROW(parse({"--counts", "1,,3"}).get_int_list("counts"), UsageError);
    EXPECT_THROW(parse({"--counts", "1,2,"}).get_int_list("counts"), UsageError);
    EXPECT_THROW(parse({"--counts", "1.5"}).get_int_list("counts"), UsageError);
}

TEST(Args, MalformedValues) {
    EXPECT_THROW(parse({"--games", "4x"}).get_int("games"), UsageError);
    EXPECT_THROW(parse({"--games", "99999999999999999999"}).get_int("games"), UsageError);
    EXPECT_THROW(parse({"--alpha", "nan"}).get_double("alpha"), UsageError);
    EXPECT_THROW(parse({"--alpha", "inf"}).get_double("alpha", 1), UsageError);
    EXPECT_THROW(parse({"--alpha", ""}).get_double("alpha"), UsageError);
    EXPECT_DOUBLE_EQ(parse({"--alpha", "+1e-2"}).get_double("alpha"), 0.01);
}

TEST(Args, CommandLineMistakes) {
    EXPECT_THROW(parse({"--frobnicate"}), UsageError);
    EXPECT_THROW(parse({"-g", "4"}), UsageError);
    EXPECT_THROW(parse({"--games"}), UsageError);
    EXPECT_THROW(parse({"--json=1"}), UsageError);
    EXPECT_THROW(parse({"--games", "1", "--games=2"}), UsageError);
    EXPECT_THROW(parse({"--help=yes"}), UsageError);
    try {
        parse({"--frobnicate"});
    } catch (const UsageError& e) {
        EXPECT_STREQ(e.what(), "unknown flag --frobnicate");
    }
}

TEST(Args, HelpIsAlwaysAccepted) {
    EXPECT_TRUE(parse({"--games", "3", "--help"}).help());
    const std::string help = sparring::cli::format_help("try", "[flags]", "Tries.", Flags);
    EXPECT_NE(help.find("usage: sparring try [flags]"), std::string::npos);
    EXPECT_NE(help.find("--counts A,B"), std::string::npos);
    EXPECT_NE(help.find("--help"), std::string::npos);
}

// Asking for a flag the command never declared is a programming error, not a user's.
TEST(Args, UndeclaredFlagIsALogicError) {
    const Args a = parse({});
    EXPECT_THROW(a.has("nope"), std::logic_error);
    EXPECT_THROW(a.get_string("json"), std::logic_error);
}

}  // namespace
