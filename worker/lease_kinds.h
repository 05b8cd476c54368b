// Lease kinds as the worker sees them: what differs between playing a lease of game pairs
// between two versions, of SPSA tuning pairs and of self-play generation sits in one entry per
// kind, in one table (lease_kinds.cpp). The worker looks a lease's kind up and calls its entry;
// it never branches on the kind itself.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "match/runner.h"
#include "sparring/v1/worker.pb.h"
#include "worker/lease_session.h"

namespace sparring::worker {

// One kind of lease.
struct LeaseKind {
    // Whether a lease is of this kind (the table's last entry takes every lease).
    bool (*is)(const v1::Lease& lease);
    // Returns how many game pairs the lease holds.
    size_t (*pairs)(const v1::Lease& lease);
    // Returns what the lease plays, for the log: "A vs B", "self-play of A".
    std::string (*plays)(const v1::Lease& lease);
    // Whether the lease is a match of its versions: the worker then sets the match up from
    // the lease (engines, time control, scaled clock) and hands it to player().
    bool is_match;
    // Returns what plays the lease's pairs (a match set up by the worker, or null), on
    // `concurrency` threads; nullopt with *error when the lease cannot be played.
    std::optional<PlayPairs> (*player)(const v1::Lease& lease, const match::MatchConfig* match,
                                       int concurrency, std::string* error);
};

// Returns the entry of a lease's kind.
const LeaseKind& lease_kind(const v1::Lease& lease);

}  // namespace sparring::worker
