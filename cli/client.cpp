#include "cli/client.h"

#include <google/protobuf/util/json_util.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "common/sha256.h"

namespace sparring::cli {

void RemoteFlags::declare(CLI::App& app) {
    from_environment(add_flag(app, "coordinator", coordinator, "HOST:PORT", "coordinator address"));
    from_environment(
        add_flag(app, "token", token, "TOKEN",
                 "access token (visible in `ps`; prefer SPARRING_TOKEN or --token-file)"));
    from_environment(add_flag(app, "token-file", token_file, "FILE",
                              "read the access token from the first line of FILE"));
    add_flag(app, "tls-ca", tls_ca, "FILE",
             "use TLS, verifying the coordinator with these CA certificates");
    add_flag(app, "timeout", timeout, "S", "seconds to wait for the coordinator", "10");
}

void CommonFlags::declare_common(CLI::App& app, std::string_view json_help) {
    add_switch(app, "json", json, json_help);
    remote.declare(app);
    add_arguments(app, arguments);
}

SwitchFlags::SwitchFlags(CLI::App& app, std::string_view name, std::string_view help) {
    add_switch(app, name, on, help);
    declare_common(app);
}

RemoteClient::RemoteClient(const RemoteFlags& flags) {
    endpoint_.address = flags.coordinator.value_or("");
    if (endpoint_.address.empty())
        throw UsageError(
            "no coordinator: pass --coordinator HOST:PORT or set "
            "SPARRING_COORDINATOR");
    if (flags.token && flags.token_file)
        throw UsageError("give --token (or SPARRING_TOKEN) or --token-file, not both");
    endpoint_.token =
        flags.token_file ? rpc::read_token_file(*flags.token_file) : flags.token.value_or("");
    endpoint_.tls_ca_file = flags.tls_ca.value_or("");
    // A run's status lists each of its workers: a run played by 100,000 workers answers ~7 MB,
    // past gRPC's 4 MiB default (issue 53's load test at 100,000 workers).
    endpoint_.max_receive_bytes = 256 << 20;
    if (flags.timeout < 1 || flags.timeout > 3600) throw UsageError("--timeout must be in 1..3600");
    timeout_ = std::chrono::seconds(flags.timeout);
    stub_ = v1::UserService::NewStub(rpc::make_channel(endpoint_));
}

void RemoteClient::check(const grpc::Status& status) const {
    if (!status.ok())
        throw std::runtime_error("coordinator " + endpoint_.address + ": " + rpc::describe(status));
}

v1::UploadEngineResponse RemoteClient::upload_engine(const std::string& path, bool archive) {
    std::error_code error;
    const uint64_t size = std::filesystem::file_size(path, error);
    const std::optional<std::string> sha256 = sha256_of_file(path);
    std::ifstream in(path, std::ios::binary);
    if (error || !sha256 || !in) throw std::runtime_error("cannot read " + path);
    grpc::ClientContext context;
    // Past the usual timeout, a second per MiB: a large file on a slow link still arrives.
    rpc::prepare(context, endpoint_.token, timeout_ + std::chrono::seconds(size >> 20));
    v1::UploadEngineResponse response;
    std::unique_ptr<grpc::ClientWriter<v1::UploadEngineRequest>> writer =
        stub_->UploadEngine(&context, &response);
    v1::UploadEngineRequest chunk;
    chunk.set_size(size);
    chunk.set_sha256(*sha256);
    chunk.set_archive(archive);
    std::string buffer(1 << 20, '\0');
    uint64_t sent = 0;
    do {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        chunk.set_data(buffer.data(), size_t(in.gcount()));
        sent += uint64_t(in.gcount());
        // A refused upload (too large, bad token) ends the stream early: stop sending.
        if (!writer->Write(chunk)) break;
        chunk.clear_size();
        chunk.clear_sha256();
        chunk.clear_archive();
    } while (in && sent < size);
    writer->WritesDone();
    check(writer->Finish());
    if (response.sha256() != *sha256)
        throw std::runtime_error("the coordinator stored SHA-256 " + response.sha256() + " but " +
                                 path + " has " + *sha256);
    return response;
}

std::string to_json(const google::protobuf::Message& message) {
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok())
        throw std::runtime_error("cannot print the response as JSON");
    return json;
}

bool print_if_json(bool json, const google::protobuf::Message& message) {
    if (json) std::cout << to_json(message) << "\n";
    return json;
}

int64_t parse_run_id(const std::string& text) {
    int64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id < 1)
        throw UsageError("run id must be a positive number, got '" + text + "'");
    return id;
}

int64_t run_id_argument(const std::vector<std::string>& arguments) {
    if (arguments.size() != 1) throw UsageError("give one run id (see `sparring runs`)");
    return parse_run_id(arguments[0]);
}

}  // namespace sparring::cli
