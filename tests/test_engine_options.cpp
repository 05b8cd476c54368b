// The options an engine declares: option lines parsed (names with spaces, every type, bounds
// checked), asked of real engines (ours and Debian's Stockfish), and compared.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "match/engine_options.h"
#include "service/needs.h"

namespace sparring::match {
namespace {

const std::string OurEngine = std::string(SPARRING_BINARY_DIR) + "/engine/sparring-engine";
const std::string StockfishPath = "/usr/games/stockfish";

UciSpec engine(const std::string& command) {
    UciSpec spec;
    spec.command = command;
    return spec;
}

const EngineOption* find(const std::vector<EngineOption>& options, const std::string& name) {
    const auto it = std::find_if(options.begin(), options.end(),
                                 [&](const EngineOption& o) { return o.name == name; });
    return it == options.end() ? nullptr : &*it;
}

TEST(EngineOptions, OptionLinesOfEveryTypeAreRead) {
    const auto spin =
        parse_option_line("option name Skill Level type spin default 20 min 0 max 20");
    ASSERT_TRUE(spin);
    EXPECT_EQ(spin->name, "Skill Level");
    EXPECT_EQ(spin->type, "spin");
    EXPECT_EQ(spin->default_value, "20");
    EXPECT_EQ(spin->min, 0);
    EXPECT_EQ(spin->max, 20);
    const auto check = parse_option_line("option  name Ponder type check default false");
    ASSERT_TRUE(check);
    EXPECT_EQ(check->name, "Ponder");
    EXPECT_EQ(check->default_value, "false");
    const auto text = parse_option_line("option name Debug Log File type string default <empty>");
    ASSERT_TRUE(text);
    EXPECT_EQ(text->name, "Debug Log File");
    EXPECT_EQ(text->default_value, "<empty>");
    const auto combo =
        parse_option_line("option name Style type combo default Normal var Solid var Normal");
    ASSERT_TRUE(combo);
    EXPECT_EQ(combo->default_value, "Normal");
    const auto button = parse_option_line("option name Clear Hash type button");
    ASSERT_TRUE(button);
    EXPECT_EQ(button->type, "button");
}

TEST(EngineOptions, MalformedOptionLinesAreNotOptions) {
    for (const char* line : {
             "id name Stockfish",
             "option type spin default 1 min 0 max 2",               // no name
             "option name X default 1",                              // no type
             "option name X type knob default 1",                    // unknown type
             "option name X type spin default 1 min 0",              // no max
             "option name X type spin default 3 min 0 max 2",        // default above max
             "option name X type spin default 1 min 5 max 2",        // min above max
             "option name X type spin default one min 0 max 2",      // not a number
             "option name X type spin default 1 min 0 max 2 min 1",  // min twice
             "option name X\x01 type check default true",            // a control character
         })
        EXPECT_FALSE(parse_option_line(line)) << line;
}

TEST(EngineOptions, OurEngineDeclaresItsParametersAsSpinOptions) {
    std::string error;
    const auto options = read_engine_options(engine(OurEngine), 10'000, &error);
    ASSERT_TRUE(options) << error;
    const EngineOption* knight = find(*options, "KnightValueMg");
    ASSERT_NE(knight, nullptr);
    EXPECT_EQ(knight->type, "spin");
    EXPECT_LT(knight->min, knight->max);
    EXPECT_GT(std::count_if(options->begin(), options->end(),
                            [](const EngineOption& o) { return o.type == "spin"; }),
              300);
    EXPECT_EQ(spin_options_difference(*options, *options), "");
}

TEST(EngineOptions, StockfishDeclaresItsOptions) {
    if (access(StockfishPath.c_str(), X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    std::string error;
    const auto options = read_engine_options(engine(StockfishPath), 10'000, &error);
    ASSERT_TRUE(options) << error;
    const EngineOption* hash = find(*options, "Hash");
    ASSERT_NE(hash, nullptr);
    EXPECT_EQ(hash->type, "spin");
    EXPECT_EQ(hash->min, 1);
    const EngineOption* threads = find(*options, "Threads");
    ASSERT_NE(threads, nullptr);
    EXPECT_EQ(threads->default_value, "1");
}

TEST(EngineOptions, DifferencesInSpinOptionsAreNamed) {
    const std::vector<EngineOption> recorded = {{"Mobility", "spin", "100", 0, 200},
                                                {"Ponder", "check", "false", 0, 0},
                                                {"Passed Pawns", "spin", "100", 0, 200}};
    std::vector<EngineOption> reported = recorded;
    reported[0].max = 300;
    reported.erase(reported.begin() + 2);
    reported.push_back({"King Safety", "spin", "100", 0, 200});
    reported[1].default_value = "true";  // not a spin option: not compared
    EXPECT_EQ(spin_options_difference(recorded, reported),
              "Mobility is Mobility spin 100 [0, 300], recorded Mobility spin 100 [0, 200]; no "
              "spin option Passed Pawns; an unrecorded spin option King Safety");
    // Names compare as engines read them: case and runs of spaces do not matter.
    reported = recorded;
    reported[2].name = "passed  pawns";
    EXPECT_EQ(spin_options_difference(recorded, reported), "");
}

TEST(EngineOptions, AnEngineThatCannotStartOrNeverAnswersIsAnError) {
    std::string error;
    EXPECT_FALSE(read_engine_options(engine("/nonexistent/engine"), 2'000, &error));
    EXPECT_NE(error.find("/nonexistent/engine"), std::string::npos) << error;
    error.clear();
    EXPECT_FALSE(read_engine_options(engine("/bin/cat"), 500, &error));
    EXPECT_NE(error.find("no 'uciok'"), std::string::npos) << error;
}

}  // namespace
}  // namespace sparring::match
