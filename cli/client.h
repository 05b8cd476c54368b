// The CLI's connection to the coordinator: flags and environment (--coordinator or
// SPARRING_COORDINATOR, --token or SPARRING_TOKEN, --token-file, --tls-ca, --timeout) and calls
// with a deadline whose failures become one-line errors.
#pragma once

#include <google/protobuf/message.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/connection.h"
#include "common/flags.h"
#include "sparring/v1/user.grpc.pb.h"

namespace sparring::cli {

// The connection flags every remote command takes, after its own.
struct RemoteFlags {
    std::optional<std::string> coordinator, token, token_file, tls_ca;
    int64_t timeout = 0;

    // Declares the flags on app.
    void declare(CLI::App& app);
};

// What most remote commands end with: --json, the connection flags, and the arguments.
struct CommonFlags {
    bool json = false;
    RemoteFlags remote;
    std::vector<std::string> arguments;

    // Declares --json (with its help), the connection flags and the arguments on app.
    void declare_common(CLI::App& app, std::string_view json_help = "print JSON");
};

// The flags of a remote command with one switch of its own: the switch, then CommonFlags.
struct SwitchFlags : CommonFlags {
    bool on = false;  // the switch

    // Declares the switch --name with its help, and the common flags, on app.
    SwitchFlags(CLI::App& app, std::string_view name, std::string_view help);
};

class RemoteClient {
  public:
    // Reads the connection flags; throws UsageError when the address is missing.
    explicit RemoteClient(const RemoteFlags& flags);

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

    // Calls a server-streaming UserService method, passing each message to on_message in
    // order, with no deadline (a bulk export may take hours); throws as call() does, and lets
    // on_message's exceptions out after cancelling the call.
    template <typename Request, typename Response>
    void stream(std::unique_ptr<grpc::ClientReader<Response>> (v1::UserService::Stub::*method)(
                    grpc::ClientContext*, const Request&),
                const Request& request, const std::function<void(const Response&)>& on_message) {
        grpc::ClientContext context;
        rpc::prepare(context, endpoint_.token, std::chrono::hours(24 * 365));
        std::unique_ptr<grpc::ClientReader<Response>> reader =
            (stub_.get()->*method)(&context, request);
        Response message;
        try {
            while (reader->Read(&message)) on_message(message);
        } catch (...) {
            context.TryCancel();
            while (reader->Read(&message)) {
            }
            reader->Finish();
            throw;
        }
        check(reader->Finish());
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

// Prints a message as JSON when json is set (--json); returns whether it did.
bool print_if_json(bool json, const google::protobuf::Message& message);

// Returns the run id a text gives; throws UsageError when it is not a positive number.
int64_t parse_run_id(const std::string& text);

// Returns the run id of a command's one positional argument; throws UsageError otherwise.
int64_t run_id_argument(const std::vector<std::string>& arguments);

}  // namespace sparring::cli
