// The CLI's parameters of `submit tune`: --param NAME[:START:MIN:MAX:C_END:R_END] and the
// OpenBench/fishtest SPSA file, with the file, line and column of a mistake; and the rows of
// `versions options`.
#include <gtest/gtest.h>

#include "cli/engine_options.h"
#include "common/flags.h"

namespace sparring::cli {
namespace {

// Returns the message of the UsageError fn throws ("" when it throws none).
template <typename Fn>
std::string usage_error(Fn fn) {
    try {
        fn();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(TuneParams, AParamFlagSetsTheFieldsItGives) {
    v1::TuneParam p = parse_tune_param("Skill Level");
    EXPECT_EQ(p.name(), "Skill Level");
    EXPECT_FALSE(p.has_start() || p.has_min() || p.has_max() || p.has_c_end() || p.has_r_end());
    p = parse_tune_param("Mobility:120:50:200:8:0.002");
    EXPECT_EQ(p.name(), "Mobility");
    EXPECT_EQ(p.start(), 120);
    EXPECT_EQ(p.min(), 50);
    EXPECT_EQ(p.max(), 200);
    EXPECT_EQ(p.c_end(), 8);
    EXPECT_EQ(p.r_end(), 0.002);
    p = parse_tune_param("Skill Level::0:10");
    EXPECT_FALSE(p.has_start());
    EXPECT_EQ(p.min(), 0);
    EXPECT_EQ(p.max(), 10);
    EXPECT_FALSE(p.has_c_end());
}

TEST(TuneParams, AMalformedParamFlagIsAUsageError) {
    EXPECT_EQ(usage_error([] { parse_tune_param(":1:2:3"); }),
              "--param needs NAME[:START:MIN:MAX:C_END:R_END], got ':1:2:3'");
    EXPECT_EQ(usage_error([] { parse_tune_param("A:1:2:3:4:5:6"); }),
              "--param needs NAME[:START:MIN:MAX:C_END:R_END], got 'A:1:2:3:4:5:6'");
    EXPECT_EQ(usage_error([] { parse_tune_param("A:1:x"); }), "--param A:1:x: 'x' is not a number");
}

TEST(TuneParams, AnSpsaFileGivesEveryFieldOfEachLine) {
    const auto params = parse_params_file(
        "# glaurung's evaluation weights\n"
        "Mobility (Middle Game), int, 60, 0, 200, 10, 0.0020\n"
        "\n"
        "Passed Pawns (Endgame),float,140.5,0,200,10,0.002\r\n",
        "weights.txt");
    ASSERT_EQ(params.size(), 2u);
    EXPECT_EQ(params[0].name(), "Mobility (Middle Game)");
    EXPECT_EQ(params[0].start(), 60);
    EXPECT_EQ(params[0].max(), 200);
    EXPECT_EQ(params[0].r_end(), 0.002);
    EXPECT_EQ(params[1].name(), "Passed Pawns (Endgame)");
    EXPECT_EQ(params[1].start(), 140.5);
}

TEST(TuneParams, AMistakeInAnSpsaFileNamesItsLineAndColumn) {
    EXPECT_EQ(
        usage_error(
            [] { parse_params_file("A, int, 1, 0, 2, 1, 0.002\nB, int, 1, 0\n", "p.txt"); }),
        "p.txt:2:12: expected 7 fields (NAME, int|float, START, MIN, MAX, C_END, R_END), got 4");
    EXPECT_EQ(usage_error([] { parse_params_file("A, double, 1, 0, 2, 1, 0.002\n", "p.txt"); }),
              "p.txt:1:4: the type must be int or float, got 'double'");
    EXPECT_EQ(usage_error([] { parse_params_file("A, int, 1, zero, 2, 1, 0.002\n", "p.txt"); }),
              "p.txt:1:12: 'zero' is not a number");
    EXPECT_EQ(usage_error([] { parse_params_file(" , int, 1, 0, 2, 1, 0.002\n", "p.txt"); }),
              "p.txt:1:2: a parameter needs a name");
    EXPECT_EQ(usage_error([] { parse_params_file("# nothing\n\n", "p.txt"); }),
              "p.txt: no parameters");
}

// The rows of `versions options`: what the coordinator lists, a built-in version's parameters
// included (their listing is the coordinator's: VersionOptions.* in test_tune_run.cpp).
TEST(TuneParams, VersionOptionsListAnEnginesOptions) {
    v1::Version sf;
    v1::EngineOption* hash = sf.add_options();
    hash->set_name("Hash");
    hash->set_type("spin");
    hash->set_default_value("16");
    hash->set_min(1);
    hash->set_max(1024);
    v1::EngineOption* file = sf.add_options();
    file->set_name("Debug Log File");
    file->set_type("string");
    const auto rows = engine_option_rows(sf);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1], (std::vector<std::string>{"Hash", "spin", "16", "1", "1024"}));
    EXPECT_EQ(rows[2], (std::vector<std::string>{"Debug Log File", "string", "<empty>", "", ""}));
}

}  // namespace
}  // namespace sparring::cli
