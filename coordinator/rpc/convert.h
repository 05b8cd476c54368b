// Conversions between the sparring.v1 messages and the coordinator's domain records, and
// from domain statuses to gRPC statuses. Free text read from a message (names, descriptions,
// messages, PGN) is made valid UTF-8 here, whether it came over gRPC or REST. What differs between
// run kinds is converted by the kinds' modules (coordinator/kinds/), reached through the run-kind
// interface (coordinator/domain/run_kind.h).
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/statusor.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/run_history.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Returns the gRPC status with the same code and message (made valid UTF-8 and cut to
// kMaxStatusBytes at a code-point boundary).
grpc::Status to_grpc(const absl::Status& status);

// Writes an option an engine declares.
void engine_option_to_proto(const match::EngineOption& in, v1::EngineOption* out);

absl::StatusOr<Version> version_from_proto(const v1::Version& in);
void version_to_proto(const Version& in, v1::Version* out);
absl::StatusOr<RunSpec> run_spec_from_proto(const v1::RunSpec& in);
// Writes the adjudication rules in force ("" for a rule that is off).
void adjudication_to_proto(const match::Adjudication& in, v1::Adjudication* out);
// Writes a run's status; the book's openings are left out.
// A pair count of the five outcomes (LL, LD, DD or WL, WD, WW).
void pentanomial_to_proto(const stats::Pentanomial& in, v1::Pentanomial* out);
void run_to_proto(const Run& in, v1::RunStatus* out);
// Writes a run's counts and the statistics of them: Elo, LOS, LLR (the live page's update
// writes an event's this way).
void run_results_to_proto(const Run& in, v1::RunStatus* out);
// Writes what is shown of a run alone (Core::run_details) into its status.
void run_details_to_proto(const Run& run, const RunDetails& in, v1::RunStatus* out);
void llr_history_to_proto(const RunHistory& in, v1::LlrHistory* out);
// Writes why a run waits (waiting.h) into its status (convert_work.cpp).
void waiting_to_proto(const RunWaiting& in, v1::RunStatus* out);
std::vector<RunState> run_states_from_proto(const google::protobuf::RepeatedField<int>& states);
// Returns the selection of a runs listing; INVALID_ARGUMENT for an unknown kind or a limit or
// offset out of range.
absl::StatusOr<RunQuery> run_query_from_proto(const v1::ListRunsRequest& in);
// Returns what a ModifyRunRequest asks to change (checked by Core::modify_run).
absl::StatusOr<RunModification> run_modification_from_proto(const v1::ModifyRunRequest& in);
// Fault pauses (convert_faults.cpp): a run's fault bound both ways, and why a run is paused.
FaultBound fault_bound_from_proto(const v1::FaultBound& in);
void fault_bound_to_proto(const FaultBound& in, v1::FaultBound* out);
void fault_state_to_proto(const Run& run, const RunFaults& in, v1::RunStatus* out);

Worker worker_from_proto(const v1::RegisterRequest& in);
void worker_to_proto(const WorkerSummary& in, bool active, v1::WorkerStatus* out);
void worker_fit_to_proto(const WorkerFit& in, v1::WorkerFit* out);
void lease_to_proto(const LeaseGrant& in, v1::Lease* out);
absl::StatusOr<Report> report_from_proto(const v1::ReportResultsRequest& in);
absl::StatusOr<Release> release_from_proto(const v1::ReleaseLeaseRequest& in);

// Reads an import chunk, checking its positions on the calling thread, not the writer
// (convert_training.cpp).
absl::StatusOr<ImportChunk> import_chunk_from_proto(const v1::ImportPositionsRequest& in);

}  // namespace sparring::coordinator
