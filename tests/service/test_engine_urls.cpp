// Engines fetched by URL (issue 53), with real coordinator, worker and CLI processes and a
// real third-party engine (a copy of Debian's Stockfish, uploaded): the coordinator serves it
// at /engines/<sha256> over its HTTP server (ranges, HEAD, ETag, behind the worker token) and
// a worker fetches it there, resuming a partial download with a Range; an external base (a
// local python http.server standing in for a CDN) is used without the token, and one holding
// other bytes is refused by the SHA-256, the worker falling back to gRPC and playing.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cluster.h"
#include "common/sha256.h"
#include "needs.h"

namespace sparring::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

// A tiny HTTP file server standing in for an object store: serves a directory on 127.0.0.1,
// logging each request line and whether it carried an Authorization header.
constexpr const char* kFileServer = R"(import http.server, os, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        auth = 'auth=yes' if self.headers.get('Authorization') else 'auth=no'
        sys.stderr.write('%s %s %s\n' % (self.requestline, auth, args[1] if len(args) > 1 else ''))
        sys.stderr.flush()
os.chdir(sys.argv[1])
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
with open(sys.argv[2] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + '.tmp', sys.argv[2])
server.serve_forever()
)";

class EngineUrlTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Starts a coordinator with flags, uploads the Stockfish copy as version sf (its bench
    // computed by the CLI) and adds the built-in b.
    void start(std::vector<std::string> flags) {
        cluster = std::make_unique<Cluster>(flags);
        engine = cluster->dir + "/stockfish-copy";
        fs::copy_file(kStockfish, engine);
        sha256 = *sha256_of_file(engine);
        bytes = slurp(engine);
        const CommandResult added =
            cluster->cli({"versions", "add", "sf", "--engine-file", engine, "--no-options"});
        ASSERT_EQ(added.status, 0) << added.err;
        cluster->add_version("b");
    }

    // Plays a run of two games of sf against b; returns the games it ended with.
    uint64_t play() {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(2);
        request.mutable_spec()->set_test_version("sf");
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return cluster->wait_for_run(run.id(), 60s).games();
    }

    // Returns the coordinator's log (of its first start).
    std::string coordinator_log() const { return slurp(cluster->dir + "/coordinator-1.log"); }

    std::unique_ptr<Cluster> cluster;
    std::string engine;
    std::string sha256;
    std::string bytes;
};

TEST_F(EngineUrlTest, TheCoordinatorServesEngineFilesOverHttpAndAWorkerResumesThere) {
    const std::string port_file =
        ::testing::TempDir() + "engine-urls-" + std::to_string(getpid()) + ".port";
    fs::remove(port_file);
    start({"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    fs::remove(port_file);
    ASSERT_GT(port, 0);
    httplib::Client http("127.0.0.1", port);
    const std::string path = "/engines/" + sha256;
    const httplib::Headers worker = {{"Authorization", "Bearer " + cluster->worker_token}};

    // Refused: no token, a user's token, a bad name, an unknown file, bad ranges.
    auto answer = http.Get(path);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 401);
    EXPECT_EQ(answer->get_header_value("WWW-Authenticate"), "Bearer");
    EXPECT_EQ(answer->body.find(bytes.substr(0, 64)), std::string::npos);
    EXPECT_EQ(http.Get("/engines/nothing-here")->status, 401);  // the token before the name
    EXPECT_EQ(http.Get(path, {{"Authorization", "Bearer not-a-token"}})->status, 401);
    EXPECT_EQ(http.Get(path, {{"Authorization", "Bearer " + cluster->user_token}})->status, 403);
    EXPECT_EQ(http.Get("/engines/..%2F..%2Fsparring.db", worker)->status, 400);
    EXPECT_EQ(http.Get("/engines/" + sha256.substr(0, 63) + "G", worker)->status, 400);
    EXPECT_EQ(http.Get("/engines/" + std::string(64, '0'), worker)->status, 404);
    for (const char* range : {"bytes=abc", "bytes=1-2,5-6", "items=0-1", "bytes=9-3"}) {
        httplib::Headers headers = worker;
        headers.emplace("Range", range);
        answer = http.Get(path, headers);
        ASSERT_TRUE(answer);
        EXPECT_EQ(answer->status, 400) << range;
        EXPECT_NE(answer->body.find("bad Range header"), std::string::npos) << answer->body;
    }
    httplib::Headers past = worker;
    past.emplace("Range", "bytes=" + std::to_string(bytes.size()) + "-");
    answer = http.Get(path, past);
    EXPECT_EQ(answer->status, 416);
    EXPECT_EQ(answer->get_header_value("Content-Range"), "bytes */" + std::to_string(bytes.size()));
    // Nothing refused was served, and the stored file is as it was.
    EXPECT_EQ(count_in_text(coordinator_log(), "engine_fetch"), 0u);
    EXPECT_EQ(slurp(cluster->db + ".engines/" + sha256), bytes);

    // Served: HEAD, a range, the whole file.
    answer = http.Head(path, worker);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->get_header_value("Content-Length"), std::to_string(bytes.size()));
    EXPECT_EQ(answer->get_header_value("ETag"), "\"" + sha256 + "\"");
    EXPECT_EQ(answer->get_header_value("Accept-Ranges"), "bytes");
    httplib::Headers some = worker;
    some.emplace("Range", "bytes=1000-1999");
    answer = http.Get(path, some);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 206);
    EXPECT_EQ(answer->get_header_value("Content-Range"),
              "bytes 1000-1999/" + std::to_string(bytes.size()));
    EXPECT_EQ(answer->body, bytes.substr(1000, 1000));
    answer = http.Get(path, worker);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    EXPECT_TRUE(answer->body == bytes);

    // A worker with the first third of the file already there resumes it over HTTP.
    const std::string cache = cluster->dir + "/cache";
    const size_t have = bytes.size() / 3;
    fs::create_directories(cache + "/partial");
    std::ofstream(cache + "/partial/" + sha256, std::ios::binary) << bytes.substr(0, have);
    Process& w = cluster->start_worker("w", 1, {"--accept-uploaded-engines", "--cache-dir", cache});
    EXPECT_EQ(play(), 2u);
    const std::string log = slurp(w.log_path());
    EXPECT_EQ(count_in_text(log, "resuming the download of engine " + sha256.substr(0, 12) +
                                     " at byte " + std::to_string(have) + " over HTTP"),
              1u)
        << log;
    EXPECT_EQ(count_in_text(log, "verified and cached"), 1u);
    EXPECT_EQ(count_in_text(log, "instead"), 0u);  // no fallback
    const std::string served = coordinator_log();
    EXPECT_EQ(count_in_text(served,
                            "transport=http sha256=" + sha256 + " offset=" + std::to_string(have)),
              1u)
        << served;
    EXPECT_EQ(count_in_text(served, "transport=grpc"), 0u);
    // The metrics say so too (the dashboard's /metrics is public without --http-require-token).
    answer = http.Get("/metrics");
    ASSERT_TRUE(answer);
    EXPECT_NE(answer->body.find("sparring_engine_fetches_total{transport=\"grpc\"} 0"),
              std::string::npos);
    EXPECT_NE(answer->body.find("sparring_engine_fetches_total{transport=\"http\"} 3"),
              std::string::npos)
        << answer->body;
}

