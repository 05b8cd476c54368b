// The lease session without a network: an in-memory coordinator that counts reports the way
// the real one does (once per sequence number), scripted games, and a clock the test moves.
#include <gtest/gtest.h>

#include <deque>
#include <future>
#include <thread>

#include "tests/service/wait.h"
#include "tests/worker/fake_clock.h"
#include "worker/lease_session.h"

namespace sparring::worker {
namespace {

using namespace std::chrono_literals;
using End = LeaseSession::End;
using Kind = CallOutcome::Kind;

// Returns whether pred() becomes true within five (real) seconds.
template <typename Pred>
bool eventually(Pred pred) {
    return test_support::wait_until(pred, 5s, 1ms);
}

// The coordinator's side of one lease, in memory, with failures on demand.
class FakeCoordinator final : public LeaseCoordinator {
  public:
    struct Fault {
        Kind kind;
        bool counted = false;  // the coordinator counted the report, then the answer was lost
    };

    explicit FakeCoordinator(Clock& clock) : clock_(clock) {}

    CallOutcome report(const v1::ReportResultsRequest& request,
                       v1::ReportResultsResponse* response) override {
        std::lock_guard lock(mutex_);
        reports_.push_back(request);
        if (!reachable_) return {Kind::Transient, "unreachable"};
        std::optional<Fault> fault;
        if (!report_faults_.empty()) {
            fault = report_faults_.front();
            report_faults_.pop_front();
        }
        if (fault && !fault->counted) return {fault->kind, "refused by the test"};
        const std::string content = request.SerializeAsString();
        if (const auto seen = recorded_.find(request.sequence()); seen != recorded_.end()) {
            if (seen->second != content) return {Kind::Permanent, "other content"};
            response->set_duplicate(true);
        } else {
            recorded_[request.sequence()] = content;
            for (const v1::GamePair& pair : request.pairs()) counted_.push_back(pair.index());
        }
        response->set_stop(stop_in_report_);
        response->set_expires_unix_ms(clock_.unix_ms() + 60'000);
        if (fault) return {fault->kind, "answer lost"};
        return {};
    }

    CallOutcome heartbeat(const v1::HeartbeatRequest& request,
                          v1::HeartbeatResponse* response) override {
        std::lock_guard lock(mutex_);
        heartbeats_.push_back({clock_.now(), request});
        if (!reachable_) return {Kind::Transient, "unreachable"};
        if (heartbeat_kind_ != Kind::Ok) return {heartbeat_kind_, "unreachable"};
        if (stop_in_heartbeat_)
            for (int64_t id : request.lease_ids()) response->add_stop_lease_ids(id);
        response->set_expires_unix_ms(clock_.unix_ms() + 60'000);
        return {};
    }

    CallOutcome release(const v1::ReleaseLeaseRequest& request,
                        v1::ReleaseLeaseResponse* response) override {
        std::lock_guard lock(mutex_);
        releases_.push_back(request);
        if (!reachable_) return {Kind::Transient, "unreachable"};
        if (!release_faults_.empty()) {
            const Kind kind = release_faults_.front();
            release_faults_.pop_front();
            return {kind, "unreachable"};
        }
        response->set_pairs_returned(uint32_t(3 - counted_.size()));
        return {};
    }

    // Makes every call fail transiently, or lets them through again.
    void set_reachable(bool reachable) {
        std::lock_guard lock(mutex_);
        reachable_ = reachable;
    }
    void fail_reports(std::initializer_list<Fault> faults) {
        std::lock_guard lock(mutex_);
        report_faults_.insert(report_faults_.end(), faults);
    }
    void fail_releases(size_t times) {
        std::lock_guard lock(mutex_);
        release_faults_.insert(release_faults_.end(), times, Kind::Transient);
    }
    void set_heartbeats(Kind kind, bool stop) {
        std::lock_guard lock(mutex_);
        heartbeat_kind_ = kind;
        stop_in_heartbeat_ = stop;
    }
    void stop_in_reports() {
        std::lock_guard lock(mutex_);
        stop_in_report_ = true;
    }
    std::vector<v1::ReportResultsRequest> reports() const {
        std::lock_guard lock(mutex_);
        return reports_;
    }
    std::vector<uint32_t> counted() const {
        std::lock_guard lock(mutex_);
        return counted_;
    }
    std::vector<std::pair<Clock::TimePoint, v1::HeartbeatRequest>> heartbeats() const {
        std::lock_guard lock(mutex_);
        return heartbeats_;
    }
    std::vector<v1::ReleaseLeaseRequest> releases() const {
        std::lock_guard lock(mutex_);
        return releases_;
    }

  private:
    Clock& clock_;
    mutable std::mutex mutex_;
    std::deque<Fault> report_faults_;
    std::deque<Kind> release_faults_;
    bool reachable_ = true;
    Kind heartbeat_kind_ = Kind::Ok;
    bool stop_in_heartbeat_ = false;
    bool stop_in_report_ = false;
    std::map<uint32_t, std::string> recorded_;  // sequence -> content
    std::vector<uint32_t> counted_;             // pair indices, in the order counted
    std::vector<v1::ReportResultsRequest> reports_;
    std::vector<std::pair<Clock::TimePoint, v1::HeartbeatRequest>> heartbeats_;
    std::vector<v1::ReleaseLeaseRequest> releases_;
};

// Games whose pairs finish when the test lets them, and that notice a cancel.
class ScriptedGames {
  public:
    // Lets n more pairs finish.
    void allow(int n) {
        std::lock_guard lock(mutex_);
        allowed_ += n;
    }
    // Gives each pair two games whose PGNs hold this many bytes.
    void set_pgn_bytes(size_t bytes) { pgn_bytes_ = bytes; }
    // Makes play fail with an engine error once the allowed pairs are played.
    void fail_after_allowed(std::string error) {
        std::lock_guard lock(mutex_);
        error_ = std::move(error);
    }
    // Returns the player of a lease of the given number of pairs.
    PlayPairs player(int pairs) {
        return [this, pairs](const PairSink& keep, const std::atomic<bool>& cancel) {
            for (int index = 0; index < pairs; ++index) {
                for (;;) {
                    if (cancel) {
                        cancelled_ = true;
                        return;
                    }
                    std::unique_lock lock(mutex_);
                    if (index < allowed_) break;
                    if (!error_.empty()) throw std::runtime_error(error_);
                    lock.unlock();
                    // Polls: the session's cancel flag has no condition to wait on.
                    std::this_thread::sleep_for(1ms);
                }
                v1::GamePair pair;
                pair.set_index(uint32_t(index));
                if (pgn_bytes_ > 0) {
                    pair.mutable_first()->set_pgn(std::string(pgn_bytes_, 'p'));
                    pair.mutable_second()->set_pgn(std::string(pgn_bytes_, 'p'));
                }
                keep(std::move(pair));
                played_ = index + 1;
            }
        };
    }
    bool cancelled() const { return cancelled_; }
    int played() const { return played_; }

  private:
    std::mutex mutex_;
    int allowed_ = 0;
    std::string error_;
    size_t pgn_bytes_ = 0;
    std::atomic<bool> cancelled_{false};
    std::atomic<int> played_{0};
};

class LeaseSessionTest : public ::testing::Test {
  protected:
    LeaseSessionTest() {
        lease_.set_lease_id(7);
        lease_.set_run_id(3);
        for (int i = 0; i < 3; ++i) lease_.add_openings();
        lease_.set_expires_unix_ms(clock_.unix_ms() + 60'000);
        options_.worker_id = 5;
        options_.report_interval = 2s;
        options_.heartbeat_interval = 10s;
        options_.shutdown_grace = 15s;
        options_.seed = 1;
    }

    // Ends a session a failed test left running, so that the failure does not hang.
    ~LeaseSessionTest() override {
        if (finished()) return;
        session_->shut_down();
        coordinator_.set_reachable(true);
        for (int tick = 0; tick < 1000 && !finished(); ++tick) {
            clock_.advance(1s);
            std::this_thread::sleep_for(1ms);  // lets the session's threads see the time
        }
    }

    // Starts playing the lease's three pairs on a thread of its own.
    void start() {
        session_.emplace(lease_, options_, coordinator_, clock_, [this](const std::string& line) {
            std::lock_guard lock(log_mutex_);
            log_.push_back(line);
        });
        end_ = std::async(std::launch::async, [this] { return session_->play(games_.player(3)); });
    }
    // Returns how the session ended, failing the test if it has not within five seconds.
    std::optional<End> ended() {
        if (end_.wait_for(5s) != std::future_status::ready) return std::nullopt;
        return end_.get();
    }
    // Returns whether play() has returned.
    bool finished() const {
        return !end_.valid() || end_.wait_for(0s) == std::future_status::ready;
    }
    // Returns once the session waits with nothing to do (or has ended).
    bool settle() {
        return clock_.settle([this] { return finished(); });
    }
    // Moves time forward once the session waits, and returns once it waits again.
    bool step(std::chrono::milliseconds duration) {
        return clock_.step(duration, [this] { return finished(); });
    }

    FakeClock clock_;
    FakeCoordinator coordinator_{clock_};
    ScriptedGames games_;
    v1::Lease lease_;
    LeaseSession::Options options_;
    std::optional<LeaseSession> session_;
    std::future<End> end_;
    std::mutex log_mutex_;
    std::vector<std::string> log_;
};

TEST_F(LeaseSessionTest, PlayedPairsAreReportedInNumberedReportsAtTheInterval) {
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(settle());
    EXPECT_TRUE(coordinator_.reports().empty()) << "reported before the interval";
    ASSERT_TRUE(step(2s));
    ASSERT_EQ(coordinator_.reports().size(), 1u);
    games_.allow(2);
    EXPECT_EQ(ended(), End::Done);
    const auto reports = coordinator_.reports();
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[0].sequence(), 1u);
    EXPECT_EQ(reports[0].pairs_size(), 1);
    EXPECT_EQ(reports[1].sequence(), 2u);
    EXPECT_EQ(reports[1].pairs_size(), 2);
    EXPECT_EQ(reports[1].worker_id(), 5);
    EXPECT_EQ(reports[1].lease_id(), 7);
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_TRUE(coordinator_.releases().empty());
}

// Pairs whose PGNs together exceed what one report may carry go in several reports, each under
// the coordinator's receive limit, instead of one report refused on every retry until the lease
// expires with its games.
TEST_F(LeaseSessionTest, PairsTooLargeForOneReportAreSplitAcrossReports) {
    games_.set_pgn_bytes(700'000);  // a pair of 1.4 MB: two fit in a report, three do not
    games_.allow(3);
    start();
    EXPECT_EQ(ended(), End::Done);
    const auto reports = coordinator_.reports();
    ASSERT_EQ(reports.size(), 2u);
    for (const v1::ReportResultsRequest& report : reports)
        EXPECT_LE(report.ByteSizeLong(), LeaseSession::kMaxReportBytes + 64);
    EXPECT_EQ(reports[0].pairs_size(), 2);
    EXPECT_EQ(reports[1].pairs_size(), 1);
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST_F(LeaseSessionTest, TransientReportFailureIsRetriedAndCountedOnce) {
    // The first attempt is counted but its answer lost; the second is refused outright.
    coordinator_.fail_reports({{Kind::Transient, true}, {Kind::Transient, false}});
    games_.allow(3);
    start();
    ASSERT_TRUE(eventually([&] { return coordinator_.reports().size() == 1; }));
    ASSERT_TRUE(step(250ms));
    ASSERT_EQ(coordinator_.reports().size(), 2u);
    ASSERT_TRUE(step(500ms));
    EXPECT_EQ(ended(), End::Done);
    const auto reports = coordinator_.reports();
    ASSERT_EQ(reports.size(), 3u);
    for (const auto& report : reports)
        EXPECT_EQ(report.SerializeAsString(), reports[0].SerializeAsString());
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST_F(LeaseSessionTest, DuplicateAnswerCountsAsAcknowledged) {
    // The first report is counted and its answer lost; the retry is answered as a duplicate.
    coordinator_.fail_reports({{Kind::Transient, true}});
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(step(2s));
    ASSERT_TRUE(step(250ms));
    ASSERT_EQ(coordinator_.reports().size(), 2u);
    games_.allow(2);
    EXPECT_EQ(ended(), End::Done);
    const auto reports = coordinator_.reports();
    ASSERT_EQ(reports.size(), 3u) << "the duplicate was sent again";
    EXPECT_EQ(reports[1].sequence(), 1u);
    EXPECT_EQ(reports[2].sequence(), 2u);
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST_F(LeaseSessionTest, PermanentRefusalEndsTheSessionAndHandsTheLeaseBack) {
    coordinator_.fail_reports({{Kind::Permanent}});
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(step(2s));
    EXPECT_EQ(ended(), End::Refused);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_EQ(coordinator_.reports().size(), 1u);
    const auto releases = coordinator_.releases();
    ASSERT_EQ(releases.size(), 1u);
    EXPECT_EQ(releases[0].lease_id(), 7);
    EXPECT_EQ(releases[0].worker_id(), 5);
    EXPECT_EQ(releases[0].reason(), v1::RELEASE_REASON_ENGINE_FAILURE);
    EXPECT_NE(releases[0].message().find("refused by the test"), std::string::npos);
}

TEST_F(LeaseSessionTest, ReportForALeaseThatIsOverEndsTheSessionWithoutHandBack) {
    coordinator_.fail_reports({{Kind::LeaseOver}});
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(step(2s));
    EXPECT_EQ(ended(), End::Stopped);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_TRUE(coordinator_.releases().empty());
}

TEST_F(LeaseSessionTest, CoordinatorStopInAHeartbeatEndsPlayPromptly) {
    coordinator_.set_heartbeats(Kind::Ok, true);
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(step(10s));
    EXPECT_EQ(ended(), End::Stopped);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_EQ(games_.played(), 1);
    EXPECT_TRUE(coordinator_.releases().empty());
}

TEST_F(LeaseSessionTest, CoordinatorStopInAReportAnswerEndsPlay) {
    coordinator_.stop_in_reports();
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(step(2s));
    EXPECT_EQ(ended(), End::Stopped);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0}));
    EXPECT_TRUE(coordinator_.releases().empty());
}

TEST_F(LeaseSessionTest, ShutdownReportsFinishedPairsAndHandsBackTheRest) {
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(settle());
    session_->shut_down();
    EXPECT_EQ(ended(), End::ShutDown);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0}));
    const auto releases = coordinator_.releases();
    ASSERT_EQ(releases.size(), 1u);
    EXPECT_EQ(releases[0].reason(), v1::RELEASE_REASON_SHUTDOWN);
    EXPECT_EQ(releases[0].message(), "worker shutting down");
}

TEST_F(LeaseSessionTest, ShutdownGivesUpReportingWhenTheGraceRunsOut) {
    coordinator_.fail_reports(std::initializer_list<FakeCoordinator::Fault>({{Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient},
                                                                             {Kind::Transient}}));
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    ASSERT_TRUE(settle());
    session_->shut_down();
    for (int second = 0; second < 15; ++second) ASSERT_TRUE(step(1s));
    EXPECT_EQ(ended(), End::GraceOver);
    EXPECT_TRUE(coordinator_.counted().empty());
    EXPECT_TRUE(coordinator_.releases().empty());
}

TEST_F(LeaseSessionTest, EngineFailureHandsTheLeaseBack) {
    games_.allow(1);
    games_.fail_after_allowed("engine crashed");
    start();
    EXPECT_EQ(ended(), End::Failed);
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0}));
    const auto releases = coordinator_.releases();
    ASSERT_EQ(releases.size(), 1u);
    EXPECT_EQ(releases[0].reason(), v1::RELEASE_REASON_ENGINE_FAILURE);
    EXPECT_EQ(releases[0].message(), "engine crashed");
}

