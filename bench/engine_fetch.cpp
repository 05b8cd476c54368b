// sparring-bench-engine-fetch: many workers fetching one uploaded engine file at once from one
// coordinator, over gRPC (FetchEngine) and over HTTP (/engines/<sha256>), with the worker's own
// fetch code (GrpcCoordinator::fetch_engine, EngineUrlFetcher::fetch), each simulated worker a
// process of its own. Prints, per transport, the wall time until the last client has the
// whole file and the coordinator's CPU time meanwhile (/proc/PID/stat utime+stime). Issue 53,
// item 4; bench/engine_fetch.sh runs it, BENCHMARKS.md holds the figures.
//   sparring-bench-engine-fetch --coordinator HOST:PORT --http-port N --user-token T
//     --worker-token T --file FILE --coordinator-pid PID [--clients 50] [--transports grpc,http]
//     [--external-url URL, with the transport external: a server holding the file at URL/SHA256]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "client/connection.h"
#include "common/sha256.h"
#include "sparring/v1/user.grpc.pb.h"
#include "worker/engine_url.h"
#include "worker/grpc_coordinator.h"

namespace {

using namespace sparring;

// Returns a process's CPU time (user + system) in seconds, from /proc/PID/stat.
double cpu_seconds(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Fields after the command's closing parenthesis: state is field 3; utime 14, stime 15.
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

// Uploads a file as an engine with the user token; returns its SHA-256, empty on failure.
std::string upload(const rpc::Endpoint& endpoint, const std::string& path) {
    const std::optional<std::string> sha256 = sha256_of_file(path);
    if (!sha256) return "";
    std::ifstream in(path, std::ios::binary);
    in.seekg(0, std::ios::end);
    const uint64_t size = uint64_t(in.tellg());
    in.seekg(0);
    auto stub = v1::UserService::NewStub(rpc::make_channel(endpoint));
    grpc::ClientContext context;
    rpc::prepare(context, endpoint.token, std::chrono::minutes(5));
    v1::UploadEngineResponse response;
    auto writer = stub->UploadEngine(&context, &response);
    std::string buffer(1 << 20, '\0');
    bool first = true;
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const std::streamsize n = in.gcount();
        if (n <= 0 && !first) break;
        v1::UploadEngineRequest chunk;
        if (first) {
            chunk.set_size(size);
            chunk.set_sha256(*sha256);
            first = false;
        }
        chunk.set_data(buffer.data(), size_t(n));
        if (!writer->Write(chunk)) break;
    }
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    if (!status.ok()) {
        std::cerr << "upload failed: " << status.error_message() << "\n";
        return "";
    }
    return *sha256;
}

}  // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> args = {{"--clients", "50"}, {"--transports", "grpc,http"}};
    for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
    for (const char* needed : {"--coordinator", "--http-port", "--user-token", "--worker-token",
                               "--file", "--coordinator-pid"})
        if (!args.count(needed)) {
            std::cerr << "usage: sparring-bench-engine-fetch --coordinator HOST:PORT --http-port N "
                         "--user-token T --worker-token T --file FILE --coordinator-pid PID "
                         "[--clients 50] [--transports grpc,http]\n";
            return 2;
        }
    const int clients = std::stoi(args["--clients"]);
    const long pid = std::stol(args["--coordinator-pid"]);
    const rpc::Endpoint user{args["--coordinator"], args["--user-token"], "", 0};
    const rpc::Endpoint worker{args["--coordinator"], args["--worker-token"], "", 0};
    const std::optional<std::string> whole = sha256_of_file(args["--file"]);
    if (!whole) return 1;
    const std::string sha256 = *whole;
    if (const pid_t uploader = fork(); uploader == 0) {
        _exit(upload(user, args["--file"]) == sha256 ? 0 : 1);
    } else {
        int upload_status = 1;
        if (uploader < 0 || waitpid(uploader, &upload_status, 0) != uploader ||
            !WIFEXITED(upload_status) || WEXITSTATUS(upload_status) != 0) {
            std::cerr << "the upload failed\n";
            return 1;
        }
    }
    std::ifstream sized(args["--file"], std::ios::binary | std::ios::ate);
    const uint64_t size = uint64_t(sized.tellg());
    std::printf("file: %.1f MB, sha256 %s; %d clients at once\n", double(size) / 1e6,
                sha256.substr(0, 12).c_str(), clients);

    std::stringstream transports(args["--transports"]);
    std::string transport;
    int status = 0;
    while (std::getline(transports, transport, ',')) {
        // Each client a process of its own, as each worker is: its own gRPC channel (channels
        // of one process share a connection) or HTTP client. The children are forked before
        // this process uses gRPC for anything but the upload, done in a child too.
        const double cpu_before = cpu_seconds(pid);
        const auto start = std::chrono::steady_clock::now();
        std::vector<pid_t> children;
        for (int i = 0; i < clients; ++i) {
            const pid_t child = fork();
            if (child < 0) {
                std::perror("fork");
                return 1;
            }
            if (child > 0) {
                children.push_back(child);
                continue;
            }
            uint64_t bytes = 0;
            const auto write = [&bytes](std::string_view data) {
                bytes += data.size();
                return true;
            };
            worker::EngineCache::FetchResult result;
            if (transport == "grpc") {
                worker::GrpcCoordinator channel(worker, std::chrono::seconds(60));
                v1::FetchEngineRequest request;
                request.set_sha256(sha256);
                result = channel.fetch_engine(request, write);
            } else {
                worker::EngineUrlFetcher fetcher(worker.token, "");
                const std::string host = worker.address.substr(0, worker.address.rfind(':'));
                // "external": a stand-in for an object store (no token), which the
                // coordinator never sees.
                fetcher.set_base(
                    transport == "external"
                        ? worker::EngineBase{args["--external-url"], false}
                        : worker::EngineBase{
                              "http://" + host + ":" + args["--http-port"] + "/engines", true});
                result = fetcher.fetch(sha256, 0, write);
            }
            if (!result.ok || bytes != size)
                std::fprintf(stderr, "%s client %d: %llu bytes, %s\n", transport.c_str(), i,
                             (unsigned long long)bytes, result.error.c_str());
            std::fflush(stderr);
            _exit(result.ok && bytes == size ? 0 : 1);
        }
        int complete = 0;
        for (const pid_t child : children) {
            int child_status = 0;
            if (waitpid(child, &child_status, 0) == child && WIFEXITED(child_status) &&
                WEXITSTATUS(child_status) == 0)
                ++complete;
        }
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double cpu = cpu_seconds(pid) - cpu_before;
        const double received = double(size) * complete;
        std::printf(
            "%-4s %d/%d clients complete, %.0f MB in %.2f s (%.0f MB/s), coordinator CPU "
            "%.2f s (%.2f s per GB)\n",
            transport.c_str(), complete, clients, received / 1e6, wall, received / 1e6 / wall, cpu,
            cpu / (received / 1e9));
        std::fflush(stdout);
        if (complete != clients) status = 1;
    }
    return status;
}
