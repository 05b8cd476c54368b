#include "client/connection.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace sparring::rpc {

std::shared_ptr<grpc::Channel> make_channel(const Endpoint& endpoint) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30'000);
    // A restarted coordinator is found again within seconds, not gRPC's default two minutes.
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 5'000);
    if (endpoint.max_receive_bytes > 0) args.SetMaxReceiveMessageSize(endpoint.max_receive_bytes);
    if (endpoint.tls_ca_file.empty())
        return grpc::CreateCustomChannel(endpoint.address, grpc::InsecureChannelCredentials(),
                                         args);
    std::ifstream in(endpoint.tls_ca_file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the CA file " + endpoint.tls_ca_file);
    std::ostringstream pem;
    pem << in.rdbuf();
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    return grpc::CreateCustomChannel(endpoint.address, grpc::SslCredentials(ssl), args);
}

std::string read_token_file(const std::string& path) {
    // As ssh does with a private key: a token other users can read is a token they have.
    struct stat status {};
    if (stat(path.c_str(), &status) == 0 && (status.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", unsigned(status.st_mode & 07777));
        throw std::runtime_error("the token file " + path + " is open to other users (mode " +
                                 mode + "): chmod 600 " + path);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the token file " + path);
    std::string token;
    std::getline(in, token);
    const size_t first = token.find_first_not_of(" \t\r");
    const size_t last = token.find_last_not_of(" \t\r");
    token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
    if (token.empty()) throw std::runtime_error("the token file " + path + " holds no token");
    for (const char c : token)
        if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f)
            throw std::runtime_error("the token file " + path +
                                     " holds a control character or a blank in its token");
    return token;
}

void prepare(grpc::ClientContext& context, const std::string& token,
             std::chrono::milliseconds timeout) {
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    context.set_deadline(std::chrono::system_clock::now() + timeout);
}

std::chrono::milliseconds retry_after(const grpc::ClientContext& context) {
    const auto& trailers = context.GetServerTrailingMetadata();
    const auto it = trailers.find(kRetryAfterKey);
    if (it == trailers.end()) return std::chrono::milliseconds(0);
    int64_t ms = 0;
    for (char c : std::string_view(it->second.data(), it->second.size())) {
        if (c < '0' || c > '9') return std::chrono::milliseconds(0);
        ms = std::min<int64_t>(ms * 10 + (c - '0'), 600'000);
    }
    return std::chrono::milliseconds(ms);
}

bool is_transient(const grpc::Status& status) {
    switch (status.error_code()) {
        case grpc::StatusCode::UNAVAILABLE:
        case grpc::StatusCode::DEADLINE_EXCEEDED:
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
        case grpc::StatusCode::ABORTED:
            return true;
        default:
            return false;
    }
}

std::string describe(const grpc::Status& status) {
    static constexpr const char* names[] = {"ok",
                                            "cancelled",
                                            "unknown",
                                            "invalid argument",
                                            "deadline exceeded",
                                            "not found",
                                            "already exists",
                                            "permission denied",
                                            "resource exhausted",
                                            "failed precondition",
                                            "aborted",
                                            "out of range",
                                            "unimplemented",
                                            "internal",
                                            "unavailable",
                                            "data loss",
                                            "unauthenticated"};
    const int code = int(status.error_code());
    const std::string name = code >= 0 && code < 17 ? names[code] : "error " + std::to_string(code);
    return status.error_message().empty() ? name : name + ": " + status.error_message();
}

}  // namespace sparring::rpc
