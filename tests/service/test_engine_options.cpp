// The options of a version's engine end to end (issue 29, item 1): a UCI version records the
// options its engine declares (read here as `versions add` reads them, from Debian's
// Stockfish); a worker whose engine declares the same spin options plays it, one whose engine
// declares others refuses it as a bench mismatch naming the option; a record no engine could
// declare, or options on a built-in version, are refused and nothing is stored.
#include <gtest/gtest.h>
#include <unistd.h>

#include "cluster.h"
#include "match/engine_options.h"
#include "needs.h"

namespace sparring::testing {
namespace {

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

}  // namespace
}  // namespace sparring::testing
