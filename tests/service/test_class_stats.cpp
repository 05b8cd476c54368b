// CPU classes in a run's statistics, end to end (issue 52, item 2): a real coordinator with
// --quarantine-p, and workers simulated over gRPC that register with two machine identities
// (RegisterRequest.identity). The skylake machines play the test version genuinely better
// than the zen5 ones: the old rule (each worker against the whole run) would quarantine that
// class, the coordinator does not, and reports it as a finding on the run; a single bad zen5
// machine is still quarantined. GetRun, `sparring show` and REST carry the breakdown.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster.h"
#include "common/cpu_class.h"
#include "stats/homogeneity.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

// A pattern of 20 pairs: how many are LL, LD, DD, WD and WW for the test version.
using Pattern = std::array<int, 5>;
constexpr Pattern kEven = {1, 4, 10, 4, 1};    // Elo 0
constexpr Pattern kStrong = {0, 2, 10, 5, 3};  // about +80 Elo: this CPU suits the test version
constexpr Pattern kBroken = {0, 1, 6, 6, 7};   // a broken machine's results, far off its class's

v1::WorkerIdentity identity(const std::string& vendor, uint32_t family, uint32_t model,
                            const std::string& top_level) {
    v1::WorkerIdentity id;
    id.set_cpu_vendor(vendor);
    id.set_cpu_family(family);
    id.set_cpu_model_id(model);
    id.set_architecture("x86_64");
    for (const char* level : {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"}) {
        id.add_isa_levels(level);
        if (level == top_level) break;
    }
    id.set_physical_cores(8);
    id.set_hardware_threads(16);
    return id;
}

// The CPU class the coordinator derives from an identity (common/cpu_class.h).
std::string class_of(const v1::WorkerIdentity& id) {
    const std::vector<std::string> levels(id.isa_levels().begin(), id.isa_levels().end());
    return cpu_class(CpuClassInput{id.cpu_vendor(), id.architecture(), id.cpu_family(),
                                   id.cpu_model_id(), levels});
}

// Sets one game of a pair: its outcome for the test version and a PGN that says the same.
void set_game(v1::Game* game, v1::GameOutcome outcome, bool test_white) {
    game->set_outcome(outcome);
    game->set_test_white(test_white);
    const bool white_wins = (outcome == v1::GAME_OUTCOME_WIN) == test_white;
    const std::string result = outcome == v1::GAME_OUTCOME_DRAW ? "1/2-1/2"
                               : white_wins                     ? "1-0"
                                                                : "0-1";
    game->set_pgn("[Result \"" + result + "\"]\n\n" + result + "\n");
}

// Returns a report of every pair of a lease, the pairs' results cycling through a pattern.
v1::ReportResultsRequest patterned(int64_t worker, const v1::Lease& lease, const Pattern& pattern) {
    std::vector<int> kinds;  // 0 LL, 1 LD, 2 DD, 3 WD, 4 WW
    for (int k = 0; k < 5; ++k) kinds.insert(kinds.end(), size_t(pattern[size_t(k)]), k);
    constexpr v1::GameOutcome W = v1::GAME_OUTCOME_WIN, D = v1::GAME_OUTCOME_DRAW,
                              L = v1::GAME_OUTCOME_LOSS;
    constexpr std::array<std::array<v1::GameOutcome, 2>, 5> games = {
        {{L, L}, {L, D}, {D, D}, {W, D}, {W, W}}};
    v1::ReportResultsRequest r;
    r.set_worker_id(worker);
    r.set_lease_id(lease.lease_id());
    r.set_sequence(1);
    for (int i = 0; i < lease.openings_size(); ++i) {
        const auto& pair = games[size_t(kinds[size_t(i) % kinds.size()])];
        v1::GamePair* p = r.add_pairs();
        p->set_index(uint32_t(i));
        set_game(p->mutable_first(), pair[0], true);
        set_game(p->mutable_second(), pair[1], false);
    }
    return r;
}

class ClassStatsServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Leases the worker pairs of the run and reports them all by its pattern; returns whether
    // it was leased any (false: the coordinator leases it nothing, as a quarantined worker).
    bool play(int64_t worker, const Pattern& pattern) {
        v1::RequestWorkResponse work;
        const grpc::Status asked = request_work(*stub, cluster->worker_token, worker, &work);
        EXPECT_TRUE(asked.ok()) << asked.error_message();
        if (!work.has_lease()) return false;
        v1::ReportResultsResponse ack;
        const grpc::Status status =
            stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                patterned(worker, work.lease(), pattern), &ack);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return true;
    }

    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<v1::WorkerService::Stub> stub;
};

