// The registry of run kinds: one module per kind, found by enum, name and proto value, and
// unknown kinds refused with a message that names the known ones.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {
namespace {

TEST(RunKinds, EveryProtoKindHasExactlyOneModule) {
    const google::protobuf::EnumDescriptor* kinds = v1::RunKind_descriptor();
    size_t known = 0;
    for (int i = 0; i < kinds->value_count(); ++i) {
        const auto value = v1::RunKind(kinds->value(i)->number());
        if (value == v1::RUN_KIND_UNSPECIFIED) continue;
        ++known;
        absl::StatusOr<const RunKindModule*> module = run_kind_from_proto(value);
        ASSERT_TRUE(module.ok()) << kinds->value(i)->name() << ": " << module.status();
        EXPECT_EQ((*module)->proto_kind(), value);
        size_t holders = 0;
        for (const RunKindModule* m : run_kinds()) holders += m->proto_kind() == value;
        EXPECT_EQ(holders, 1u) << kinds->value(i)->name();
    }
    EXPECT_EQ(run_kinds().size(), known);
}

TEST(RunKinds, EveryEnumValueHasItsModuleInEnumOrder) {
    const auto& modules = run_kinds();
    for (size_t i = 0; i < modules.size(); ++i) {
        EXPECT_EQ(modules[i]->kind(), RunKind(i));
        EXPECT_EQ(&run_kind(RunKind(i)), modules[i]);
    }
    EXPECT_THROW(run_kind(RunKind(modules.size())), std::logic_error);
}

TEST(RunKinds, NamesAndLabelsAreUniqueAndFoundAgain) {
    std::set<std::string_view> names;
    std::set<std::string_view> labels;
    for (const RunKindModule* module : run_kinds()) {
        EXPECT_FALSE(module->name().empty());
        EXPECT_TRUE(names.insert(module->name()).second) << module->name();
        EXPECT_TRUE(labels.insert(module->label()).second) << module->label();
        EXPECT_EQ(find_run_kind(module->name()), module);
        EXPECT_EQ(parse_run_kind(run_kind_name(module->kind())), module->kind());
    }
    // The names stored in existing databases stay what they were.
    EXPECT_EQ(run_kind_name(RunKind::Regression), "regression");
    EXPECT_EQ(run_kind_name(RunKind::FixedGames), "fixed_games");
    EXPECT_EQ(run_kind_name(RunKind::Tune), "tune");
    EXPECT_EQ(run_kind_name(RunKind::Generate), "generate");
    EXPECT_EQ(run_kind_name(RunKind::Train), "train");
    EXPECT_EQ(run_kind_name(RunKind::Chain), "chain");
}

TEST(RunKinds, UnknownKindsAreRefusedByName) {
    EXPECT_EQ(find_run_kind("sparring"), nullptr);
    EXPECT_FALSE(parse_run_kind("").has_value());
    for (const v1::RunKind value : {v1::RUN_KIND_UNSPECIFIED, v1::RunKind(99)}) {
        absl::StatusOr<const RunKindModule*> module = run_kind_from_proto(value);
        ASSERT_FALSE(module.ok());
        EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
        for (const RunKindModule* m : run_kinds())
            EXPECT_NE(std::string(module.status().message()).find(m->label()), std::string::npos)
                << module.status();
    }
    v1::RunSpec spec;
    spec.set_test_version("a");
    spec.set_base_version("b");
    spec.mutable_time_control()->set_nodes(100);
    const absl::Status unnamed = run_spec_from_proto(spec).status();
    EXPECT_EQ(unnamed.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(unnamed.message()).rfind("the run has no kind: regression (SPRT), ", 0),
              0u)
        << unnamed;
}

TEST(RunKinds, SettingsOfAnotherKindAreRefused) {
    v1::RunSpec spec;
    spec.set_kind(v1::RUN_KIND_REGRESSION);
    spec.set_test_version("a");
    spec.set_base_version("b");
    spec.mutable_time_control()->set_nodes(100);
    spec.mutable_tune()->add_params()->set_name("KnightValueMg");
    absl::StatusOr<RunSpec> read = run_spec_from_proto(spec);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().message(), "a regression (SPRT) run takes no tune settings");

