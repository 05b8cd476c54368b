#include "coordinator/rpc/gate.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/impl/codegen/server_callback_handlers.h>
#include <grpcpp/support/server_callback.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>

#include "client/connection.h"
#include "common/log.h"
#include "coordinator/domain/auth.h"

namespace sparring::coordinator {

std::string bearer_token(const grpc::CallbackServerContext& context) {
    const auto& metadata = context.client_metadata();
    const auto it = metadata.find("authorization");
    if (it == metadata.end()) return {};
    const std::string_view value(it->second.data(), it->second.size());
    constexpr std::string_view prefix = "Bearer ";
    if (value.substr(0, prefix.size()) != prefix) return {};
    return std::string(value.substr(prefix.size()));
}

void finish_call(grpc::CallbackServerContext* context, grpc::ServerUnaryReactor* reactor,
                 const absl::Status& status) {
    if (const std::optional<std::chrono::milliseconds> wait = Executor::retry_after(status))
        context->AddTrailingMetadata(rpc::kRetryAfterKey, std::to_string(wait->count()));
    reactor->Finish(to_grpc(status));
}

Executor::Deadline call_deadline(const grpc::CallbackServerContext& context) {
    const auto deadline = context.deadline();
    const auto now = std::chrono::system_clock::now();
    // No deadline (gRPC's infinite one is the time point's maximum), or one past a day.
    if (deadline - now > std::chrono::hours(24)) return Executor::kNoDeadline;
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - now);
}

std::optional<Role> PassedTokens::role(const std::string& token) const {
    const std::string key = sha256_hex(token);
    std::lock_guard lock(mutex_);
    const auto it = passed_.find(key);
    if (it == passed_.end() || std::chrono::steady_clock::now() - it->second.passed >= kLife)
        return std::nullopt;
    return it->second.role;
}

void PassedTokens::remember(const std::string& token, Role role) {
    std::string key = sha256_hex(token);
    std::lock_guard lock(mutex_);
    if (passed_.size() >= kCapacity && !passed_.count(key)) passed_.clear();
    passed_[std::move(key)] = Entry{role, std::chrono::steady_clock::now()};
}

namespace {

// Runs a method on the calling gRPC thread. An exception it lets out would end the process:
// it is logged and the call fails with INTERNAL, unless the method had finished it already.
void serve_or_fail(const GatedMethod& method, grpc::CallbackServerContext* context,
                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                   grpc::ServerUnaryReactor* reactor) {
    auto finished = std::make_shared<std::atomic<bool>>(false);
    const auto finish = [context, reactor, finished](const absl::Status& status) {
        if (!finished->exchange(true)) finish_call(context, reactor, status);
    };
    try {
        method.serve(context, *request, response, finish);
    } catch (...) {
        log_unexpected_exception("gRPC method");
        finish(absl::InternalError("the coordinator failed to serve this call"));
    }
}

}  // namespace

grpc::internal::MethodHandler* Gate::handler(GatedMethod method) {
    return new grpc::internal::CallbackUnaryHandler<grpc::ByteBuffer, grpc::ByteBuffer>(
        [this, method = std::move(method)](grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) {
            grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
            std::string token = bearer_token(*context);
            if (const std::optional<Role> role = token.empty() ? std::nullopt : passed_.role(token);
                role && (!method.role || role_allows(*role, *method.role))) {
                if (method.admitted_by)
                    if (absl::Status shed = method.admitted_by->admit(method.admission);
                        !shed.ok()) {
                        finish_call(context, reactor, shed);
                        return reactor;
                    }
                serve_or_fail(method, context, request, response, reactor);
                return reactor;
            }
            // What cannot be a token is refused here, on the gRPC thread: a flood of such
            // calls never queues for a database look-up ahead of real callers.
            if (absl::Status shape = check_token_shape(token); !shape.ok()) {
                finish_call(context, reactor, shape);
                return reactor;
            }
            // Once the method runs, it alone finishes the call: the request and response it
            // holds live until then.
            auto served = std::make_shared<std::atomic<bool>>(false);
            reader_.submit(
                [this, &method, token = std::move(token), context, request, response, reactor,
                 served](Storage& storage) {
                    absl::StatusOr<Caller> caller = core_.authenticate(storage, token, method.role);
                    if (!caller.ok()) return caller.status();
                    passed_.remember(token, caller->role);
                    if (method.admitted_by)
                        if (absl::Status shed = method.admitted_by->admit(method.admission);
                            !shed.ok())
                            return shed;
                    served->store(true);
                    method.serve(context, *request, response,
                                 [context, reactor](absl::Status status) {
                                     finish_call(context, reactor, status);
                                 });
                    return absl::OkStatus();
                },
                [context, reactor, served](absl::Status status) {
                    if (!served->load()) finish_call(context, reactor, status);
                });
            return reactor;
        });
}

void Gate::install(const std::string& service, const std::map<std::string, GatedMethod>& methods,
                   const std::function<void(int, grpc::internal::MethodHandler*)>& mark) {
    const google::protobuf::ServiceDescriptor* descriptor =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    if (!descriptor) throw std::logic_error("no service " + service);
    for (int i = 0; i < descriptor->method_count(); ++i) {
        // A streaming method keeps its typed handler: its reactor authenticates first.
        if (descriptor->method(i)->client_streaming() || descriptor->method(i)->server_streaming())
            continue;
        const auto it = methods.find(descriptor->method(i)->name());
        if (it == methods.end())
            throw std::logic_error(service + "/" + descriptor->method(i)->name() +
                                   " has no gated handler");
        mark(i, handler(it->second));
    }
}

}  // namespace sparring::coordinator
