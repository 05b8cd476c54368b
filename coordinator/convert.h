// Conversions between the sparring.v1 messages and the coordinator's domain records, and
// from domain statuses to gRPC statuses.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/statusor.h"
#include "coordinator/core.h"
#include "coordinator/spsa_run.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Returns the gRPC status with the same code and message.
grpc::Status to_grpc(const absl::Status& status);

absl::StatusOr<Version> version_from_proto(const v1::Version& in);
void version_to_proto(const Version& in, v1::Version* out);
absl::StatusOr<RunSpec> run_spec_from_proto(const v1::RunSpec& in);
// Writes a run's status; the book's openings are left out.
void run_to_proto(const Run& in, v1::RunStatus* out);
std::vector<RunState> run_states_from_proto(const google::protobuf::RepeatedField<int>& states);

Worker worker_from_proto(const v1::RegisterRequest& in);
void worker_to_proto(const WorkerSummary& in, bool active, v1::WorkerStatus* out);
void lease_to_proto(const LeaseGrant& in, v1::Lease* out);
absl::StatusOr<Report> report_from_proto(const v1::ReportResultsRequest& in);
absl::StatusOr<Release> release_from_proto(const v1::ReleaseLeaseRequest& in);

// Tuning runs (convert_tune.cpp).
TuneSpec tune_spec_from_proto(const v1::TuneSpec& in);
// Writes a run's tuning status and, for a verification run, the run it verifies.
void tune_to_proto(const Run& in, v1::RunStatus* out);
// Writes the perturbations of a tuning lease (nothing for other leases).
void tune_lease_to_proto(const LeaseGrant& in, v1::Lease* out);
void tune_history_to_proto(const TuneHistory& in, v1::TuneHistory* out);

}  // namespace sparring::coordinator
