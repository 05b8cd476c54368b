// The WorkerService handlers: every call needs a worker token and runs on the writer.
#include <google/protobuf/descriptor.h>
#include <grpcpp/impl/codegen/server_callback_handlers.h>

#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

// Returns a gated method that needs a worker token and runs (service->*fn)(...).
template <typename Request, typename Response, typename Service>
GatedMethod as_worker(Service* service, Executor& writer,
                      void (Service::*fn)(grpc::CallbackServerContext*, const Request&, Response*,
                                          Done),
                      Admission admission = Admission::keep) {
    return {Role::Worker,
            typed<Request, Response>([service, fn](grpc::CallbackServerContext* context,
                                                   const Request& request, Response* response,
                                                   Done done) {
                (service->*fn)(context, request, response, std::move(done));
            }),
            &writer, admission};
}

}  // namespace

WorkerServiceImpl::WorkerServiceImpl(Core& core, Executor& writer, Gate& gate,
                                     EngineTransfers& engines)
    : core_(core), writer_(writer), engines_(engines) {
    const std::map<std::string, GatedMethod> methods = {
        // Under overload a new lease is refused before a report: a report carries games
        // already played, a lease only adds load.
        {"Register",
         as_worker(this, writer_, &WorkerServiceImpl::register_worker, Admission::start)},
        {"RequestWork",
         as_worker(this, writer_, &WorkerServiceImpl::request_work, Admission::start)},
        {"ReportResults", as_worker(this, writer_, &WorkerServiceImpl::report_results)},
        {"Heartbeat", as_worker(this, writer_, &WorkerServiceImpl::heartbeat)},
        {"ReleaseLease", as_worker(this, writer_, &WorkerServiceImpl::release_lease)},
    };
    gate.install(v1::WorkerService::service_full_name(), methods,
                 [this](int index, grpc::internal::MethodHandler* handler) {
                     MarkMethodRawCallback(index, handler);
                 });
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            v1::WorkerService::service_full_name());
    for (int index = 0; index < service->method_count(); ++index)
        if (service->method(index)->name() == "FetchEngine")
            MarkMethodRawCallback(
                index,
                new grpc::internal::CallbackServerStreamingHandler<grpc::ByteBuffer,
                                                                   grpc::ByteBuffer>(
                    [this](grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
                        return engines_.fetch(context, request);
                    }));
}

void WorkerServiceImpl::register_worker(grpc::CallbackServerContext* context,
                                        const v1::RegisterRequest& request,
                                        v1::RegisterResponse* response, Done done) {
    run_authenticated(
        context, core_, writer_, Role::Worker,
        [this, worker = worker_from_proto(request), response](Storage& storage,
                                                              const Caller& caller) {
            absl::StatusOr<Worker> registered = core_.register_worker(storage, caller, worker);
            if (!registered.ok()) return registered.status();
            response->set_worker_id(registered->id);
            response->set_heartbeat_interval_ms(uint32_t(core_.options().heartbeat_interval_ms));
            engines_.describe_urls(response);  // where to fetch engine files by URL
            return absl::OkStatus();
        },
        std::move(done));
}

void WorkerServiceImpl::request_work(grpc::CallbackServerContext* context,
                                     const v1::RequestWorkRequest& request,
                                     v1::RequestWorkResponse* response, Done done) {
    run_authenticated(
        context, core_, writer_, Role::Worker,
        [this, worker_id = request.worker_id(),
         avoid =
             std::vector<int64_t>(request.avoid_run_ids().begin(), request.avoid_run_ids().end()),
         response](Storage& storage, const Caller& caller) {
            auto lease = core_.request_work(storage, caller, worker_id, avoid);
            if (!lease.ok()) return lease.status();
            if (*lease)
                lease_to_proto(**lease, response->mutable_lease());
            else
                response->set_retry_after_ms(uint32_t(core_.options().retry_after_ms));
            return absl::OkStatus();
        },
        std::move(done));
}

void WorkerServiceImpl::report_results(grpc::CallbackServerContext* context,
                                       const v1::ReportResultsRequest& request,
                                       v1::ReportResultsResponse* response, Done done) {
    // Converted and checked here, on the gate's reader thread, not on the writer.
    absl::StatusOr<Report> report = report_from_proto(request);
    if (!report.ok()) return done(report.status());
    run_authenticated(
        context, core_, writer_, Role::Worker,
        [this, report = std::move(*report), response](Storage& storage, const Caller& caller) {
            auto ack = core_.report_results(storage, caller, report);
            if (!ack.ok()) return ack.status();
            response->set_duplicate(ack->duplicate);
            response->set_stop(ack->stop);
            response->set_expires_unix_ms(ack->expires_ms);
            return absl::OkStatus();
        },
        std::move(done));
}

void WorkerServiceImpl::heartbeat(grpc::CallbackServerContext* context,
                                  const v1::HeartbeatRequest& request,
                                  v1::HeartbeatResponse* response, Done done) {
    run_authenticated(
        context, core_, writer_, Role::Worker,
        [this, worker_id = request.worker_id(),
         leases = std::vector<int64_t>(request.lease_ids().begin(), request.lease_ids().end()),
         response](Storage& storage, const Caller& caller) {
            auto ack = core_.heartbeat(storage, caller, worker_id, leases);
            if (!ack.ok()) return ack.status();
            for (int64_t id : ack->stop_leases) response->add_stop_lease_ids(id);
            response->set_expires_unix_ms(ack->expires_ms);
            return absl::OkStatus();
        },
        std::move(done));
}

void WorkerServiceImpl::release_lease(grpc::CallbackServerContext* context,
                                      const v1::ReleaseLeaseRequest& request,
                                      v1::ReleaseLeaseResponse* response, Done done) {
    absl::StatusOr<Release> release = release_from_proto(request);
    if (!release.ok()) return done(release.status());
    run_authenticated(
        context, core_, writer_, Role::Worker,
        [this, release = std::move(*release), response](Storage& storage, const Caller& caller) {
            auto returned = core_.release_lease(storage, caller, release);
            if (!returned.ok()) return returned.status();
            response->set_pairs_returned(*returned);
            return absl::OkStatus();
        },
        std::move(done));
}

}  // namespace sparring::coordinator
