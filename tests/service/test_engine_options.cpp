// The options of a version's engine end to end (issue 29, item 1): a UCI version records the
// options its engine declares (read here as `versions add` reads them, from Debian's
// Stockfish); a worker whose engine declares the same spin options plays it, one whose engine
// declares others refuses it as a bench mismatch naming the option; a record no engine could
// declare, or options on a built-in version, are refused and nothing is stored.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "cluster.h"
#include "engine/params.h"
#include "match/engine_options.h"
#include "needs.h"

namespace sparring::testing {
namespace {

// Returns how many times text occurs in a string.
size_t count_occurrences(const std::string& in, const std::string& text) {
    size_t n = 0;
    for (size_t at = in.find(text); at != std::string::npos; at = in.find(text, at + 1)) ++n;
    return n;
}

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

class EngineOptionsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
        cluster = std::make_unique<Cluster>(
            std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1"});
        match::UciSpec engine;
        engine.command = kStockfish;
        std::string error;
        const auto options = match::read_engine_options(engine, 10'000, &error);
        ASSERT_TRUE(options) << error;
        declared = *options;
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Adds Stockfish as a UCI version recording the given options; returns the call's status
    // and the version the coordinator answers with.
    grpc::Status add(const std::string& name, const std::vector<match::EngineOption>& options,
                     v1::Version* added) const {
        v1::AddVersionRequest request;
        v1::Version* v = request.mutable_version();
        v->set_name(name);
        v->mutable_uci()->set_command(kStockfish);
        (*v->mutable_uci()->mutable_options())["Hash"] = "16";
        for (const match::EngineOption& o : options) {
            v1::EngineOption* option = v->add_options();
            option->set_name(o.name);
            option->set_type(o.type);
            option->set_default_value(o.default_value);
            option->set_min(o.min);
            option->set_max(o.max);
        }
        return cluster->users()->AddVersion(Cluster::context(cluster->user_token).get(), request,
                                            added);
    }

    std::unique_ptr<Cluster> cluster;
    std::vector<match::EngineOption> declared;
};

TEST_F(EngineOptionsTest, AVersionKeepsItsEnginesOptionsAndAWorkerWithTheSameEnginePlaysIt) {
    v1::Version added;
    ASSERT_TRUE(add("sf", declared, &added).ok());
    ASSERT_EQ(added.options_size(), int(declared.size()));
    v1::GetVersionRequest get;
    get.set_name("sf");
    v1::Version read;
    ASSERT_TRUE(
        cluster->users()->GetVersion(Cluster::context(cluster->user_token).get(), get, &read).ok());
    ASSERT_EQ(read.options_size(), int(declared.size()));
    bool hash = false;
    for (const v1::EngineOption& o : read.options())
        if (o.name() == "Hash") {
            hash = true;
            EXPECT_EQ(o.type(), "spin");
            EXPECT_EQ(o.min(), 1);
        }
    EXPECT_TRUE(hash);

    cluster->add_version("a");
    cluster->start_worker("w", 1, {"--uci-engines", kStockfish});
    const CommandResult r =
        cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "2", "--tc", "nodes=500"});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus run = cluster->wait_for_run(1, 120s);
    EXPECT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(run.games(), 2u);
    EXPECT_EQ(run.bench_mismatches_size(), 0);
}

TEST_F(EngineOptionsTest, AWorkerWhoseEngineDeclaresOtherSpinOptionsRefusesTheVersion) {
    std::vector<match::EngineOption> recorded = declared;
    for (match::EngineOption& o : recorded)
        if (o.name == "Hash") o.max = o.max - 1;  // as if uploaded from another build
    v1::Version added;
    ASSERT_TRUE(add("sf", recorded, &added).ok());
    cluster->add_version("a");
    const CommandResult r =
        cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "2", "--tc", "nodes=500"});
    ASSERT_EQ(r.status, 0) << r.err;
    cluster->start_worker("w", 1, {"--uci-engines", kStockfish});
    v1::RunStatus run;
    ASSERT_TRUE(wait_until(
        [&] {
            v1::GetRunRequest get;
            get.set_run_id(1);
            return cluster->users()
                       ->GetRun(Cluster::context(cluster->user_token).get(), get, &run)
                       .ok() &&
                   run.bench_mismatches_size() > 0;
        },
        60s));
    const v1::BenchMismatch& mismatch = run.bench_mismatches(0);
    EXPECT_EQ(mismatch.version(), "sf");
    EXPECT_NE(mismatch.message().find("engine options differ on w: Hash is Hash spin"),
              std::string::npos)
        << mismatch.message();
    EXPECT_EQ(run.games(), 0u);
}