    spec.set_kind(v1::RUN_KIND_TUNE);
    read = run_spec_from_proto(spec);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->kind, RunKind::Tune);
    ASSERT_EQ(read->tune.params.size(), 1u);
    EXPECT_EQ(read->tune.params[0].name, "KnightValueMg");
}

// A spec of the given kind with versions and a node count.
v1::RunSpec spec_of(v1::RunKind kind) {
    v1::RunSpec spec;
    spec.set_kind(kind);
    spec.set_test_version("a");
    spec.set_base_version("b");
    spec.mutable_time_control()->set_nodes(100);
    return spec;
}

TEST(RunKinds, GamesAreAdjudicatedByDefaultUnlessARuleIsTurnedOff) {
    for (const v1::RunKind kind : {v1::RUN_KIND_REGRESSION, v1::RUN_KIND_FIXED_GAMES}) {
        const absl::StatusOr<RunSpec> read = run_spec_from_proto(spec_of(kind));
        ASSERT_TRUE(read.ok()) << read.status();
        ASSERT_TRUE(read->adjudication.draw);
        EXPECT_EQ(match::draw_rule_text(*read->adjudication.draw),
                  "movenumber=34 movecount=8 score=20");
        ASSERT_TRUE(read->adjudication.resign);
        EXPECT_EQ(match::resign_rule_text(*read->adjudication.resign),
                  "movecount=3 score=400 twosided=true");
        EXPECT_EQ(read->adjudication.max_plies, 0);
    }
    v1::RunSpec spec = spec_of(v1::RUN_KIND_REGRESSION);
    spec.mutable_adjudication()->set_draw("off");
    spec.mutable_adjudication()->set_resign("movecount=5,score=1000");
    spec.mutable_adjudication()->set_max_plies(400);
    absl::StatusOr<RunSpec> read = run_spec_from_proto(spec);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_FALSE(read->adjudication.draw);
    ASSERT_TRUE(read->adjudication.resign);
    EXPECT_EQ(read->adjudication.resign->move_count, 5);
    EXPECT_EQ(read->adjudication.resign->score_cp, 1000);
    EXPECT_FALSE(read->adjudication.resign->two_sided);
    EXPECT_EQ(read->adjudication.max_plies, 400);

    // The status and the lease say the rules in force, "" for the one turned off.
    coordinator::Run run;
    run.spec = *read;
    v1::RunStatus status;
    run_to_proto(run, &status);
    EXPECT_EQ(status.spec().adjudication().draw(), "");
    EXPECT_EQ(status.spec().adjudication().resign(), "movecount=5 score=1000 twosided=false");
    EXPECT_EQ(status.spec().adjudication().max_plies(), 400u);
}

TEST(RunKinds, ARunsStatusSaysWhatItsSprtHasDecided) {
    coordinator::Run run;
    run.state = RunState::Finished;
    run.counts.pairs = 100;
    run.counts.penta.counts = {10, 20, 40, 20, 10};
    run.sprt.lower = -2.94;
    run.sprt.upper = 2.94;
    const auto outcome = [&run](double llr) {
        run.sprt.llr = llr;
        v1::RunStatus status;
        run_to_proto(run, &status);
        return status.sprt_outcome();
    };
    EXPECT_EQ(outcome(3.0), v1::SPRT_OUTCOME_H1);
    EXPECT_EQ(outcome(-3.0), v1::SPRT_OUTCOME_H0);
    EXPECT_EQ(outcome(1.5), v1::SPRT_OUTCOME_UNSPECIFIED);
}

