// SPSA tuning runs on the coordinator: resolving a tuning spec, drawing each leased pair's
// perturbation, applying reported pairs to the parameter values exactly once, recording the
// trajectory, and chaining the verification run when a tuning run finishes.
//
// Game pair p of a run (0-based, as leased) is SPSA step k = p + 1. Its signs and gains
// depend only on (seed, k), so the update of a pair can be applied whenever its report comes
// in: a pair is counted once (the lease bitmap and report sequence numbers see to that), so
// no step is applied twice, and a pair whose lease expires goes back to the pool with its k
// and is played again later, so none is skipped. The perturbed values of a lease are drawn
// from the values at the moment it was leased (recorded with the lease, so a re-sent lease
// is identical), as fishtest does.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "coordinator/domain/run_kind.h"
#include "stats/spsa.h"

namespace sparring::coordinator {

// Checks a tuning spec against its base version and fills the defaults of its parameters:
// start from the base version, bounds from the registry, c_end and r_end from the bounds.
absl::StatusOr<TuneState> resolve_tune(const RunSpec& spec, const Version& base);

// Returns the gain schedule of a tuning run of the given number of game pairs.
spsa::Schedule tune_schedule(const Run& run);

// Records the values a new lease of a tuning run draws its perturbations from.
void snapshot_tune(TuneStore& storage, const Lease& lease);

// Fills a granted lease of a tuning run with the perturbation of each of its pairs.
void fill_tune_lease(TuneStore& storage, LeaseGrant& grant);

// Moves a tuning run's values by the reported pairs of a lease and records the trajectory
// point they reach.
void apply_tune_report(TuneStore& storage, const Run& run, const Lease& lease, const Report& report,
                       int64_t now_ms);

// Returns, for a finished tuning run that asked for a verification, the version its values
// make and the regression run that verifies it against the base version; a verification
// that cannot start (its version refused, say) does not refuse the report that finished the
// tuning: the run's result says why instead.
KindEffects finish_tune(TuneStore& storage, const Run& run);

// Returns the version a tuning run's current values make: the base version's preset and
// overrides with the tuned parameters rounded, and its bench signature.
Version tuned_version(const Version& base, const TuneState& state);

}  // namespace sparring::coordinator