TEST_F(EngineOptionsTest, ARecordNoEngineCouldDeclareIsRefusedAndNothingIsStored) {
    std::vector<match::EngineOption> bad = declared;
    bad.push_back({"Weird", "spin", "300", 0, 200});  // its default above its max
    v1::Version added;
    grpc::Status status = add("sf", bad, &added);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("engine options: 'Weird'"), std::string::npos)
        << status.error_message();
    bad = declared;
    bad.push_back({"hash", "spin", "16", 1, 1024});  // Hash twice, as an engine reads it
    status = add("sf", bad, &added);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("are one option"), std::string::npos)
        << status.error_message();
    // The built-in engine's options are its parameters: a built-in version records none.
    v1::AddVersionRequest request;
    request.mutable_version()->set_name("b");
    request.mutable_version()->mutable_builtin()->set_preset("default");
    request.mutable_version()->set_bench(1);
    request.mutable_version()->add_options()->set_name("KnightValueMg");
    status =
        cluster->users()->AddVersion(Cluster::context(cluster->user_token).get(), request, &added);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);
}

// Returns a tuning spec of Stockfish's options on version `version`, 8 games at 500 nodes.
v1::RunSpec tune_spec(const std::string& version, const std::vector<std::string>& options) {
    v1::RunSpec spec;
    spec.set_kind(v1::RUN_KIND_TUNE);
    spec.set_test_version(version);
    spec.set_base_version(version);
    spec.mutable_time_control()->set_nodes(500);
    spec.set_games(8);
    spec.mutable_book()->set_source("two.epd");
    for (const char* moves : {"e2e4", "d2d4"}) {
        v1::Opening* opening = spec.mutable_book()->add_openings();
        opening->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        opening->add_moves(moves);
    }
    for (const std::string& name : options) spec.mutable_tune()->add_params()->set_name(name);
    return spec;
}