TEST(RunKinds, BadAdjudicationRulesAreRefusedAndGenerationRunsTakeNone) {
    const auto refusal = [](const v1::RunSpec& spec) {
        const absl::Status status = run_spec_from_proto(spec).status();
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
        return std::string(status.message());
    };
    v1::RunSpec spec = spec_of(v1::RUN_KIND_REGRESSION);
    spec.mutable_adjudication()->set_draw("movecount=8");
    EXPECT_EQ(refusal(spec), "bad draw adjudication 'movecount=8': missing score=N");
    spec.mutable_adjudication()->set_draw(std::string("movecount=8 score=20\n", 21));
    EXPECT_EQ(refusal(spec), "adjudication rules are one line of at most 256 characters");
    spec.mutable_adjudication()->clear_draw();
    spec.mutable_adjudication()->set_resign("score=400 movecount=3 twosided=maybe");
    EXPECT_EQ(refusal(spec),
              "bad resign adjudication 'score=400 movecount=3 twosided=maybe': "
              "twosided must be true or false, got 'maybe'");
    spec.mutable_adjudication()->clear_resign();
    spec.mutable_adjudication()->set_max_plies(100001);
    EXPECT_EQ(refusal(spec), "adjudication max_plies is at most 100000 (0: no limit)");

    v1::RunSpec generate = spec_of(v1::RUN_KIND_GENERATE);
    generate.mutable_adjudication()->set_resign("off");
    EXPECT_EQ(refusal(generate), "a generate run plays every game out: it takes no adjudication");
}

// A run's threads per engine: 0 is 1; out of range, or on a kind that plays the built-in
// engine alone, refused with the reason.
TEST(RunKinds, ThreadsPerEngineAreBoundedAndOnlyForRunsOfTheirVersions) {
    v1::RunSpec spec = spec_of(v1::RUN_KIND_FIXED_GAMES);
    absl::StatusOr<RunSpec> read = run_spec_from_proto(spec);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->threads, 1);
    RunSpec checked = *read;
    checked.threads = 257;
    EXPECT_EQ(check_run_spec(checked).message(), "threads must be in 1..256, got 257");
    checked.threads = 256;
    EXPECT_NE(check_run_spec(checked).message(), "threads must be in 1..256, got 256");
    spec.set_threads(4);
    read = run_spec_from_proto(spec);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->threads, 4);
    RunSpec generate = *read;
    generate.kind = RunKind::Generate;
    EXPECT_EQ(check_run_spec(generate).message(),
              "a generate run plays the built-in engine, which searches with one thread: it "
              "takes no threads");
}

// How a game ended comes with each reported game; a fault is a loss for the engine at fault,
// so a drawn game lost by a fault, or an ending the protocol does not know, is refused.
TEST(ReportConversion, GameEndingsAreReadAndImpossibleOnesRefused) {
    v1::ReportResultsRequest request;
    v1::GamePair* pair = request.add_pairs();
    pair->mutable_first()->set_outcome(v1::GAME_OUTCOME_LOSS);
    pair->mutable_first()->set_ending(v1::GAME_ENDING_TIME_LOSS);
    pair->mutable_second()->set_outcome(v1::GAME_OUTCOME_DRAW);
    pair->mutable_second()->set_ending(v1::GAME_ENDING_ADJUDICATION);
    absl::StatusOr<Report> read = report_from_proto(request);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->pairs[0].games[0].ending, GameEnding::TimeLoss);
    EXPECT_EQ(read->pairs[0].games[1].ending, GameEnding::Adjudication);

    pair->mutable_second()->set_ending(v1::GAME_ENDING_CRASH);
    read = report_from_proto(request);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(read.status().message(), "pair 0: a game lost by crash cannot be a draw");

    pair->mutable_second()->set_ending(v1::GameEnding(42));
    read = report_from_proto(request);
    EXPECT_EQ(read.status().message(), "pair 0: a game has an unknown ending 42");
}

}  // namespace
}  // namespace sparring::coordinator
