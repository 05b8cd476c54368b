// The work waiting, as an autoscaler reads it (issue 52, item 6): the free pairs and the cores
// wanted per active run and in total. The rule on runs made by hand (threads, a run's own lease
// size, leases out, a kind's lease bound), then a real coordinator scraped over HTTP on
// 127.0.0.1 while a run is submitted and a real worker plays it to its end.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/ops/metrics.h"
#include "service/cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;
using coordinator::cores_wanted;
using coordinator::LeaseSizing;
using RunRow = coordinator::Run;
using coordinator::RunKind;

// Returns a fixed-games run of `pairs` pairs with none leased yet.
RunRow fixed_run(uint64_t pairs) {
    RunRow run;
    run.spec.kind = RunKind::FixedGames;
    run.spec.games = 2 * pairs;
    return run;
}

TEST(CoresWanted, AGameSlotOfTheRunsThreadsForEachLeaseShareOfItsFreePairs) {
    const LeaseSizing sizing{.pairs_per_thread = 4, .max_pairs_per_lease = 1024};
    RunRow run = fixed_run(10);
    EXPECT_EQ(run.pairs_available(), 10u);
    EXPECT_EQ(cores_wanted(run, sizing), 3);  // ceil(10 / 4) slots of one core
    run.spec.threads = 8;
    EXPECT_EQ(cores_wanted(run, sizing), 24);
    run.spec.pairs_per_thread = 1;  // the run's own lease size wins
    EXPECT_EQ(cores_wanted(run, sizing), 80);

    // Leased pairs leave the free ones; the cores their leases hold count until they end.
    run.spec = fixed_run(10).spec;
    run.next_pair = 8;
    run.pairs_leased = 8;
    run.active_cores = 2;
    EXPECT_EQ(run.pairs_available(), 2u);
    EXPECT_EQ(cores_wanted(run, sizing), 3);
    run.free_pairs = 4;  // handed back by an expired lease
    EXPECT_EQ(cores_wanted(run, sizing), 4);
    run.next_pair = 10;
    run.free_pairs = 0;
    EXPECT_EQ(cores_wanted(run, sizing), 2);  // all out: only the cores playing them
    run.active_cores = 0;
    run.pairs_leased = 0;
    EXPECT_EQ(cores_wanted(run, sizing), 0);
}

TEST(CoresWanted, TheKindsBoundOnPairsPerLeaseMakesSmallerShares) {
    RunRow run = fixed_run(100);
    EXPECT_EQ(cores_wanted(run, {.pairs_per_thread = 4, .max_pairs_per_lease = 2}), 50);
    EXPECT_EQ(cores_wanted(run, {.pairs_per_thread = 0, .max_pairs_per_lease = 0}), 100);
}

// One scrape: every sample of the exposition by its name and label set ("{run=\"1\",...}").
using Samples = std::map<std::string, std::map<std::string, double>>;

Samples parse(const std::string& exposition) {
    Samples samples;
    std::istringstream in(exposition);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.rfind(' ');
        const size_t brace = line.find('{');
        const size_t name_end = std::min(brace, space);
        samples[line.substr(0, name_end)][line.substr(name_end, space - name_end)] =
            std::stod(line.substr(space + 1));
    }
    return samples;
}

// Returns the value of the one sample of a family whose labels hold `label`, or -1.
double of_run(const Samples& samples, const std::string& name, const std::string& label) {
    const auto family = samples.find(name);
    if (family == samples.end()) return -1;
    for (const auto& [labels, value] : family->second)
        if (labels.find(label) != std::string::npos) return value;
    return -1;
}

// Returns the value of an unlabelled sample, or -1.
double total(const Samples& samples, const std::string& name) {
    const auto family = samples.find(name);
    if (family == samples.end() || !family->second.contains("")) return -1;
    return family->second.at("");
}

class WorkWaiting : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }
    std::unique_ptr<Cluster> cluster;
};

TEST_F(WorkWaiting, TheGaugesRiseOnSubmitFallAsAWorkerPlaysAndAreZeroWhenTheRunEnds) {
    const std::string port_file =
        ::testing::TempDir() + "sparring-work-waiting-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_NE(port, 0);
    httplib::Client http("127.0.0.1", port);
    const auto scrape = [&http] {
        const httplib::Result got = http.Get("/metrics");
        return got && got->status == 200 ? parse(got->body) : Samples{};
    };

    Samples m = scrape();
    EXPECT_EQ(total(m, "sparring_pairs_free"), 0);
    EXPECT_EQ(total(m, "sparring_cores_wanted"), 0);

    // 12 pairs, leased 2 a game slot: 6 one-core games would lease them all at once.
    for (const char* name : {"a", "b"}) cluster->add_version(name);  // the bench a worker checks
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(24);
    submit.mutable_spec()->set_pairs_per_thread(2);
    v1::RunStatus run;
    ASSERT_TRUE(cluster->users()
                    ->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run)
                    .ok());
    const std::string label = "run=\"" + std::to_string(run.id()) + "\"";
    m = scrape();
    EXPECT_EQ(total(m, "sparring_pairs_free"), 12);
    EXPECT_EQ(total(m, "sparring_cores_wanted"), 6);
    EXPECT_EQ(of_run(m, "sparring_run_pairs_free", label), 12);
    EXPECT_EQ(of_run(m, "sparring_run_cores_wanted", label), 6);

    // A worker of one core plays it, two pairs a lease: the free pairs fall to 0, the cores
    // wanted with them to the one core still playing, and both to 0 at the end.
    cluster->start_worker("w1", 1);
    std::vector<double> free_seen = {12}, cores_seen = {6};
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    bool ended = false;
    while (!ended && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(20ms);
        ended = cluster->get_run(run.id()).state() != v1::RUN_STATE_ACTIVE;
        m = scrape();
        const double pairs = total(m, "sparring_pairs_free");
        const double cores = total(m, "sparring_cores_wanted");
        if (pairs != free_seen.back() || cores != cores_seen.back()) {
            free_seen.push_back(pairs);
            cores_seen.push_back(cores);
        }
    }
    std::ostringstream series;
    for (size_t i = 0; i < free_seen.size(); ++i)
        series << " " << free_seen[i] << "/" << cores_seen[i];
    SCOPED_TRACE("free pairs/cores wanted seen:" + series.str());
    ASSERT_TRUE(ended) << "the run did not end within 20 s";
    for (size_t i = 1; i < free_seen.size(); ++i) {
        EXPECT_LE(free_seen[i], free_seen[i - 1]);
        // A core for each share of 2 free pairs, and one for the lease being played, if any.
        EXPECT_GE(cores_seen[i], std::ceil(free_seen[i] / 2));
        EXPECT_LE(cores_seen[i], std::ceil(free_seen[i] / 2) + 1);
    }
    EXPECT_GT(free_seen.size(), 3u) << "no value between submission and the end was seen";
    EXPECT_EQ(free_seen.back(), 0);
    EXPECT_EQ(cores_seen.back(), 0);
    EXPECT_EQ(of_run(m, "sparring_run_pairs_free", label), -1) << "an ended run is no series";
    EXPECT_EQ(of_run(m, "sparring_run_cores_wanted", label), -1);
}

}  // namespace
}  // namespace sparring::testing