// A tuning run of a UCI engine's spin option: each pair plays the engine with the option's
// plus value against its minus value, the values move, and the finished run makes a version
// of the same engine with the tuned value among its options and starts its verification.
TEST_F(EngineOptionsTest, AnEnginesSpinOptionTunesAndItsVerificationFollows) {
    v1::Version added;
    ASSERT_TRUE(add("sf", declared, &added).ok());
    cluster->start_worker("w", 1, {"--uci-engines", kStockfish});
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = tune_spec("sf", {"Skill Level"});
    submit.mutable_spec()->mutable_tune()->mutable_params(0)->set_start(10);
    submit.mutable_spec()->mutable_tune()->set_verify(true);
    submit.mutable_spec()->mutable_tune()->set_verify_games(2);
    submit.mutable_spec()->mutable_sprt()->set_elo1(5);
    submit.mutable_spec()->mutable_sprt()->set_alpha(0.05);
    submit.mutable_spec()->mutable_sprt()->set_beta(0.05);
    v1::RunStatus run;
    const grpc::Status submitted =
        cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
    ASSERT_TRUE(submitted.ok()) << submitted.error_message();
    ASSERT_EQ(run.tune().params_size(), 1);
    EXPECT_EQ(run.tune().params(0).min(), 0);  // the engine's bounds
    EXPECT_EQ(run.tune().params(0).max(), 20);
    run = cluster->wait_for_run(run.id(), 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.result();
    EXPECT_EQ(run.tune().pairs_applied(), 4u);
    const CommandResult pgn = cluster->cli({"export", std::to_string(run.id())});
    ASSERT_EQ(pgn.status, 0) << pgn.err;
    EXPECT_EQ(count_occurrences(pgn.out, "[White \"sf+\"]") +
                  count_occurrences(pgn.out, "[Black \"sf+\"]"),
              8u)
        << pgn.out;
    ASSERT_FALSE(run.tune().tuned_version().empty());
    v1::GetVersionRequest get;
    get.set_name(run.tune().tuned_version());
    v1::Version tuned;
    ASSERT_TRUE(cluster->users()
                    ->GetVersion(Cluster::context(cluster->user_token).get(), get, &tuned)
                    .ok());
    ASSERT_TRUE(tuned.has_uci());
    EXPECT_EQ(tuned.uci().command(), kStockfish);
    EXPECT_EQ(tuned.uci().options().at("Skill Level"),
              std::to_string(std::lround(run.tune().values(0))));
    EXPECT_EQ(tuned.uci().options().at("Hash"), "16");
    EXPECT_EQ(tuned.options_size(), added.options_size());
    EXPECT_GT(run.tune().verify_run_id(), 0);

    // `versions add --from-run` makes the same version of the run's values.
    const CommandResult from_run =
        cluster->cli({"versions", "add", "sf-mine", "--from-run", std::to_string(run.id())});
    ASSERT_EQ(from_run.status, 0) << from_run.err;
    get.set_name("sf-mine");
    v1::Version mine;
    ASSERT_TRUE(
        cluster->users()->GetVersion(Cluster::context(cluster->user_token).get(), get, &mine).ok());
    EXPECT_EQ(mine.uci().command(), kStockfish);
    EXPECT_EQ(mine.uci().options().at("Skill Level"), tuned.uci().options().at("Skill Level"));
    EXPECT_EQ(mine.options_size(), added.options_size());
    // A hash size is the built-in engine's: the UCI engine's is its Hash option.
    const CommandResult hashed = cluster->cli(
        {"versions", "add", "sf-hash", "--from-run", std::to_string(run.id()), "--hash", "16"});
    EXPECT_EQ(hashed.status, 1);
    EXPECT_NE(hashed.err.find("a hash size is the built-in engine's"), std::string::npos)
        << hashed.err;
}

// A tuning run that averages (issue 29, item 5) reports the Polyak-Ruppert average of the
// values after each of its last pairs, and its tuned version and `versions add --from-run` take
// that average; its verification, asked as a fixed-games run with a book seed of its own,
// plays exactly that many games from that seed's random order.
TEST_F(EngineOptionsTest, AnAveragingRunReportsItsAverageAndAFixedVerificationWithItsOwnSeed) {
    v1::Version added;
    ASSERT_TRUE(add("sf", declared, &added).ok());
    cluster->start_worker("w", 1, {"--uci-engines", kStockfish});
    // 8 pairs, one a lease (--pairs-per-thread 1): pairs 5..8 are averaged, each its own
    // trajectory point. c_end 4 of Skill Level's 0..20 moves the value visibly.
    const CommandResult submitted =
        cluster->cli({"submit", "tune", "sf", "--param", "Skill Level:10:0:20:4:0.05", "--games",
                      "16", "--tc", "nodes=300", "--seed", "3", "--average", "0.5", "--verify",
                      "--verify-fixed", "--verify-games", "4", "--verify-seed", "9"});
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.result();
    ASSERT_EQ(run.tune().pairs_applied(), 8u);
    EXPECT_EQ(run.tune().averaged_pairs(), 4u);
    EXPECT_DOUBLE_EQ(run.spec().tune().average(), 0.5);
    ASSERT_EQ(run.tune().result_size(), 1);

    // The result is the mean of the values the trajectory recorded after pairs 5 to 8.
    double sum = 0;
    int points = 0;
    const CommandResult history = cluster->cli({"tune-history", "1", "--csv"});
    ASSERT_EQ(history.status, 0) << history.err;
    std::istringstream lines(history.out);
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
        std::vector<std::string> fields;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
        ASSERT_EQ(fields.size(), 4u) << line;
        if (std::stoi(fields[0]) > 4) {
            sum += std::stod(fields[3]);
            ++points;
        }
    }
    ASSERT_EQ(points, 4) << history.out;
    EXPECT_NEAR(run.tune().result(0), sum / 4, 0.002) << history.out;
    EXPECT_EQ(cluster->query("SELECT CAST(round(100 * result) AS INTEGER) FROM spsa_values "
                             "WHERE run = 1"),
              std::lround(100 * run.tune().result(0)));

    const CommandResult show = cluster->cli({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("RESULT"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("the average of the values after each of the last 4 pairs"),
              std::string::npos)
        << show.out;

    // The tuned version and --from-run take the average, rounded.
    const std::string averaged = std::to_string(std::lround(run.tune().result(0)));
    v1::GetVersionRequest get;
    get.set_name(run.tune().tuned_version());
    v1::Version tuned;
    ASSERT_TRUE(cluster->users()
                    ->GetVersion(Cluster::context(cluster->user_token).get(), get, &tuned)
                    .ok());
    EXPECT_EQ(tuned.uci().options().at("Skill Level"), averaged);
    const CommandResult from_run = cluster->cli({"versions", "add", "sf-avg", "--from-run", "1"});
    ASSERT_EQ(from_run.status, 0) << from_run.err;
    get.set_name("sf-avg");
    v1::Version mine;
    ASSERT_TRUE(
        cluster->users()->GetVersion(Cluster::context(cluster->user_token).get(), get, &mine).ok());
    EXPECT_EQ(mine.uci().options().at("Skill Level"), averaged);

    // The verification: a fixed-games run of exactly 4 games, openings in seed 9's order.
    ASSERT_GT(run.tune().verify_run_id(), 0);
    const v1::RunStatus verify = cluster->wait_for_run(run.tune().verify_run_id(), 300s);
    EXPECT_EQ(verify.spec().kind(), v1::RUN_KIND_FIXED_GAMES);
    EXPECT_EQ(verify.state(), v1::RUN_STATE_FINISHED) << verify.result();
    EXPECT_EQ(verify.games(), 4u);
    EXPECT_TRUE(verify.spec().book().random_order());
    EXPECT_EQ(verify.spec().book().seed(), 9u);
    EXPECT_EQ(run.spec().book().seed(), 3u);
    const CommandResult shown = cluster->cli({"show", "1"});
    EXPECT_NE(shown.out.find("verification: run 2"), std::string::npos) << shown.out;
}

// A tuning run of an averaging fraction outside [0, 1), or verification settings without a
// verification, is refused and nothing is stored.
TEST_F(EngineOptionsTest, BadAveragingAndVerificationSettingsAreRefused) {
    v1::Version added;
    ASSERT_TRUE(add("sf", declared, &added).ok());
    for (const char* average : {"1", "-0.1", "nan", "x"}) {
        const CommandResult r =
            cluster->cli({"submit", "tune", "sf", "--param", "Skill Level", "--average", average});
        EXPECT_EQ(r.status, 2) << average << ": " << r.err;
        EXPECT_NE(r.err.find("--average"), std::string::npos) << r.err;
    }
    for (const char* flag : {"--verify-fixed", "--verify-seed"}) {
        std::vector<std::string> args = {"submit", "tune", "sf", "--param", "Skill Level", flag};
        if (std::string(flag) == "--verify-seed") args.push_back("4");
        const CommandResult r = cluster->cli(args);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find(std::string(flag) + " needs --verify"), std::string::npos) << r.err;
    }
    // The same mistakes through the API, past the CLI's checks.
    for (double average : {1.0, -0.5, 2.0}) {
        v1::SubmitRunRequest submit;
        *submit.mutable_spec() = tune_spec("sf", {"Skill Level"});
        submit.mutable_spec()->mutable_tune()->set_average(average);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << average;
        EXPECT_NE(status.error_message().find("averaged fraction"), std::string::npos)
            << status.error_message();
    }
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = tune_spec("sf", {"Skill Level"});
    submit.mutable_spec()->mutable_tune()->set_verify_seed(5);
    v1::RunStatus run;
    const grpc::Status status =
        cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("need a verification"), std::string::npos)
        << status.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
}