TEST_F(EngineUrlTest, AnExternalBaseGetsNoTokenAndWrongBytesThereFallBackToGrpc) {
    // The external base: good/ holds the file under its SHA-256, bad/ other bytes of that name.
    const std::string store = ::testing::TempDir() + "engine-store-" + std::to_string(getpid());
    fs::remove_all(store);
    fs::create_directories(store + "/good");
    fs::create_directories(store + "/bad");
    const std::string file_server = store + "/../engine-store-" + std::to_string(getpid()) + ".py";
    std::ofstream(file_server) << kFileServer;
    const std::string port_file = store + ".port";
    fs::remove(port_file);
    Process server({"/usr/bin/python3", file_server, store, port_file}, store + ".log");
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);
    const std::string base = "http://127.0.0.1:" + std::to_string(port);

    start({"--engine-base-url", base + "/good/"});
    fs::copy_file(engine, store + "/good/" + sha256);
    std::ofstream(store + "/bad/" + sha256, std::ios::binary)
        << std::string(bytes.size(), 'x');  // the right size, other bytes

    // The coordinator names the external base: the file comes from there, without the token.
    Process& first = cluster->start_worker(
        "first", 1, {"--accept-uploaded-engines", "--cache-dir", cluster->dir + "/cache1"});
    EXPECT_EQ(play(), 2u);
    EXPECT_EQ(count_in(first.log_path(),
                       "engine files by URL from " + base + "/good (external: no token sent)"),
              1u);
    EXPECT_EQ(count_in(first.log_path(), "verified and cached"), 1u);
    EXPECT_EQ(count_in(first.log_path(), "instead"), 0u);
    EXPECT_EQ(count_in(store + ".log", "GET /good/" + sha256 + " HTTP/1.1 auth=no 200"), 1u)
        << slurp(store + ".log");
    EXPECT_EQ(count_in(store + ".log", "auth=yes"), 0u);
    EXPECT_EQ(count_in_text(coordinator_log(), "engine_fetch"), 0u);
    first.signal(SIGTERM);
    ASSERT_TRUE(first.wait_exit(30s).has_value());

    // A worker whose own --engine-url holds other bytes: the SHA-256 refuses them, gRPC serves.
    Process& second =
        cluster->start_worker("second", 1,
                              {"--accept-uploaded-engines", "--cache-dir", cluster->dir + "/cache2",
                               "--engine-url", base + "/bad"});
    EXPECT_EQ(play(), 2u);
    const std::string log = slurp(second.log_path());
    EXPECT_EQ(
        count_in_text(log, "refused the download of engine " + sha256.substr(0, 12) + " over HTTP"),
        1u)
        << log;
    EXPECT_EQ(count_in_text(log, "over gRPC instead: HTTP gave other bytes"), 1u) << log;
    EXPECT_EQ(count_in_text(log, "verified and cached"), 1u);
    EXPECT_EQ(count_in_text(coordinator_log(), "transport=grpc sha256=" + sha256 + " offset=0"),
              1u);
    EXPECT_EQ(count_in(store + ".log", "auth=yes"), 0u);
    fs::remove_all(store);
    fs::remove(file_server);
    fs::remove(port_file);
}

}  // namespace
}  // namespace sparring::testing
