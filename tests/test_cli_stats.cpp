// Runs the real `sparring` binary: `stats` with good and bad arguments, help and dispatch.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "stats/stats.h"

namespace {

using namespace sparring::cli_test;

// Returns the number after "key": in a JSON text, or NaN when absent.
double json_value(const std::string& json, const std::string& key) {
    std::smatch m;
    if (!std::regex_search(json, m, std::regex("\"" + key + "\":(-?[0-9.eE+-]+)")))
        return std::nan("");
    return std::stod(m[1]);
}

TEST(CliStats, PentanomialTextReport) {
    const CliResult o = run("stats --penta 5,20,40,25,10");
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.err, "");
    EXPECT_NE(o.out.find("200 (100 pairs"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Score   53.75%"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Elo     26.11"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("nElo    36.35"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("LLR"), std::string::npos) << o.out;
}

TEST(CliStats, SprtLineWithBoundsAndState) {
    const CliResult o = run("stats --wdl 400,200,100 --elo0 0 --elo1 5 --model logistic");
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("[-2.94, 2.94]  H1"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("logistic"), std::string::npos) << o.out;
}

// The JSON numbers are the library's, for the same counts and hypotheses.
TEST(CliStats, JsonMatchesTheLibrary) {
    const CliResult o = run("stats --penta=3,40,90,30,7 --elo0=-1 --elo1 4 --alpha 0.1 --json");
    ASSERT_EQ(o.status, 0) << o.err;
    using namespace sparring::stats;
    const Pentanomial counts{{3, 40, 90, 30, 7}};
    const EloEstimate e = estimate(counts);
    SprtParams p;
    p.elo0 = -1;
    p.elo1 = 4;
    p.alpha = 0.1;
    const SprtResult r = sprt(counts, p);
    EXPECT_EQ(o.out.front(), '{');
    EXPECT_EQ(json_value(o.out, "games"), 340);
    EXPECT_NEAR(json_value(o.out, "elo"), e.elo, 1e-7);
    EXPECT_NEAR(json_value(o.out, "elo_low"), e.elo_low, 1e-7);
    EXPECT_NEAR(json_value(o.out, "los"), e.los, 1e-9);
    EXPECT_NEAR(json_value(o.out, "nelo_high"), e.nelo_high, 1e-7);
    EXPECT_NEAR(json_value(o.out, "llr"), r.llr, 1e-8);
    EXPECT_NEAR(json_value(o.out, "lower"), r.lower, 1e-8);
    EXPECT_NE(o.out.find("\"model\":\"normalized\""), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"state\":\"continue\""), std::string::npos) << o.out;
}

TEST(CliStats, BadInputIsOneLineAndStatusTwo) {
    const char* bad[] = {
        "stats",
        "stats --penta 1,2,3,4,5 --wdl 1,2,3",
        "stats --penta 1,2,3,4",
        "stats --wdl 1,x,3",
        "stats --wdl 1,-2,3",
        "stats --wdl 1,,3",
        "stats --wdl 1,2,3 --elo0 5 --elo1 5",
        "stats --wdl 1,2,3 --elo0 0 --elo1 5 --alpha 1",
        "stats --wdl 1,2,3 --elo0 0 --elo1 5 --alpha 0",
        "stats --wdl 1,2,3 --elo0 0 --elo1 5 --model bayes",
        "stats --wdl 1,2,3 --elo0 0",
        "stats --wdl 1,2,3 --beta 0.1",
        "stats --wdl 1,2,3 --elo0 zero --elo1 5",
        "stats --wdl 1,2,3 --frobnicate",
        "stats --wdl 1,2,3 --json=yes",
        "stats --wdl",
        "stats --wdl 1,2,3 --wdl 1,2,3",
        "stats --wdl 1,2,3 extra",
        "stats --wdl 1,2,3 --elo0 nan --elo1 5",
    };
    for (const char* args : bad) {
        const CliResult o = run(args);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_EQ(o.out, "") << args;
        EXPECT_TRUE(o.err.starts_with("sparring stats: ")) << args << ": " << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << ": " << o.err;
    }
}

TEST(CliStats, HelpAndDispatch) {
    CliResult o = run("--help");
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("stats"), std::string::npos);
    o = run("help stats");
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("--penta"), std::string::npos);
    o = run("stats --help");
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("--model"), std::string::npos);
    o = run("frobnicate");
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, "sparring: unknown command 'frobnicate' (see 'sparring --help')\n");
    o = run("");
    EXPECT_EQ(o.status, 2);
}

}  // namespace