// A tuning run of options a version's engine does not have, cannot tune, or outside their
// range, or of a version that recorded no options, is refused and nothing is stored.
TEST_F(EngineOptionsTest, TuningOptionsTheEngineCannotTuneIsRefused) {
    v1::Version added;
    ASSERT_TRUE(add("sf", declared, &added).ok());
    ASSERT_TRUE(add("bare", {}, &added).ok());
    const auto refused = [&](v1::RunSpec spec, const std::string& expected) {
        v1::SubmitRunRequest submit;
        *submit.mutable_spec() = std::move(spec);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << expected;
        EXPECT_NE(status.error_message().find(expected), std::string::npos)
            << status.error_message();
    };
    refused(tune_spec("sf", {"Knight Value"}), "version 'sf' has no option 'Knight Value'");
    refused(tune_spec("sf", {"Ponder"}), "option 'Ponder' of version 'sf' is a check option");
    v1::RunSpec wide = tune_spec("sf", {"Skill Level"});
    wide.mutable_tune()->mutable_params(0)->set_max(30);
    refused(wide, "Skill Level: bounds must lie within the engine's [0, 20]");
    refused(tune_spec("sf", {"Skill Level", "skill  level"}), "is listed twice");
    v1::RunSpec still = tune_spec("sf", {"Skill Level"});
    still.mutable_tune()->mutable_params(0)->set_c_end(0);
    refused(still, "c_end must be positive");
    refused(tune_spec("bare", {"Skill Level"}), "version 'bare' records no options of its engine");
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
}

