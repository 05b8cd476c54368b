// Self-play training end to end with real coordinator, worker and CLI processes on
// 127.0.0.1: a generation run stores exactly the labelled positions its games produce
// (replayed here game by game), exactly once whatever the reports' fate (duplicates, forged
// or malformed data, an expired lease's late reports), and exports them in the text formats.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster.h"
#include "engine/params.h"
#include "match/opening_book.h"
#include "training/position_io.h"
#include "training/position_record.h"
#include "training/self_play.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class TrainingServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    std::unique_ptr<Cluster> cluster;
};

// Returns the self-play settings `submit generate --nodes 300 --seed 9 --random-plies 3`
// gives a run of the default version with the shipped book.
training::SelfPlayOptions run_options() {
    training::SelfPlayOptions options;
    options.params = ParamSet();
    options.nodes = 300;
    options.seed = 9;
    options.random_plies = 3;
    std::string error;
    const auto book = match::load_book(SPARRING_SOURCE_DIR "/match/books/default.epd",
                                       match::BookFormat::Epd, 0, &error);
    EXPECT_TRUE(book) << error;
    if (book) options.book = *book;
    return options;
}

// Returns every stored position of a run, read page by page over the user API.
std::vector<training::LabelledPosition> exported(Cluster& cluster, int64_t run_id) {
    auto users = cluster.users();
    v1::ExportPositionsRequest request;
    request.set_run_id(run_id);
    request.set_max_games(3);  // several pages
    std::vector<training::LabelledPosition> positions;
    for (;;) {
        v1::ExportPositionsResponse page;
        const grpc::Status status =
            users->ExportPositions(Cluster::context(cluster.user_token).get(), request, &page);
        EXPECT_TRUE(status.ok()) << status.error_message();
        std::string error;
        EXPECT_TRUE(training::decode_positions(page.positions(), page.count(), &positions, &error))
            << error;
        if (!status.ok() || page.done() || page.games() == 0) break;
        request.set_start_game(page.next_start_game());
    }
    return positions;
}

// Returns a report entry of two locally played games.
v1::GamePair pair_entry(uint32_t index, const training::SelfPlayGame& first,
                        const training::SelfPlayGame& second) {
    v1::GamePair pair;
    pair.set_index(index);
    for (const auto& [game, out] :
         {std::pair{&first, pair.mutable_first()}, std::pair{&second, pair.mutable_second()}}) {
        out->set_outcome(game->result == Outcome::Win    ? v1::GAME_OUTCOME_WIN
                         : game->result == Outcome::Loss ? v1::GAME_OUTCOME_LOSS
                                                         : v1::GAME_OUTCOME_DRAW);
        out->set_test_white(true);
        out->set_positions(training::encode_positions(game->positions));
        out->set_position_count(uint32_t(game->positions.size()));
    }
    return pair;
}

// Sends a report; returns its status and sets *duplicate.
grpc::Status send(Cluster& cluster, const v1::ReportResultsRequest& request,
                  bool* duplicate = nullptr) {
    v1::ReportResultsResponse response;
    const grpc::Status status = cluster.workers()->ReportResults(
        Cluster::context(cluster.worker_token).get(), request, &response);
    if (duplicate) *duplicate = response.duplicate();
    return status;
}

