// The dashboard's session store and login limits alone (the HTTP side is in
// test_web_security.cpp): a user's sessions make room among themselves only, a full store
// refuses rather than ends anybody's session, and a rate limit's window slides.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/domain/rate_limit.h"
#include "coordinator/web/sessions.h"

namespace sparring::coordinator::web {
namespace {

using namespace std::chrono_literals;

TEST(Sessions, AUsersLoginsEndOnlyThatUsersOldestSessions) {
    Sessions sessions;
    const std::optional<std::string> admin =
        sessions.start(Session{"spa_x", "root", Role::Admin, random_secret()});
    ASSERT_TRUE(admin);
    std::vector<std::string> mine;
    for (int i = 0; i < 10'000; ++i) {
        const std::optional<std::string> id =
            sessions.start(Session{"spu_x", "alice", Role::User, random_secret()});
        ASSERT_TRUE(id);
        mine.push_back(*id);
    }
    EXPECT_EQ(sessions.size(), 1 + Sessions::kPerUser);
    ASSERT_TRUE(sessions.find(*admin));
    EXPECT_EQ(sessions.find(*admin)->user, "root");
    for (size_t i = 0; i < mine.size(); ++i)
        EXPECT_EQ(sessions.find(mine[i]).has_value(), i >= mine.size() - Sessions::kPerUser) << i;
    // An ended session leaves its user's count.
    sessions.end(mine.back());
    EXPECT_FALSE(sessions.find(mine.back()));
    EXPECT_EQ(sessions.size(), Sessions::kPerUser);
    ASSERT_TRUE(sessions.start(Session{"spu_x", "alice", Role::User, random_secret()}));
    EXPECT_TRUE(sessions.find(mine[mine.size() - Sessions::kPerUser]));
}

TEST(Sessions, AFullStoreRefusesANewSessionAndEndsNone) {
    Sessions sessions;
    std::vector<std::string> ids;
    for (size_t i = 0; i < Sessions::kCapacity; ++i) {
        const std::optional<std::string> id = sessions.start(
            Session{"spu_x", "user" + std::to_string(i / Sessions::kPerUser), Role::User, "c"});
        ASSERT_TRUE(id) << i;
        if (i % 997 == 0) ids.push_back(*id);
    }
    EXPECT_FALSE(sessions.start(Session{"spu_y", "newcomer", Role::User, "c"}));
    // A user at their own maximum still logs in, in place of their oldest session.
    EXPECT_TRUE(sessions.start(Session{"spu_x", "user0", Role::User, "c"}));
    EXPECT_EQ(sessions.size(), Sessions::kCapacity);
    for (size_t i = 1; i < ids.size(); ++i) EXPECT_TRUE(sessions.find(ids[i])) << i;
}

TEST(RateLimit, AKeyPastItsLimitWaitsUntilItsOldestEventLeavesTheWindow) {
    RateLimit limit(3, 60s);
    const auto t0 = RateLimit::Clock::time_point() + 1000s;
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(limit.wait("a", t0 + i * 10s).count(), 0) << i;
        limit.count("a", t0 + i * 10s);
    }
    EXPECT_EQ(limit.wait("a", t0 + 20s).count(), 40);
    EXPECT_EQ(limit.wait("b", t0 + 20s).count(), 0) << "keys are counted apart";
    EXPECT_EQ(limit.wait("a", t0 + 59s).count(), 1);
    EXPECT_EQ(limit.wait("a", t0 + 60s).count(), 0) << "the first event left the window";
    limit.count("a", t0 + 60s);
    EXPECT_EQ(limit.wait("a", t0 + 61s).count(), 9);
}

// admit() is wait() and count() in one step: a user's submissions and changes of runs.
TEST(RateLimit, AdmitCountsWhatItLetsThroughAndNothingElse) {
    RateLimit limit(2, 60s);
    const auto t0 = RateLimit::Clock::time_point() + 1000s;
    EXPECT_TRUE(limit.admit("alice", t0));
    EXPECT_TRUE(limit.admit("alice", t0 + 1s));
    EXPECT_FALSE(limit.admit("alice", t0 + 2s));
    EXPECT_FALSE(limit.admit("alice", t0 + 59s));
    EXPECT_TRUE(limit.admit("bob", t0 + 2s));
    // The refusals counted nothing: the first event leaving the window frees one place.
    EXPECT_TRUE(limit.admit("alice", t0 + 60s));
    EXPECT_FALSE(limit.admit("alice", t0 + 60s));
    EXPECT_TRUE(limit.admit("alice", t0 + 61s));
}

TEST(RateLimit, KeysPastTheMaximumAreNotCountedUntilQuietOnesAreDropped) {
    RateLimit limit(1, 60s, 2);
    const auto t0 = RateLimit::Clock::time_point() + 1000s;
    limit.count("a", t0);
    limit.count("b", t0);
    limit.count("c", t0);
    EXPECT_GT(limit.wait("a", t0).count(), 0);
    EXPECT_EQ(limit.wait("c", t0).count(), 0);
    // A minute on, a and b are quiet and make room.
    limit.count("c", t0 + 61s);
    EXPECT_GT(limit.wait("c", t0 + 61s).count(), 0);
}

TEST(ClientKey, AnIpv6AddressCountsAsItsSlash64) {
    EXPECT_EQ(client_key("127.0.0.1"), "127.0.0.1");
    EXPECT_EQ(client_key("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    EXPECT_EQ(client_key("2001:db8:1:2:ffff::1"), client_key("2001:db8:1:2::9"));
    EXPECT_NE(client_key("2001:db8:1:3::1"), client_key("2001:db8:1:2::1"));
    EXPECT_EQ(client_key(""), "");
}

}  // namespace
}  // namespace sparring::coordinator::web
