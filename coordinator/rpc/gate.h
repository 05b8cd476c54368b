// Authentication before anything else: the gRPC services are served from raw bytes, so a
// call's token is checked (on the reader) before its request is even parsed, and a caller
// without a valid token of the right role learns nothing but that.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "coordinator/domain/core.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/storage/executor.h"

namespace sparring::coordinator {

// Returns the bearer token of a call's `authorization` metadata, or an empty string.
std::string bearer_token(const grpc::CallbackServerContext& context);

// Finishes a call with a status; a shed call's retry-after goes in the trailing metadata
// (client/connection.h's kRetryAfterKey).
void finish_call(grpc::CallbackServerContext* context, grpc::ServerUnaryReactor* reactor,
                 const absl::Status& status);

// What a method does once its caller is known: parse the request, run, write the response.
using Serve = std::function<void(grpc::CallbackServerContext*, const grpc::ByteBuffer&,
                                 grpc::ByteBuffer*, std::function<void(absl::Status)>)>;

// A method behind the gate: the role its caller needs (none: any valid token) and its work.
struct GatedMethod {
    std::optional<Role> role;
    Serve serve;
    // The executor the method offers its job to, if any: when that executor would shed it, the
    // call is shed once its caller is known, before its request is read (a refusal costs no
    // parsing and no job); once admitted here, the method submits its job without a second
    // bound, so no call is refused after the work of reading it.
    Executor* admitted_by = nullptr;
    // Whether a full queue refuses the call first (Admission::start: it only starts new work).
    Admission admission = Admission::keep;
};

// Returns a call's deadline on the steady clock (Executor::kNoDeadline for none): a job still
// queued past it is not run.
Executor::Deadline call_deadline(const grpc::CallbackServerContext& context);

// Returns a Serve that parses the bytes as a Request (INVALID_ARGUMENT when they are not
// one), runs fn(context, request, &response, done) and writes the response when it succeeds.
template <typename Request, typename Response, typename Fn>
Serve typed(Fn fn) {
    return [fn](grpc::CallbackServerContext* context, const grpc::ByteBuffer& bytes,
                grpc::ByteBuffer* out, std::function<void(absl::Status)> done) {
        struct Messages {
            Request request;
            Response response;
        };
        auto messages = std::make_shared<Messages>();
        grpc::ByteBuffer copy(bytes);
        if (!grpc::SerializationTraits<Request>::Deserialize(&copy, &messages->request).ok())
            return done(absl::InvalidArgumentError("malformed request: not a " +
                                                   Request::descriptor()->full_name()));
        fn(context, messages->request, &messages->response,
           [messages, out, done = std::move(done)](absl::Status status) {
               bool own = false;
               if (status.ok() &&
                   !grpc::SerializationTraits<Response>::Serialize(messages->response, out, &own)
                        .ok())
                   status = absl::InternalError("cannot serialize the response");
               done(std::move(status));
           });
    };
}

// The tokens that passed the gate lately, with their roles: a call whose token passed less than
// a second ago goes straight on, on the thread that received it, instead of through a read
// transaction on the reader (a hop and a query for every call of every worker). Only a
// pre-check: every method checks its token again in its own transaction, so a token revoked
// within the last second gets its request parsed and is then refused.
class PassedTokens {
  public:
    static constexpr std::chrono::milliseconds kLife{1000};
    static constexpr size_t kCapacity = 4096;

    // Returns the role of a token that passed within kLife.
    std::optional<Role> role(const std::string& token) const;
    // Records that a token passed now with a role.
    void remember(const std::string& token, Role role);

  private:
    struct Entry {
        Role role;
        std::chrono::steady_clock::time_point passed;
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> passed_;  // by the token's SHA-256
};

class Gate {
  public:
    // Checks tokens with the core on the reader's connections.
    Gate(Core& core, Executor& reader) : core_(core), reader_(reader) {}

    // Returns a raw handler serving a method after its caller's token passed.
    grpc::internal::MethodHandler* handler(GatedMethod method);
    // Calls mark(index, handler) for every unary method of a service, in the service's order;
    // throws std::logic_error naming a method the table lacks.
    void install(const std::string& service, const std::map<std::string, GatedMethod>& methods,
                 const std::function<void(int, grpc::internal::MethodHandler*)>& mark);

  private:
    Core& core_;
    Executor& reader_;
    PassedTokens passed_;
};

}  // namespace sparring::coordinator
