// Connecting to the coordinator: a channel (TLS verified against a CA file, or plaintext),
// call contexts that carry the bearer token and a deadline, and which failures to retry.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

namespace sparring::rpc {

struct Endpoint {
    std::string address;        // HOST:PORT
    std::string token;          // bearer token
    std::string tls_ca_file;    // PEM CA certificates; empty: plaintext
    int max_receive_bytes = 0;  // largest message accepted from the coordinator; 0: gRPC's 4 MiB
};

// Returns the token kept in a file (its first line, surrounding blanks removed), so that it
// shows in no process listing; throws std::runtime_error when the file cannot be read, is
// open to other users (any group or other permission bit: chmod 600) or holds no token.
std::string read_token_file(const std::string& path);

// Returns a channel to the endpoint; throws std::runtime_error if the CA file is unreadable.
std::shared_ptr<grpc::Channel> make_channel(const Endpoint& endpoint);

// Sets a call's bearer token and its deadline, timeout from now.
void prepare(grpc::ClientContext& context, const std::string& token,
             std::chrono::milliseconds timeout);

// Returns whether a failed call may succeed later unchanged (coordinator down or busy).
bool is_transient(const grpc::Status& status);

// The trailing metadata key of a busy coordinator's RESOURCE_EXHAUSTED answer: how many
// milliseconds to wait before trying again.
inline constexpr char kRetryAfterKey[] = "retry-after-ms";

// Returns the wait a finished call's trailing metadata asks for (0 when none).
std::chrono::milliseconds retry_after(const grpc::ClientContext& context);

// Returns a failed call as one line: "unavailable: connection refused".
std::string describe(const grpc::Status& status);

}  // namespace sparring::rpc