TEST_F(TrainingServiceTest, AGenerationRunStoresExactlyThePositionsItsGamesProduceOnce) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "2", "--lease-seconds", "3"});
    cluster->add_version("default");
    const CommandResult submitted =
        cluster->cli({"submit", "generate", "--version", "default", "--games", "12", "--nodes",
                      "300", "--seed", "9", "--random-plies", "3"});
    ASSERT_EQ(submitted.status, 0) << submitted.err;

    // A hand-driven worker takes the first lease: pairs 0 and 1, games 0-3.
    auto stub = cluster->workers();
    const int64_t forger = register_worker(*stub, cluster->worker_token);
    ASSERT_GT(forger, 0);
    v1::RequestWorkResponse leased;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, forger, &leased).ok());
    const v1::Lease& lease = leased.lease();
    ASSERT_EQ(lease.first_pair(), 0u);
    ASSERT_EQ(lease.generate().game_openings_size(), 4);
    EXPECT_EQ(lease.generate().seed(), 9u);
    EXPECT_EQ(lease.generate().random_plies(), 3u);
    EXPECT_EQ(lease.generate().filters(), "check,tactical,mate");
    EXPECT_EQ(lease.time_control().nodes(), 300u);
    const training::SelfPlayOptions options = run_options();
    std::vector<training::SelfPlayJob> jobs;
    for (uint64_t g = 0; g < 4; ++g) {
        const v1::Opening& o = lease.generate().game_openings(int(g));
        jobs.push_back({g, {o.fen(), {o.moves().begin(), o.moves().end()}}});
        EXPECT_EQ(jobs.back().opening, training::self_play_opening(options, g)) << "game " << g;
    }
    std::vector<training::SelfPlayGame> games(4);
    const std::atomic<bool> go{false};
    training::play_self_play_games(
        options, jobs, [&](training::SelfPlayGame&& g) { games[g.game] = std::move(g); }, go);
    ASSERT_FALSE(games[0].positions.empty());

    v1::ReportResultsRequest good;
    good.set_worker_id(forger);
    good.set_lease_id(lease.lease_id());
    good.set_sequence(1);
    *good.add_pairs() = pair_entry(0, games[0], games[1]);
    const auto nothing_stored = [&] {
        EXPECT_EQ(cluster->query("SELECT count(*) FROM training_positions"), 0);
        EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 0);
        EXPECT_EQ(cluster->query("SELECT count(*) FROM results"), 0);
        EXPECT_EQ(cluster->query("SELECT positions FROM generate_runs"), 0);
    };

    // Malformed and forged position data is refused with a reason, and changes nothing.
    v1::ReportResultsRequest truncated = good;
    std::string* blob = truncated.mutable_pairs(0)->mutable_first()->mutable_positions();
    blob->pop_back();
    grpc::Status status = send(*cluster, truncated);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("malformed positions"), std::string::npos)
        << status.error_message();
    v1::ReportResultsRequest bad_piece = good;
    (*bad_piece.mutable_pairs(0)->mutable_first()->mutable_positions())[8] = char(0x77);
    status = send(*cluster, bad_piece);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("bad piece code"), std::string::npos)
        << status.error_message();
    v1::ReportResultsRequest wrong_result = good;
    v1::Game* first = wrong_result.mutable_pairs(0)->mutable_first();
    first->set_outcome(first->outcome() == v1::GAME_OUTCOME_DRAW ? v1::GAME_OUTCOME_WIN
                                                                 : v1::GAME_OUTCOME_DRAW);
    status = send(*cluster, wrong_result);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("another result"), std::string::npos)
        << status.error_message();
    nothing_stored();

    // The real report counts once; its retry is a duplicate; other content under its number
    // is a forgery.
    const size_t pair0 = games[0].positions.size() + games[1].positions.size();
    bool duplicate = true;
    ASSERT_TRUE(send(*cluster, good, &duplicate).ok());
    EXPECT_FALSE(duplicate);
    EXPECT_EQ(cluster->query("SELECT sum(count) FROM training_positions"), int64_t(pair0));
    ASSERT_TRUE(send(*cluster, good, &duplicate).ok());
    EXPECT_TRUE(duplicate);
    v1::ReportResultsRequest other = good;
    other.mutable_pairs(0)->mutable_first()->set_position_count(
        other.pairs(0).first().position_count() - 1);
    other.mutable_pairs(0)->mutable_first()->mutable_positions()->resize(
        training::POSITION_RECORD_BYTES * other.pairs(0).first().position_count());
    EXPECT_EQ(send(*cluster, other).error_code(), grpc::StatusCode::ALREADY_EXISTS);
    EXPECT_EQ(cluster->query("SELECT sum(count) FROM training_positions"), int64_t(pair0));
    EXPECT_EQ(cluster->query("SELECT positions FROM generate_runs"), int64_t(pair0));

    // The lease expires (no heartbeat): its late report of pair 1 is refused, and pair 1
    // goes back to the pool for the real worker. The lease's three seconds must really pass:
    // the coordinator refuses the report by its clock, no row says so before.
    std::this_thread::sleep_for(4s);
    v1::ReportResultsRequest late;
    late.set_worker_id(forger);
    late.set_lease_id(lease.lease_id());
    late.set_sequence(2);
    *late.add_pairs() = pair_entry(1, games[2], games[3]);
    EXPECT_EQ(send(*cluster, late).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    ASSERT_TRUE(send(*cluster, good, &duplicate).ok());
    EXPECT_TRUE(duplicate);
    EXPECT_EQ(cluster->query("SELECT sum(count) FROM training_positions"), int64_t(pair0));

    cluster->start_worker("one", 2, {"--report-seconds", "1"});
    const v1::RunStatus run = cluster->wait_for_run(1, 120s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.DebugString();
    EXPECT_EQ(run.games(), 12u);

    // Exactly the positions of games 0-11 played here, in game order, each stored once.
    training::SelfPlayOptions all = options;
    all.games = 12;
    all.threads = 2;
    const training::SelfPlayResult local = training::play_self_play(all, {}, go);
    const std::vector<training::LabelledPosition> stored = exported(*cluster, 1);
    ASSERT_EQ(stored.size(), local.positions.size());
    for (size_t i = 0; i < stored.size(); ++i) {
        EXPECT_EQ(stored[i].position, local.positions[i].position) << "position " << i;
        EXPECT_EQ(stored[i].result, local.positions[i].result) << "position " << i;
        EXPECT_EQ(stored[i].score, local.positions[i].score) << "position " << i;
    }
    EXPECT_EQ(run.generate().positions(), local.positions.size());
    EXPECT_EQ(cluster->query("SELECT count(*) FROM training_positions WHERE run_id = 1"), 12);
    EXPECT_EQ(cluster->query("SELECT sum(count) FROM training_positions WHERE run_id = 1"),
              int64_t(local.positions.size()));
    EXPECT_EQ(run.wins() + run.draws() + run.losses(), 12u);

    const CommandResult show = cluster->cli({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(
        show.out.find("positions:      " + std::to_string(local.positions.size()) + " stored"),
        std::string::npos)
        << show.out;

    // The CLI's export writes the formats other tuners read, as the library writes them.
    for (const auto format : {training::PositionFormat::Fen, training::PositionFormat::Epd}) {
        const std::string path =
            cluster->dir + "/positions." + std::string(training::format_name(format));
        const CommandResult out =
            cluster->cli({"export", "positions", "--run", "1", "--format",
                          std::string(training::format_name(format)), "--out", path});
        ASSERT_EQ(out.status, 0) << out.err;
        std::ostringstream expected;
        std::string error;
        ASSERT_TRUE(training::write_positions(expected, local.positions, format, &error)) << error;
        std::ifstream file(path);
        std::stringstream text;
        text << file.rdbuf();
        EXPECT_EQ(text.str(), expected.str());
    }
    // The EPD file goes back in as training data: an import run holding the same positions.
    const std::string epd = cluster->dir + "/positions.epd";
    const CommandResult imported =
        cluster->cli({"positions", "import", epd, "--filter", "none", "--name", "round trip"});
    ASSERT_EQ(imported.status, 0) << imported.err;
    const v1::RunStatus import_run = cluster->wait_for_run(2, 10s);
    EXPECT_EQ(import_run.state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(import_run.spec().kind(), v1::RUN_KIND_GENERATE);
    EXPECT_EQ(import_run.generate().positions(), local.positions.size());
    const std::vector<training::LabelledPosition> back = exported(*cluster, 2);
    ASSERT_EQ(back.size(), local.positions.size());
    for (size_t i = 0; i < back.size(); ++i) {
        EXPECT_EQ(back[i].position, local.positions[i].position) << "position " << i;
        EXPECT_EQ(back[i].result, local.positions[i].result) << "position " << i;
        EXPECT_EQ(back[i].score, local.positions[i].score) << "position " << i;
    }
    const CommandResult trained =
        cluster->cli({"submit", "train", "--version", "default", "--data", "1,2", "--epochs", "3"});
    ASSERT_EQ(trained.status, 0) << trained.err;
    const v1::RunStatus train_run = cluster->wait_for_run(3, 60s);
    EXPECT_EQ(train_run.state(), v1::RUN_STATE_FINISHED) << train_run.DebugString();
    EXPECT_EQ(train_run.train().positions(), 2 * local.positions.size());

    const CommandResult not_generation =
        cluster->cli({"export", "positions", "--run", "7", "--out", cluster->dir + "/none.epd"});
    EXPECT_EQ(not_generation.status, 1);
    EXPECT_NE(not_generation.err.find("no run 7"), std::string::npos) << not_generation.err;
}

// Returns a run as the user API reports it.
v1::RunStatus get_run(Cluster& cluster, int64_t run_id) {
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::RunStatus run;
    EXPECT_TRUE(
        cluster.users()->GetRun(Cluster::context(cluster.user_token).get(), request, &run).ok());
    return run;
}

// Waits until a training run has done more than `epochs` epochs; returns its status.
v1::RunStatus wait_for_epoch(Cluster& cluster, int64_t run_id, uint32_t epochs) {
    v1::RunStatus run;
    wait_until(
        [&] {
            run = get_run(cluster, run_id);
            return run.train().epoch() > epochs || run.state() != v1::RUN_STATE_ACTIVE;
        },
        20s);
    return run;
}

// Waits up to 60 s until the log of the coordinator's latest start says that the training of
// a run started (after its first progress, epoch 0, was stored); false if it never does.
bool wait_for_training_start(const Cluster& cluster, int64_t run_id) {
    const std::string line = "event=training_started run=" + std::to_string(run_id) + " ";
    return wait_until(
        [&] {
            std::string latest;
            for (int n = 1;
                 std::ifstream(cluster.dir + "/coordinator-" + std::to_string(n) + ".log"); ++n)
                latest = cluster.dir + "/coordinator-" + std::to_string(n) + ".log";
            std::stringstream text;
            text << std::ifstream(latest).rdbuf();
            return text.str().find(line) != std::string::npos;
        },
        60s);
}

TEST_F(TrainingServiceTest, ATrainingRunLowersTheLossBecomesAVersionAndSurvivesARestart) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--heartbeat-seconds", "1"});
    cluster->add_version("default");
    ASSERT_EQ(
        cluster
            ->cli({"submit", "generate", "--version", "default", "--games", "24", "--nodes", "300"})
            .status,
        0);
    // Positions still being generated are not training data yet.
    const CommandResult early =
        cluster->cli({"submit", "train", "--version", "default", "--data", "1"});
    EXPECT_EQ(early.status, 1);
    EXPECT_NE(early.err.find("still generating"), std::string::npos) << early.err;
    cluster->start_worker("one", 2, {"--report-seconds", "1"});
    ASSERT_EQ(cluster->wait_for_run(1, 120s).state(), v1::RUN_STATE_FINISHED);

    const CommandResult submitted = cluster->cli(
        {"submit", "train", "--version", "default", "--data", "1", "--epochs", "40", "--lr", "2"});
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    const v1::RunStatus trained = cluster->wait_for_run(2, 120s);
    ASSERT_EQ(trained.state(), v1::RUN_STATE_FINISHED) << trained.DebugString();
    const v1::TrainStatus& t = trained.train();
    EXPECT_EQ(t.positions(), get_run(*cluster, 1).generate().positions());
    EXPECT_GT(t.k(), 0);
    ASSERT_EQ(t.loss_curve_size(), 40);
    EXPECT_LT(t.final_loss(), t.initial_loss());
    EXPECT_LT(t.loss_curve(39), t.loss_curve(0));
    EXPECT_EQ(cluster->query("SELECT count(*) FROM train_loss WHERE run_id = 2"), 40);
    EXPECT_EQ(cluster->query("SELECT final_loss < initial_loss FROM train_runs WHERE run_id = 2"),
              1);
    const CommandResult show = cluster->cli({"show", "2"});
    EXPECT_NE(show.out.find("epoch:       40 of 40"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("final loss:"), std::string::npos) << show.out;

    // The result becomes a version with exactly the fitted parameters and their bench.
    const CommandResult added = cluster->cli({"versions", "add", "trained", "--from-run", "2"});
    ASSERT_EQ(added.status, 0) << added.err;
    v1::GetVersionRequest request;
    request.set_name("trained");
    v1::Version version;
    ASSERT_TRUE(cluster->users()
                    ->GetVersion(Cluster::context(cluster->user_token).get(), request, &version)
                    .ok());
    EXPECT_EQ(version.builtin().params_json(), t.params_json());
    EXPECT_EQ(int64_t(version.bench()),
              cluster->query("SELECT bench FROM train_runs WHERE run_id = 2"));

    // A long training is stopped by the user at its next epoch.
    const std::vector<std::string> endless = {"submit", "train", "--version", "default",
                                              "--data", "1",     "--epochs",  "100000"};
    ASSERT_EQ(cluster->cli(endless).status, 0);
    ASSERT_EQ(wait_for_epoch(*cluster, 3, 0).state(), v1::RUN_STATE_ACTIVE);
    ASSERT_EQ(cluster->cli({"stop", "3"}).status, 0);
    // The epoch in progress may still be stored (nothing logs the trainer's stop), and then
    // none after it: both are a matter of time passing.
    std::this_thread::sleep_for(1s);
    const int64_t epochs = cluster->query("SELECT count(*) FROM train_loss WHERE run_id = 3");
    std::this_thread::sleep_for(1s);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM train_loss WHERE run_id = 3"), epochs);
    EXPECT_EQ(get_run(*cluster, 3).state(), v1::RUN_STATE_STOPPED);

    // A training active when the coordinator stops starts again when it comes back.
    ASSERT_EQ(cluster->cli(endless).status, 0);
    ASSERT_EQ(wait_for_epoch(*cluster, 4, 2).state(), v1::RUN_STATE_ACTIVE);
    cluster->stop_coordinator(SIGTERM);
    cluster->start_coordinator();
    // Until the restarted training stores its epoch 0, the run shows the epochs of before.
    ASSERT_TRUE(wait_for_training_start(*cluster, 4));
    const v1::RunStatus resumed = wait_for_epoch(*cluster, 4, 2);
    EXPECT_EQ(resumed.state(), v1::RUN_STATE_ACTIVE);
    EXPECT_GT(resumed.train().epoch(), 2u);
    EXPECT_EQ(cluster->query("SELECT max(epoch) = count(*) FROM train_loss WHERE run_id = 4"), 1);
    ASSERT_EQ(cluster->cli({"stop", "4"}).status, 0);

    const CommandResult not_trained = cluster->cli({"versions", "add", "x", "--from-run", "4"});
    EXPECT_EQ(not_trained.status, 1);
    EXPECT_NE(not_trained.err.find("has no result"), std::string::npos) << not_trained.err;
}

TEST_F(TrainingServiceTest, MalformedGenerationSubmissionsAreRejectedWithAClearMessage) {
    cluster = std::make_unique<Cluster>();
    cluster->add_version("default");
    const CommandResult filters = cluster->cli(
        {"submit", "generate", "--version", "default", "--games", "10", "--filter", "checks"});
    EXPECT_EQ(filters.status, 2);
    EXPECT_NE(filters.err.find("--filter"), std::string::npos) << filters.err;
    const CommandResult odd =
        cluster->cli({"submit", "generate", "--version", "default", "--games", "11"});
    EXPECT_EQ(odd.status, 2);
    const CommandResult unknown =
        cluster->cli({"submit", "generate", "--version", "nobody", "--games", "10"});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_NE(unknown.err.find("unknown test version 'nobody'"), std::string::npos) << unknown.err;
    const CommandResult plies = cluster->cli(
        {"submit", "generate", "--version", "default", "--games", "10", "--random-plies", "500"});
    EXPECT_EQ(plies.status, 2);
    const CommandResult no_data =
        cluster->cli({"submit", "train", "--version", "default", "--data", "3"});
    EXPECT_EQ(no_data.status, 1);
    EXPECT_NE(no_data.err.find("no run 3"), std::string::npos) << no_data.err;
    const CommandResult both = cluster->cli(
        {"submit", "train", "--version", "default", "--data", "3", "--generations", "2"});
    EXPECT_EQ(both.status, 2);
    const CommandResult select =
        cluster->cli({"submit", "train", "--version", "default", "--generations", "2", "--games",
                      "10", "--select", "Knight"});
    EXPECT_EQ(select.status, 2);
    EXPECT_NE(select.err.find("--select"), std::string::npos) << select.err;
    const CommandResult name =
        cluster->cli({"submit", "train", "--version", "default", "--generations", "2", "--games",
                      "10", "--name", "my chain"});
    EXPECT_EQ(name.status, 1);
    EXPECT_NE(name.err.find("may hold only letters"), std::string::npos) << name.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
}

}  // namespace
}  // namespace sparring::testing
