// The WorkerService handlers: every call needs a worker token and runs on the writer.
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

// Runs fn(storage, caller) for a caller holding a worker token.
template <typename Fn>
grpc::ServerUnaryReactor* run_as_worker(grpc::CallbackServerContext* context, Core& core,
                                        Executor& executor, Fn fn) {
    return run_authenticated(context, core, executor, Role::Worker, std::move(fn));
}

}  // namespace

grpc::ServerUnaryReactor* WorkerServiceImpl::Register(grpc::CallbackServerContext* context,
                                                      const v1::RegisterRequest* request,
                                                      v1::RegisterResponse* response) {
    return run_as_worker(
        context, core_, writer_,
        [this, worker = worker_from_proto(*request), response](Storage& storage,
                                                               const Caller& caller) {
            absl::StatusOr<Worker> registered = core_.register_worker(storage, caller, worker);
            if (!registered.ok()) return registered.status();
            response->set_worker_id(registered->id);
            response->set_heartbeat_interval_ms(uint32_t(core_.options().heartbeat_interval_ms));
            return absl::OkStatus();
        });
}

grpc::ServerUnaryReactor* WorkerServiceImpl::RequestWork(grpc::CallbackServerContext* context,
                                                         const v1::RequestWorkRequest* request,
                                                         v1::RequestWorkResponse* response) {
    return run_as_worker(
        context, core_, writer_,
        [this, worker_id = request->worker_id(),
         avoid =
             std::vector<int64_t>(request->avoid_run_ids().begin(), request->avoid_run_ids().end()),
         response](Storage& storage, const Caller& caller) {
            auto lease = core_.request_work(storage, caller, worker_id, avoid);
            if (!lease.ok()) return lease.status();
            if (*lease)
                lease_to_proto(**lease, response->mutable_lease());
            else
                response->set_retry_after_ms(uint32_t(core_.options().retry_after_ms));
            return absl::OkStatus();
        });
}

grpc::ServerUnaryReactor* WorkerServiceImpl::ReportResults(grpc::CallbackServerContext* context,
                                                           const v1::ReportResultsRequest* request,
                                                           v1::ReportResultsResponse* response) {
    absl::StatusOr<Report> report = report_from_proto(*request);
    if (!report.ok()) return finish(context, report.status());
    return run_as_worker(
        context, core_, writer_,
        [this, report = std::move(*report), response](Storage& storage, const Caller& caller) {
            auto ack = core_.report_results(storage, caller, report);
            if (!ack.ok()) return ack.status();
            response->set_duplicate(ack->duplicate);
            response->set_stop(ack->stop);
            response->set_expires_unix_ms(ack->expires_ms);
            return absl::OkStatus();
        });
}

grpc::ServerUnaryReactor* WorkerServiceImpl::Heartbeat(grpc::CallbackServerContext* context,
                                                       const v1::HeartbeatRequest* request,
                                                       v1::HeartbeatResponse* response) {
    return run_as_worker(
        context, core_, writer_,
        [this, worker_id = request->worker_id(),
         leases = std::vector<int64_t>(request->lease_ids().begin(), request->lease_ids().end()),
         response](Storage& storage, const Caller& caller) {
            auto ack = core_.heartbeat(storage, caller, worker_id, leases);
            if (!ack.ok()) return ack.status();
            for (int64_t id : ack->stop_leases) response->add_stop_lease_ids(id);
            response->set_expires_unix_ms(ack->expires_ms);
            return absl::OkStatus();
        });
}

grpc::ServerUnaryReactor* WorkerServiceImpl::ReleaseLease(grpc::CallbackServerContext* context,
                                                          const v1::ReleaseLeaseRequest* request,
                                                          v1::ReleaseLeaseResponse* response) {
    absl::StatusOr<Release> release = release_from_proto(*request);
    if (!release.ok()) return finish(context, release.status());
    return run_as_worker(
        context, core_, writer_,
        [this, release = std::move(*release), response](Storage& storage, const Caller& caller) {
            auto returned = core_.release_lease(storage, caller, release);
            if (!returned.ok()) return returned.status();
            response->set_pairs_returned(*returned);
            return absl::OkStatus();
        });
}

}  // namespace sparring::coordinator
