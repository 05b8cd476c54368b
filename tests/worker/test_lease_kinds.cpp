// The worker's table of lease kinds: each lease finds its kind, which counts its pairs, says
// what it plays, and whether the worker sets a match up for it.
#include <gtest/gtest.h>

#include "worker/lease_kinds.h"

namespace sparring::worker {
namespace {

v1::Lease lease_of(int openings) {
    v1::Lease lease;
    lease.mutable_test()->set_name("new");
    lease.mutable_base()->set_name("old");
    for (int i = 0; i < openings; ++i) lease.add_openings();
    return lease;
}

TEST(LeaseKinds, AGenerationLeaseIsSelfPlayCountedByItsGamesOpenings) {
    v1::Lease lease = lease_of(0);
    for (int i = 0; i < 6; ++i) lease.mutable_generate()->add_game_openings();
    const LeaseKind& kind = lease_kind(lease);
    EXPECT_EQ(kind.pairs(lease), 3u);
    EXPECT_EQ(kind.plays(lease), "self-play of new");
    EXPECT_FALSE(kind.is_match);
}

TEST(LeaseKinds, ATuningLeaseIsAMatchOfPerturbedPairs) {
    v1::Lease lease = lease_of(4);
    lease.mutable_tune()->add_names("KnightValueMg");
    const LeaseKind& kind = lease_kind(lease);
    EXPECT_EQ(kind.pairs(lease), 4u);
    EXPECT_EQ(kind.plays(lease), "new vs old");
    EXPECT_TRUE(kind.is_match);
    EXPECT_NE(&kind, &lease_kind(lease_of(4)));
}

TEST(LeaseKinds, AnyOtherLeaseIsAMatchOfItsVersions) {
    const v1::Lease lease = lease_of(5);
    const LeaseKind& kind = lease_kind(lease);
    EXPECT_EQ(kind.pairs(lease), 5u);
    EXPECT_EQ(kind.plays(lease), "new vs old");
    EXPECT_TRUE(kind.is_match);
    std::string error;
    // A tuning lease without its values cannot be played: the tune kind says so.
    v1::Lease tune = lease_of(1);
    tune.mutable_tune()->add_names("KnightValueMg");
    match::MatchConfig config;
    EXPECT_FALSE(lease_kind(tune).player(tune, &config, 1, &error).has_value());
    EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace sparring::worker
