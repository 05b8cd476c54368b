// The worker's retry logic without a network: backoff delays, which failures are retried, and
// how gRPC statuses are classified.
#include <gtest/gtest.h>

#include "worker/grpc_coordinator.h"
#include "worker/retry.h"

namespace sparring::worker {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using Kind = CallOutcome::Kind;

TEST(WorkerBackoff, DoublesUpToTheCapWithJitterInTheUpperHalf) {
    Backoff backoff(250ms, 2000ms, 42);
    for (const milliseconds delay : {250ms, 500ms, 1000ms, 2000ms, 2000ms, 2000ms}) {
        const milliseconds wait = backoff.next();
        EXPECT_GE(wait, delay / 2);
        EXPECT_LE(wait, delay);
    }
    backoff.reset();
    EXPECT_LE(backoff.next(), 250ms);
}

TEST(WorkerBackoff, JitterSpreadsWorkersApart) {
    Backoff a(1000ms, 1000ms, 1), b(1000ms, 1000ms, 2);
    bool differ = false;
    for (int i = 0; i < 10; ++i) differ |= a.next() != b.next();
    EXPECT_TRUE(differ);
}

// Returns a call that fails with the given outcomes in turn, then succeeds; counts attempts.
std::function<CallOutcome()> failing(std::vector<Kind> kinds, int* attempts) {
    return [kinds = std::move(kinds), attempts] {
        const size_t attempt = size_t((*attempts)++);
        if (attempt < kinds.size()) return CallOutcome{kinds[attempt], "failure"};
        return CallOutcome{};
    };
}

TEST(WorkerRetry, RetriesTransientFailuresUntilSuccess) {
    Backoff backoff(250ms, 30'000ms, 7);
    int attempts = 0;
    std::vector<milliseconds> pauses;
    const CallOutcome outcome =
        retry_transient(failing({Kind::Transient, Kind::Transient, Kind::Transient}, &attempts),
                        backoff, [&](const CallOutcome& failure, milliseconds delay) {
                            EXPECT_EQ(failure.kind, Kind::Transient);
                            pauses.push_back(delay);
                            return true;
                        });
    EXPECT_TRUE(outcome.ok());
    EXPECT_EQ(attempts, 4);
    ASSERT_EQ(pauses.size(), 3u);
    EXPECT_LE(pauses[0], 250ms);
    EXPECT_GE(pauses[2], 500ms) << "the delay doubles";
}

TEST(WorkerRetry, PermanentFailuresAreNotRetried) {
    for (const Kind kind : {Kind::Permanent, Kind::LeaseOver}) {
        Backoff backoff(250ms, 30'000ms, 7);
        int attempts = 0;
        const CallOutcome outcome =
            retry_transient(failing({Kind::Transient, kind}, &attempts), backoff,
                            [](const CallOutcome&, milliseconds) { return true; });
        EXPECT_EQ(outcome.kind, kind);
        EXPECT_EQ(attempts, 2);
    }
}

TEST(WorkerRetry, GivesUpWhenThePauseRefuses) {
    // A deadline 1 s away: the delays 250, 500, 1000 ms (at most) add up past it.
    Backoff backoff(250ms, 30'000ms, 7);
    int attempts = 0;
    milliseconds waited{0};
    const CallOutcome outcome =
        retry_transient(failing(std::vector<Kind>(100, Kind::Transient), &attempts), backoff,
                        [&](const CallOutcome&, milliseconds delay) {
                            if (waited + delay > 1000ms) return false;
                            waited += delay;
                            return true;
                        });
    EXPECT_EQ(outcome.kind, Kind::Transient);
    EXPECT_EQ(outcome.error, "failure");
    EXPECT_GE(attempts, 2);
    EXPECT_LE(attempts, 4);
    EXPECT_LE(waited, 1000ms);
}

TEST(WorkerRetry, ABusyCoordinatorsRetryAfterIsHonoured) {
    Backoff backoff(100ms, 200ms, 7);
    CallOutcome busy{Kind::Transient, "resource exhausted: busy"};
    busy.retry_after = 1500ms;
    EXPECT_EQ(wait_after(busy, backoff), 1500ms);
    // A hint shorter than the backoff decides too (the coordinator knows its queue and spreads
    // its hints), down to 10 ms; it does not advance the backoff.
    busy.retry_after = 30ms;
    EXPECT_EQ(wait_after(busy, backoff), 30ms);
    busy.retry_after = 1ms;
    EXPECT_EQ(wait_after(busy, backoff), 10ms);
    // Without a hint the backoff decides, from its first delay.
    busy.retry_after = 0ms;
    const milliseconds wait = wait_after(busy, backoff);
    EXPECT_GE(wait, 50ms);
    EXPECT_LE(wait, 100ms);
    int attempts = 0;
    std::vector<milliseconds> pauses;
    const CallOutcome outcome = retry_transient(
        [&] {
            CallOutcome o{attempts++ < 2 ? Kind::Transient : Kind::Ok, ""};
            o.retry_after = o.ok() ? 0ms : 900ms;
            return o;
        },
        backoff,
        [&](const CallOutcome&, milliseconds delay) {
            pauses.push_back(delay);
            return true;
        });
    EXPECT_TRUE(outcome.ok());
    EXPECT_EQ(pauses, (std::vector<milliseconds>{900ms, 900ms}));
}

TEST(WorkerRetry, GrpcStatusesAreClassified) {
    EXPECT_TRUE(outcome_of(grpc::Status::OK).ok());
    for (const grpc::StatusCode code :
         {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
          grpc::StatusCode::RESOURCE_EXHAUSTED, grpc::StatusCode::ABORTED})
        EXPECT_EQ(outcome_of(grpc::Status(code, "x")).kind, Kind::Transient) << code;
    EXPECT_EQ(outcome_of(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "expired")).kind,
              Kind::LeaseOver);
    for (const grpc::StatusCode code :
         {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::ALREADY_EXISTS,
          grpc::StatusCode::NOT_FOUND, grpc::StatusCode::PERMISSION_DENIED,
          grpc::StatusCode::UNAUTHENTICATED})
        EXPECT_EQ(outcome_of(grpc::Status(code, "x")).kind, Kind::Permanent) << code;
    const CallOutcome refused = outcome_of(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad"));
    EXPECT_NE(refused.error.find("bad"), std::string::npos) << refused.error;
}

}  // namespace
}  // namespace sparring::worker