TEST_F(ClassStatsServiceTest, AClassThatPlaysDifferentlyIsAFindingABadWorkerInAClassIsQuarantined) {
    const std::string port_file =
        ::testing::TempDir() + "sparring-classes-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--quarantine-p", "1e-4", "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);
    cluster->add_version("a");
    cluster->add_version("b");
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(100000);
    submit.mutable_spec()->set_pairs_per_thread(200);
    v1::RunStatus run;
    const grpc::Status submitted =
        cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
    ASSERT_TRUE(submitted.ok()) << submitted.error_message();
    stub = cluster->workers();

    const v1::WorkerIdentity zen5 = identity("AuthenticAMD", 0x1a, 0x44, "x86-64-v4");
    const v1::WorkerIdentity skylake = identity("GenuineIntel", 6, 0x9e, "x86-64-v3");
    const std::string zen5_class = class_of(zen5), skylake_class = class_of(skylake);
    ASSERT_EQ(zen5_class, "zen5-avx512");
    ASSERT_EQ(skylake_class, "skylake-avx2");
    std::vector<int64_t> zen5_workers, skylake_workers;
    for (int i = 1; i <= 3; ++i)
        zen5_workers.push_back(
            register_worker(*stub, cluster->worker_token, "zen5-" + std::to_string(i), zen5));
    for (int i = 1; i <= 2; ++i)
        skylake_workers.push_back(
            register_worker(*stub, cluster->worker_token, "skylake-" + std::to_string(i), skylake));
    for (int64_t id : zen5_workers) ASSERT_GT(id, 0);
    for (int64_t id : skylake_workers) ASSERT_GT(id, 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers WHERE cpu_class = 'zen5-avx512'"), 3);

    // Three leases of 200 pairs each: every worker goes on being leased the run.
    for (int round = 0; round < 3; ++round) {
        for (int64_t id : zen5_workers) ASSERT_TRUE(play(id, kEven)) << "round " << round;
        for (int64_t id : skylake_workers) ASSERT_TRUE(play(id, kStrong)) << "round " << round;
    }
    // A bad zen5 machine reports a lease; it is leased nothing more, the others are.
    const int64_t bad = register_worker(*stub, cluster->worker_token, "zen5-bad", zen5);
    ASSERT_GT(bad, 0);
    ASSERT_TRUE(play(bad, kBroken));
    EXPECT_FALSE(play(bad, kBroken)) << "the bad machine was not quarantined";
    for (int64_t id : zen5_workers) EXPECT_TRUE(play(id, kEven)) << id;
    for (int64_t id : skylake_workers) EXPECT_TRUE(play(id, kStrong)) << id;

    // GetRun: each worker tested against its own class; the old rule, each against the whole
    // run, would have quarantined both skylake machines.
    const v1::RunStatus seen = cluster->get_run(run.id());
    stats::Pentanomial all;
    const auto penta = [](const v1::Pentanomial& p) {
        return stats::Pentanomial{{int64_t(p.ll()), int64_t(p.ld()), int64_t(p.dd_wl()),
                                   int64_t(p.wd()), int64_t(p.ww())}};
    };
    for (const v1::WorkerFit& w : seen.workers())
        for (size_t k = 0; k < 5; ++k) all.counts[k] += penta(w.pentanomial()).counts[k];
    ASSERT_EQ(seen.workers_size(), 6);
    for (const v1::WorkerFit& w : seen.workers()) {
        const bool is_skylake = w.cpu_class() == skylake_class;
        EXPECT_EQ(w.cpu_class(), is_skylake ? skylake_class : zen5_class) << w.name();
        EXPECT_EQ(w.quarantined(), w.worker_id() == bad) << w.name() << " p " << w.p_value();
        if (is_skylake) {
            stats::Pentanomial rest = all;
            for (size_t k = 0; k < 5; ++k) rest.counts[k] -= penta(w.pentanomial()).counts[k];
            EXPECT_LT(stats::homogeneity(penta(w.pentanomial()), rest).p_value, 1e-4)
                << w.name() << ": the old rule quarantines it";
            EXPECT_GT(w.p_value(), 1e-3) << w.name() << ": like the rest of its class";
            EXPECT_EQ(w.class_rest_games(), 1600u) << w.name();
        }
    }
    ASSERT_EQ(seen.classes_size(), 2);
    EXPECT_EQ(seen.classes(0).cpu_class(), zen5_class);
    EXPECT_EQ(seen.classes(0).workers(), 4u);
    EXPECT_EQ(seen.classes(0).games(), 2u * (3 * 800 + 200));
    EXPECT_EQ(seen.classes(1).cpu_class(), skylake_class);
    EXPECT_EQ(seen.classes(1).workers(), 2u);
    EXPECT_EQ(seen.classes(1).games(), 2u * 1600);
    EXPECT_GT(seen.classes(1).elo(), seen.classes(0).elo() + 30);
    ASSERT_EQ(seen.class_findings_size(), 1);
    const v1::ClassFinding& finding = seen.class_findings(0);
    EXPECT_EQ(finding.group().cpu_class(), skylake_class);
    EXPECT_EQ(finding.rest().games(), seen.classes(0).games());
    EXPECT_LT(finding.elo_p(), 1e-3);
    EXPECT_EQ(finding.text().rfind("skylake-avx2: +", 0), 0u) << finding.text();

    // `sparring show`: the classes' table, the finding and each worker's class.
    const CommandResult show = cluster->cli({"show", std::to_string(run.id())});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("CPU classes (each worker is tested against the rest of its class)"),
              std::string::npos)
        << show.out;
    const size_t finding_row = show.out.find("\nclass finding:");
    ASSERT_NE(finding_row, std::string::npos) << show.out;
    EXPECT_EQ(show.out.substr(show.out.find_first_not_of(' ', finding_row + 15), 15),
              "skylake-avx2: +")
        << show.out;
    EXPECT_NE(show.out.find("for the owner to judge, not purged"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("QUARANTINED"), std::string::npos) << show.out;

    // REST carries the same.
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster->user_token}};
    const httplib::Result rest = http.Get("/api/v1/runs/" + std::to_string(run.id()), auth);
    ASSERT_TRUE(rest && rest->status == 200);
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    ASSERT_EQ(json["classes"].size(), 2u) << rest->body;
    EXPECT_EQ(json["classes"][1]["cpu_class"], skylake_class);
    EXPECT_EQ(json["class_findings"][0]["group"]["cpu_class"], skylake_class);
    EXPECT_EQ(json["class_findings"][0]["text"], finding.text());
    EXPECT_EQ(json["workers"][0]["cpu_class"], zen5_class);
    std::filesystem::remove(port_file);
}

}  // namespace
}  // namespace sparring::testing
