// The CLI's table of run kinds: every kind of the protocol has its own entry, `submit`'s
// words and --kind values select the right one, and each entry builds its spec from the
// flags of `submit` with its own defaults.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_display.h"
#include "cli/run_kinds.h"

namespace sparring::cli {
namespace {

// Parses a command line of `submit` (without the program name) against its flags.
class SubmitLine {
  public:
    // Declares submit's flags and parses the arguments; CLI11's errors propagate.
    explicit SubmitLine(std::vector<std::string> arguments) {
        std::reverse(arguments.begin(), arguments.end());
        app.parse(arguments);
    }
    CLI::App app{"test", "sparring submit"};
    SubmitFlags flags{app};
};

// Returns what print_table writes for rows.
std::string printed(const std::vector<std::vector<std::string>>& rows) {
    std::ostringstream out;
    std::streambuf* saved = std::cout.rdbuf(out.rdbuf());
    print_table(rows);
    std::cout.rdbuf(saved);
    return out.str();
}

TEST(CliTables, ControlCharactersInCellsAreEscapedAndColumnsStayAligned) {
    // The worker name of the issue: colour and screen-clearing escapes and a forged row.
    const std::string hostile = "box\x1b[31m\x1b[2J\n7  forged  active";
    const std::string text = printed({{"ID", "NAME", "STATE"}, {"1", hostile, "active"}});
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // header and one row
    EXPECT_NE(text.find("box\\e[31m\\e[2J\\n7  forged  active"), std::string::npos) << text;
    // The STATE column starts at the same place in both lines.
    const size_t newline = text.find('\n');
    EXPECT_EQ(text.find("STATE"), text.rfind("active") - newline - 1);
}

TEST(CliRunKinds, EveryKindOfTheProtocolHasItsOwnEntry) {
    const auto* kinds = v1::RunKind_descriptor();
    std::set<std::string_view> names;
    for (int i = 0; i < kinds->value_count(); ++i) {
        const auto kind = v1::RunKind(kinds->value(i)->number());
        if (kind == v1::RUN_KIND_UNSPECIFIED) continue;
        const CliRunKind& entry = cli_run_kind(kind);
        EXPECT_EQ(entry.proto_kind, kind) << kinds->value(i)->name() << " has no CLI entry";
        EXPECT_TRUE(names.insert(entry.name).second) << "two kinds are named " << entry.name;
        EXPECT_TRUE(entry.show && entry.runs_cells && entry.progress && entry.submitted);
    }
}

TEST(CliRunKinds, SubmitWordsAndKindFlagsSelectTheirKinds) {
    EXPECT_EQ(cli_run_kind_by_flag("regression")->proto_kind, v1::RUN_KIND_REGRESSION);
    EXPECT_EQ(cli_run_kind_by_flag("fixed")->proto_kind, v1::RUN_KIND_FIXED_GAMES);
    EXPECT_EQ(cli_run_kind_by_flag("tune"), nullptr);
    EXPECT_EQ(cli_run_kind_by_flag(""), nullptr);
    EXPECT_EQ(cli_run_kind_by_word("tune")->proto_kind, v1::RUN_KIND_TUNE);
    EXPECT_EQ(cli_run_kind_by_word("generate")->proto_kind, v1::RUN_KIND_GENERATE);
    EXPECT_EQ(cli_run_kind_by_word("train")->proto_kind, v1::RUN_KIND_TRAIN);
    EXPECT_EQ(cli_run_kind_by_word("chain"), nullptr);
    EXPECT_EQ(cli_run_kind_by_word(""), nullptr);
}

TEST(CliRunKinds, RegressionAndFixedGamesHaveTheirOwnDefaults) {
    SubmitLine line({"a", "b"});
    v1::RunSpec regression;
    cli_run_kind_by_flag("regression")->read_spec(line.flags, regression);
    EXPECT_EQ(regression.kind(), v1::RUN_KIND_REGRESSION);
    EXPECT_EQ(regression.games(), 20000u);
    EXPECT_EQ(regression.sprt().elo1(), 5);
    v1::RunSpec fixed;
    cli_run_kind_by_flag("fixed")->read_spec(line.flags, fixed);
    EXPECT_EQ(fixed.kind(), v1::RUN_KIND_FIXED_GAMES);
    EXPECT_EQ(fixed.games(), 1000u);
    EXPECT_FALSE(fixed.has_sprt());
}

TEST(CliRunKinds, AKindWithoutAnSprtRefusesSprtFlags) {
    SubmitLine line({"a", "b", "--elo1", "3"});
    v1::RunSpec spec;
    EXPECT_THROW(cli_run_kind_by_flag("fixed")->read_spec(line.flags, spec), UsageError);
}

TEST(CliRunKinds, SubmitTrainMakesATrainingRunOrAChain) {
    SubmitLine training({"train", "--version", "v", "--data", "3,4"});
    v1::RunSpec train;
    cli_run_kind_by_word("train")->read_spec(training.flags, train);
    EXPECT_EQ(train.kind(), v1::RUN_KIND_TRAIN);
    EXPECT_EQ(train.train().data_runs_size(), 2);
    EXPECT_FALSE(cli_run_kind(train.kind()).takes_book);

    SubmitLine chained({"train", "--version", "v", "--generations", "2", "--games", "10"});
    v1::RunSpec chain;
    cli_run_kind_by_word("train")->read_spec(chained.flags, chain);
    EXPECT_EQ(chain.kind(), v1::RUN_KIND_CHAIN);
    EXPECT_EQ(chain.chain().generations(), 2u);
    EXPECT_TRUE(chain.has_sprt());
    EXPECT_TRUE(cli_run_kind(chain.kind()).takes_book);
}

// Issue 50: `versions add x --set A=1 --set B=2` failed with CLI11's "At Most 1 required but
// received 2"; every flag that takes a list accumulates its repeats.
TEST(CliFlags, RepeatedListFlagsAccumulate) {
    SubmitLine training({"train", "--version", "v", "--data", "3", "--data", "4,5", "--select",
                         "KnightValueMg", "--select", "group:Material"});
    v1::RunSpec train;
    cli_run_kind_by_word("train")->read_spec(training.flags, train);
    EXPECT_EQ(train.train().data_runs_size(), 3);
    EXPECT_EQ(train.train().select(), "KnightValueMg,group:Material");
    SubmitLine tune({"tune", "a", "b", "--params", "KnightValueMg", "--params", "BishopPairMg"});
    EXPECT_EQ(tune.flags.params, "KnightValueMg,BishopPairMg");

    const std::vector<std::pair<std::string_view, std::vector<std::string>>> lines = {
        {"versions",
         {"add", "x", "--set", "A=1", "--set", "B=2", "--option", "Hash=16", "--option",
          "Threads=1"}},
        {"submit", {"generate", "--version", "v", "--filter", "check", "--filter", "mate"}},
        {"train",
         {"--data", "a.epd", "--data", "b.epd", "--select", "all", "--select", "k", "--filter",
          "check", "--filter", "mate"}},
        {"positions",
         {"convert", "--in", "a.epd", "--in", "b.pgn", "--filter", "check", "--filter", "mate"}}};
    for (const auto& [name, arguments] : lines) {
        const auto command =
            std::find_if(commands().begin(), commands().end(),
                         [name = name](const Command& c) { return c.name == name; });
        ASSERT_NE(command, commands().end()) << name;
        CLI::App app{"test", std::string(name)};
        // The command it returns owns the flags the parse writes: it must outlive the parse.
        const std::function<int()> run = command->declare(app);
        std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
        EXPECT_NO_THROW(app.parse(reversed)) << name;
    }
}

TEST(CliRunKinds, RunsAndProgressShowWhatTheKindHas) {
    v1::RunStatus run;
    run.set_id(7);
    run.mutable_spec()->set_kind(v1::RUN_KIND_REGRESSION);
    run.mutable_spec()->set_test_version("a");
    run.mutable_spec()->set_base_version("b");
    run.mutable_spec()->mutable_time_control()->set_nodes(1000);
    run.set_llr(1.5);
    const CliRunKind& regression = cli_run_kind(run.spec().kind());
    EXPECT_EQ(regression.runs_cells(run).time_control, "nodes=1000");
    EXPECT_NE(regression.runs_cells(run).llr, "-");
    EXPECT_NE(regression.progress(run).find("LLR 1.50"), std::string::npos);

    run.mutable_spec()->set_kind(v1::RUN_KIND_TRAIN);
    const RunsCells train = cli_run_kind(run.spec().kind()).runs_cells(run);
    EXPECT_EQ(train.time_control + train.elo + train.llr, "---");
    EXPECT_EQ(cli_run_kind(run.spec().kind()).progress(run), "run 7 training: epoch 0/0, loss -");
}

// Issue 49: a result that names the state already ("stopped by user", "stopped: its leases
// failed ...") is shown once, not as "stopped: stopped: ...".
TEST(CliRunKinds, AStateIsShownOnceBeforeItsResult) {
    v1::RunStatus run;
    run.set_state(v1::RUN_STATE_STOPPED);
    run.set_result("stopped: its leases failed on 2 workers");
    EXPECT_EQ(state_text(run), "stopped: its leases failed on 2 workers");
    run.set_result("stopped by user");
    EXPECT_EQ(state_text(run), "stopped by user");
    EXPECT_EQ(state_text(run, ", "), "stopped by user");
    run.set_result("stoppedness");
    EXPECT_EQ(state_text(run), "stopped: stoppedness");
    run.set_state(v1::RUN_STATE_FINISHED);
    run.set_result("H1 accepted");
    EXPECT_EQ(state_text(run), "finished: H1 accepted");
    EXPECT_EQ(state_text(run, ", "), "finished, H1 accepted");
    run.set_state(v1::RUN_STATE_ACTIVE);
    run.clear_result();
    EXPECT_EQ(state_text(run), "active");
}

}  // namespace
}  // namespace sparring::cli