// The CLI: `versions add --uci` records the engine's options, `versions options` lists them,
// and `submit tune` takes engine options by --param and --params-file (a mistake in the file
// named by line and column, nothing submitted).
TEST_F(EngineOptionsTest, TheCliRecordsListsAndTunesAnEnginesOptions) {
    CommandResult r = cluster->cli({"versions", "add", "sf", "--uci", kStockfish});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("recorded " + std::to_string(declared.size()) + " options of"),
              std::string::npos)
        << r.err;
    r = cluster->cli({"versions", "options", "sf"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Skill Level"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("spin"), std::string::npos) << r.out;

    const std::string file = cluster->dir + "/params.txt";
    std::ofstream(file) << "Skill Level, int, 10, 0, 20, 2, 0.002\nMove Overhead, int, 10\n";
    r = cluster->cli({"submit", "tune", "sf", "--params-file", file, "--games", "4"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(file + ":2:"), std::string::npos) << r.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);

    r = cluster->cli({"submit", "tune", "sf", "--param", "Skill Level:10:0:20", "--param",
                      "Move Overhead", "--games", "4", "--tc", "nodes=300"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("SPSA tuning of sf, 2 parameters"), std::string::npos) << r.out;
    r = cluster->cli({"show", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Move Overhead"), std::string::npos) << r.out;
}

// The built-in engine's parameters are options like any engine's (issue 29, item 3): a
// built-in version lists them with its values as their defaults, a tuning run takes them by
// the same path (names read as an engine reads them), and the coordinator makes the version
// of a run's result (`versions add --from-run`), refusing what cannot make one and storing
// nothing then.
TEST(BuiltinOptionsTest, ParametersAreOptionsAndARunsResultBecomesAVersionOnTheCoordinator) {
    Cluster cluster;
    cluster.add_version("base", "KnightValueMg=300");
    cluster.add_version("other");
    v1::GetVersionRequest get;
    get.set_name("base");
    v1::Version base;
    ASSERT_TRUE(
        cluster.users()->GetVersion(Cluster::context(cluster.user_token).get(), get, &base).ok());
    ASSERT_EQ(size_t(base.options_size()), param_registry().size());
    const auto knight = std::find_if(base.options().begin(), base.options().end(),
                                     [](const auto& o) { return o.name() == "KnightValueMg"; });
    ASSERT_NE(knight, base.options().end());
    EXPECT_EQ(knight->type(), "spin");
    EXPECT_EQ(knight->default_value(), "300");  // the version's value
    EXPECT_EQ(knight->min(), 150);
    EXPECT_EQ(knight->max(), 900);
    CommandResult r = cluster.cli({"versions", "options", "base"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("KnightValueMg"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("300"), std::string::npos) << r.out;

    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = tune_spec("base", {"knightvaluemg", "BishopValueEg"});
    submit.mutable_spec()->mutable_tune()->mutable_params(1)->set_start(320);
    v1::RunStatus run;
    grpc::Status status =
        cluster.users()->SubmitRun(Cluster::context(cluster.user_token).get(), submit, &run);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(run.tune().params_size(), 2);
    EXPECT_EQ(run.tune().params(0).name(), "KnightValueMg");  // as the engine declares it
    EXPECT_EQ(run.tune().params(0).start(), 300);
    EXPECT_EQ(run.tune().params(0).max(), 900);

    const auto from_run = [&](int64_t run_id, const std::string& name, v1::Version* added,
                              const std::function<void(v1::Version&)>& edit = {}) {
        v1::AddVersionRequest request;
        request.set_from_run(run_id);
        request.mutable_version()->set_name(name);
        if (edit) edit(*request.mutable_version());
        // A built-in version from a run gets its bench signature searched by the coordinator:
        // 1.6 s in a release build, several times that under the sanitizers.
        return cluster.users()->AddVersion(Cluster::context(cluster.user_token, 120s).get(),
                                           request, added);
    };
    v1::Version made;
    status = from_run(run.id(), "made", &made,
                      [](v1::Version& v) { v.mutable_builtin()->set_hash_mb(32); });
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_TRUE(made.has_builtin());
    EXPECT_EQ(made.builtin().overrides().at("KnightValueMg"), 300);
    EXPECT_EQ(made.builtin().overrides().at("BishopValueEg"), 320);
    EXPECT_EQ(made.builtin().hash_mb(), 32u);
    EXPECT_EQ(made.description(), "the values of tuning run " + std::to_string(run.id()));
    EXPECT_EQ(made.owner(), base.owner());  // the caller, who also added base
    EXPECT_FALSE(made.owner().empty());
    // Another bishop than the base's, so another bench signature, the coordinator's own.
    EXPECT_NE(made.bench(), base.bench());
    EXPECT_GT(made.bench(), 0u);

    const int64_t versions = cluster.query("SELECT count(*) FROM versions");
    const auto refused = [&](grpc::Status got, grpc::StatusCode code, const std::string& text) {
        EXPECT_EQ(got.error_code(), code) << got.error_message();
        EXPECT_NE(got.error_message().find(text), std::string::npos) << got.error_message();
    };
    refused(from_run(run.id(), "made", &made), grpc::StatusCode::ALREADY_EXISTS, "already exists");
    refused(from_run(999, "x", &made), grpc::StatusCode::NOT_FOUND, "no run 999");
    refused(from_run(run.id(), "x", &made,
                     [](v1::Version& v) { v.mutable_uci()->set_command("/bin/true"); }),
            grpc::StatusCode::INVALID_ARGUMENT, "takes its engine from the run");
    refused(from_run(run.id(), "x", &made,
                     [](v1::Version& v) { v.mutable_builtin()->set_hash_mb(70000); }),
            grpc::StatusCode::INVALID_ARGUMENT, "hash must be in 0..65536");
    r = cluster.cli({"submit", "base", "other", "--games", "20"});
    ASSERT_EQ(r.status, 0) << r.err;
    refused(from_run(2, "x", &made), grpc::StatusCode::FAILED_PRECONDITION,
            "only tuning and training runs make a version");
    r = cluster.cli({"versions", "add", "y", "--from-run", "2"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("only tuning and training runs make a version"), std::string::npos)
        << r.err;
    EXPECT_EQ(cluster.query("SELECT count(*) FROM versions"), versions);
}

}  // namespace
}  // namespace sparring::testing