TEST_F(LeaseSessionTest, LeaseExpiresWithoutAcknowledgementsAndPlayStops) {
    lease_.set_expires_unix_ms(clock_.unix_ms() + 30'000);
    coordinator_.set_heartbeats(Kind::Transient, false);
    start();
    ASSERT_TRUE(step(10s));
    ASSERT_TRUE(step(10s));
    ASSERT_TRUE(step(9s));
    EXPECT_FALSE(games_.cancelled()) << "stopped before the lease's time";
    ASSERT_TRUE(step(1s));
    EXPECT_EQ(ended(), End::Expired);
    EXPECT_TRUE(games_.cancelled());
    EXPECT_EQ(coordinator_.heartbeats().size(), 3u);
    EXPECT_TRUE(coordinator_.releases().empty());
}

TEST_F(LeaseSessionTest, ExpiredLeaseStillReportsItsFinishedPairs) {
    // A coordinator that was down, not cut off, resumes its leases on restart: the finished
    // pair is counted, and the pairs the stopped games did not play are handed back.
    lease_.set_expires_unix_ms(clock_.unix_ms() + 30'000);
    coordinator_.set_reachable(false);
    games_.allow(1);
    start();
    ASSERT_TRUE(eventually([&] { return games_.played() == 1; }));
    for (int second = 0; second < 30; ++second) ASSERT_TRUE(step(1s));
    EXPECT_TRUE(eventually([&] { return games_.cancelled(); }));
    coordinator_.set_reachable(true);
    for (int second = 0; second < 40 && !finished(); ++second) ASSERT_TRUE(step(1s));
    EXPECT_EQ(ended(), End::Expired);
    EXPECT_EQ(coordinator_.counted(), (std::vector<uint32_t>{0}));
    const auto releases = coordinator_.releases();
    ASSERT_EQ(releases.size(), 1u);
    EXPECT_EQ(releases[0].reason(), v1::RELEASE_REASON_ENGINE_FAILURE);
}

TEST_F(LeaseSessionTest, AcknowledgedHeartbeatsKeepTheLeaseAlive) {
    lease_.set_expires_unix_ms(clock_.unix_ms() + 30'000);
    start();
    for (int beat = 0; beat < 6; ++beat) ASSERT_TRUE(step(10s));
    EXPECT_FALSE(games_.cancelled());
    coordinator_.set_heartbeats(Kind::Transient, false);
    for (int beat = 0; beat < 6; ++beat) ASSERT_TRUE(step(10s));
    EXPECT_EQ(ended(), End::Expired) << "a heartbeat's answer extends the lease by 60 s";
}

TEST_F(LeaseSessionTest, HeartbeatsAreSentAtTheAskedInterval) {
    options_.heartbeat_interval = 3s;
    start();
    for (int second = 0; second < 10; ++second) ASSERT_TRUE(step(1s));
    const auto heartbeats = coordinator_.heartbeats();
    ASSERT_EQ(heartbeats.size(), 3u);
    for (size_t i = 1; i < heartbeats.size(); ++i)
        EXPECT_EQ(heartbeats[i].first - heartbeats[i - 1].first, 3s);
    for (const auto& [time, request] : heartbeats) {
        EXPECT_EQ(request.worker_id(), 5);
        ASSERT_EQ(request.lease_ids_size(), 1);
        EXPECT_EQ(request.lease_ids(0), 7);
    }
    session_->shut_down();
    EXPECT_EQ(ended(), End::ShutDown);
}

TEST_F(LeaseSessionTest, HandBackRetriesTransientFailuresWithinTheGrace) {
    coordinator_.fail_releases(2);
    session_.emplace(lease_, options_, coordinator_, clock_, [](const std::string&) {});
    auto release = std::async(std::launch::async, [&] {
        session_->hand_back(v1::RELEASE_REASON_BENCH_MISMATCH, 11, 1234, "bench mismatch");
    });
    const auto released = [&] { return release.wait_for(0s) == std::future_status::ready; };
    ASSERT_TRUE(clock_.step(250ms, released));
    EXPECT_EQ(coordinator_.releases().size(), 2u);
    ASSERT_TRUE(clock_.step(500ms, released));
    ASSERT_TRUE(released());
    const auto releases = coordinator_.releases();
    ASSERT_EQ(releases.size(), 3u);
    EXPECT_EQ(releases[2].reason(), v1::RELEASE_REASON_BENCH_MISMATCH);
    EXPECT_EQ(releases[2].version_id(), 11);
    EXPECT_EQ(releases[2].computed_bench(), 1234u);
}

TEST_F(LeaseSessionTest, HandBackGivesUpWhenTheGraceRunsOut) {
    options_.shutdown_grace = 1s;
    coordinator_.fail_releases(100);
    session_.emplace(lease_, options_, coordinator_, clock_, [this](const std::string& line) {
        std::lock_guard lock(log_mutex_);
        log_.push_back(line);
    });
    auto release = std::async(std::launch::async, [&] {
        session_->hand_back(v1::RELEASE_REASON_SHUTDOWN, 0, 0, "worker shutting down");
    });
    const auto released = [&] { return release.wait_for(0s) == std::future_status::ready; };
    for (int tick = 0; tick < 8; ++tick) ASSERT_TRUE(clock_.step(250ms, released));
    ASSERT_TRUE(released()) << "still retrying after the grace";
    EXPECT_LE(coordinator_.releases().size(), 5u);
    std::lock_guard lock(log_mutex_);
    ASSERT_FALSE(log_.empty());
    EXPECT_NE(log_.back().find("it will expire"), std::string::npos) << log_.back();
}

}  // namespace
}  // namespace sparring::worker
