// The CLI's connection to the coordinator: flags and environment (--coordinator or
// SPARRING_COORDINATOR, --token or SPARRING_TOKEN, --token-file, --tls-ca, --timeout) and calls
// with a deadline whose failures become one-line errors.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>
#include <vector>

#include "client/connection.h"
#include "common/flags.h"
#include "sparring/v1/user.grpc.pb.h"

namespace sparring::cli {

// Returns a command's own flags followed by the connection flags every remote command takes.
std::vector<Flag> with_remote_flags(std::initializer_list<Flag> own);

class RemoteClient {
  public:
    // Reads the connection flags; throws UsageError when the address is missing.
    explicit RemoteClient(const Flags& args);

    // Calls a UserService method with the token and deadline; throws std::runtime_error with
    // one line ("coordinator 127.0.0.1:5000: unavailable: ...") when it fails.
    template <typename Request, typename Response>
    void call(grpc::Status (v1::UserService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                            Response*),
              const Request& request, Response* response) {
        grpc::ClientContext context;
        rpc::prepare(context, endpoint_.token, timeout_);
        check((stub_.get()->*method)(&context, request, response));
    }

    // Uploads a file with UploadEngine in 1 MiB chunks, its SHA-256 computed here first; the
    // coordinator compares it with its own. Throws std::runtime_error when the file cannot be
    // read or the coordinator refuses it.
    v1::UploadEngineResponse upload_engine(const std::string& path, bool archive);

  private:
    // Throws the one-line error of a failed call.
    void check(const grpc::Status& status) const;

    rpc::Endpoint endpoint_;
    std::chrono::milliseconds timeout_;
    std::unique_ptr<v1::UserService::Stub> stub_;
};

// Returns a message as JSON with the .proto field names (64-bit integers as strings).
std::string to_json(const google::protobuf::Message& message);

}  // namespace sparring::cli
