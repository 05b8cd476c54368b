// Engines fetched by URL, the parts without processes: where a worker fetches (the base the
// coordinator names, its own port at the host the worker dials, the worker's override, and to
// whom the token goes), the Range header the coordinator reads, and the engine cache's
// fallback from one source to the next (failure, wrong bytes, a resumed break).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/sha256.h"
#include "coordinator/engine_files.h"
#include "coordinator/http/http_server.h"
#include "worker/engine_cache.h"
#include "worker/engine_url.h"

namespace sparring {
namespace {

namespace fs = std::filesystem;
using coordinator::ByteRange;
using coordinator::parse_byte_range;
using worker::engine_base;
using worker::EngineBase;
using worker::EngineCache;

TEST(ByteRanges, TheFormsOfOneRangeAreRead) {
    EXPECT_EQ(parse_byte_range("", 100).kind, ByteRange::Kind::Whole);
    const ByteRange closed = parse_byte_range("bytes=10-19", 100);
    EXPECT_EQ(closed.kind, ByteRange::Kind::Part);
    EXPECT_EQ(closed.first, 10u);
    EXPECT_EQ(closed.last, 19u);
    const ByteRange open = parse_byte_range("bytes=40-", 100);
    EXPECT_EQ(open.kind, ByteRange::Kind::Part);
    EXPECT_EQ(open.first, 40u);
    EXPECT_EQ(open.last, 99u);
    const ByteRange past = parse_byte_range("bytes=90-500", 100);  // the end is the end
    EXPECT_EQ(past.last, 99u);
    const ByteRange suffix = parse_byte_range("bytes=-30", 100);
    EXPECT_EQ(suffix.first, 70u);
    EXPECT_EQ(suffix.last, 99u);
    EXPECT_EQ(parse_byte_range("bytes=-300", 100).first, 0u);
}

TEST(ByteRanges, UnsatisfiableAndMalformedRangesAreTold) {
    EXPECT_EQ(parse_byte_range("bytes=100-", 100).kind, ByteRange::Kind::Unsatisfiable);
    EXPECT_EQ(parse_byte_range("bytes=0-", 0).kind, ByteRange::Kind::Unsatisfiable);
    EXPECT_EQ(parse_byte_range("bytes=-0", 100).kind, ByteRange::Kind::Unsatisfiable);
    for (const char* bad : {"bytes=abc", "items=0-1", "bytes=1-2,5-6", "bytes=5-1", "bytes=-",
                            "bytes=1", "bytes= 1-2", "bytes=99999999999999999999-", "bytes=1-2x"}) {
        const ByteRange range = parse_byte_range(bad, 100);
        EXPECT_EQ(range.kind, ByteRange::Kind::Malformed) << bad;
        EXPECT_FALSE(range.error.empty()) << bad;
    }
}

// A body of known length is sent with its Content-Length, whether pulled (HTTPS's way) or
// sent from its file with sendfile(2) (plaintext's), from an offset, and HEAD gets the length.
TEST(SizedBodies, PulledOrSentFromTheFileTheyAreTheSameBytes) {
    const std::string path = ::testing::TempDir() + "sized-body-" + std::to_string(::getpid());
    std::string bytes;
    for (int i = 0; i < 300'000; ++i) bytes += char('a' + i % 26);
    std::ofstream(path, std::ios::binary) << bytes;
    auto fd = std::shared_ptr<int>(new int(open(path.c_str(), O_RDONLY | O_CLOEXEC)), [](int* f) {
        close(*f);
        delete f;
    });
    ASSERT_GE(*fd, 0);
    coordinator::HttpServer::Options options;
    options.listen = "127.0.0.1:0";
    coordinator::HttpServer server(options);
    for (const bool from_file : {false, true})
        server.get(from_file ? "/file" : "/pull",
                   [&bytes, fd, from_file](const coordinator::HttpRequest&,
                                           coordinator::HttpResponse& response) {
                       response.pull_length = bytes.size() - 1000;
                       if (from_file) {
                           response.file_fd = *fd;
                           response.file_offset = 1000;
                           response.file_owner = fd;
                       }
                       response.set_pull("application/octet-stream",
                                         [&bytes, at = size_t(1000)](std::string* chunk) mutable {
                                             *chunk = bytes.substr(at, 70'000);
                                             at += chunk->size();
                                             return true;
                                         });
                   });
    const int port = server.start();
    httplib::Client client("127.0.0.1", port);
    for (const char* route : {"/pull", "/file"}) {
        const auto answer = client.Get(route);
        ASSERT_TRUE(answer) << route;
        EXPECT_EQ(answer->get_header_value("Content-Length"), std::to_string(bytes.size() - 1000));
        EXPECT_FALSE(answer->has_header("Transfer-Encoding"));
        EXPECT_TRUE(answer->body == bytes.substr(1000)) << route;
        const auto head = client.Head(route);
        ASSERT_TRUE(head);
        EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(bytes.size() - 1000));
        EXPECT_TRUE(head->body.empty());
    }
    server.stop();
    std::filesystem::remove(path);
}

TEST(EngineBase, TheCoordinatorsOwnPortIsReachedByTheHostTheWorkerDials) {
    v1::RegisterResponse registered;
    EXPECT_FALSE(engine_base(registered, "coord.example:50051", ""));
    registered.set_engine_http_port(8080);
    const auto own = engine_base(registered, "coord.example:50051", "");
    ASSERT_TRUE(own);
    EXPECT_EQ(own->url, "http://coord.example:8080/engines");
    EXPECT_TRUE(own->send_token);
    registered.set_engine_http_tls(true);
    EXPECT_EQ(engine_base(registered, "[::1]:50051", "")->url, "https://[::1]:8080/engines");
    EXPECT_FALSE(engine_base(registered, "coord.example:50051", "grpc"));
}

TEST(EngineBase, AnExternalBaseNeverGetsTheToken) {
    v1::RegisterResponse registered;
    registered.set_engine_http_port(8080);
    registered.set_engine_base_url("https://cdn.example/engines");
    auto base = engine_base(registered, "coord.example:50051", "");
    EXPECT_EQ(base->url, "https://cdn.example/engines");
    EXPECT_FALSE(base->send_token);
    // The coordinator's public URL is itself: the token goes.
    registered.set_engine_base_url("https://sparring.example/engines");
    registered.set_engine_base_is_coordinator(true);
    base = engine_base(registered, "coord.example:50051", "");
    EXPECT_TRUE(base->send_token);
    // A worker's own base gets it only when it is the coordinator's origin.
    base = engine_base(registered, "coord.example:50051", "https://sparring.example/engines/");
    EXPECT_EQ(base->url, "https://sparring.example/engines");
    EXPECT_TRUE(base->send_token);
    base = engine_base(registered, "coord.example:50051", "https://sparring.example.evil/x");
    EXPECT_FALSE(base->send_token);
    base = engine_base(registered, "coord.example:50051", "http://sparring.example/engines");
    EXPECT_FALSE(base->send_token);  // another scheme is another origin
}

TEST(EngineBase, UrlsAreSplitIntoOriginAndPath) {
    std::string origin, path;
    ASSERT_TRUE(worker::split_url("http://127.0.0.1:9000/a/b/", &origin, &path));
    EXPECT_EQ(origin, "http://127.0.0.1:9000");
    EXPECT_EQ(path, "/a/b");
    ASSERT_TRUE(worker::split_url("https://cdn.example", &origin, &path));
    EXPECT_EQ(path, "");
    for (const char* bad : {"ftp://x/y", "cdn.example/x", "http:///x", "http://user@host/x"})
        EXPECT_FALSE(worker::split_url(bad, &origin, &path)) << bad;
}

// An engine cache in a temporary directory with two sources whose answers a test sets.
class CacheSources : public ::testing::Test {
  protected:
    void SetUp() override {
        dir = (fs::temp_directory_path() /
               ("engine-url-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                  .string();
        fs::remove_all(dir);
        bytes = std::string(5000, 'x') + "end";
        engine.set_sha256(sha256_hex(bytes));
        engine.set_size(bytes.size());
    }
    void TearDown() override { fs::remove_all(dir); }

    EngineCache cache(EngineCache::Fetch http, EngineCache::Fetch grpc) {
        return EngineCache({.dir = dir, .attempts = 2},
                           {{"HTTP", std::move(http)}, {"gRPC", std::move(grpc)}},
                           [this](const std::string& line) { log.push_back(line); });
    }
    // A source that sends `content` from the offset, counting its calls and offsets.
    EngineCache::Fetch serving(std::string content, std::vector<uint64_t>* offsets) {
        return [content, offsets](const std::string&, uint64_t offset,
                                  const std::function<bool(std::string_view)>& write) {
            offsets->push_back(offset);
            if (offset < content.size()) write(std::string_view(content).substr(offset));
            return EngineCache::FetchResult{true, false, "", false};
        };
    }
    size_t logged(const std::string& text) const {
        size_t n = 0;
        for (const std::string& line : log) n += line.find(text) != std::string::npos;
        return n;
    }

    std::string dir;
    std::string bytes;
    v1::UploadedEngine engine;
    std::vector<std::string> log;
};

TEST_F(CacheSources, TheFirstSourceServesWhenItCan) {
    std::vector<uint64_t> http, grpc;
    EngineCache c = cache(serving(bytes, &http), serving(bytes, &grpc));
    std::string error;
    ASSERT_TRUE(c.executable(engine, &error)) << error;
    EXPECT_EQ(http.size(), 1u);
    EXPECT_TRUE(grpc.empty());
    EXPECT_EQ(logged("over HTTP"), 1u);
}

TEST_F(CacheSources, WrongBytesHandOverToTheNextSourceFromTheStart) {
    std::vector<uint64_t> http, grpc;
    std::string wrong = bytes;
    wrong[10] = 'y';
    EngineCache c = cache(serving(wrong, &http), serving(bytes, &grpc));
    std::string error;
    ASSERT_TRUE(c.executable(engine, &error)) << error;
    EXPECT_EQ(http, std::vector<uint64_t>{0});
    EXPECT_EQ(grpc, std::vector<uint64_t>{0});
    EXPECT_EQ(logged("refused the download"), 1u);
    EXPECT_EQ(logged("over gRPC instead: HTTP gave other bytes"), 1u);
    EXPECT_EQ(*sha256_of_file(c.files_of(engine.sha256()) + "/engine"), engine.sha256());
}

TEST_F(CacheSources, AFailureHandsOverAndABreakResumesFromTheSameSource) {
    std::vector<uint64_t> grpc;
    int calls = 0;
    // HTTP: the first half then a break (resumed over HTTP), then a 404 (handed over).
    EngineCache c = cache(
        [&](const std::string&, uint64_t offset,
            const std::function<bool(std::string_view)>& write) {
            if (++calls == 1) {
                write(std::string_view(bytes).substr(0, 2000));
                return EngineCache::FetchResult{false, true, "broke", false};
            }
            EXPECT_EQ(offset, 2000u);
            return EngineCache::FetchResult{false, false, "HTTP 404", false};
        },
        serving(bytes, &grpc));
    std::string error;
    ASSERT_TRUE(c.executable(engine, &error)) << error;
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(grpc, std::vector<uint64_t>{2000});  // gRPC goes on from the bytes there
    EXPECT_EQ(logged("over gRPC instead: HTTP failed (HTTP 404)"), 1u);
}

TEST_F(CacheSources, AnUnavailableSourceIsSkippedSilently) {
    std::vector<uint64_t> grpc;
    EngineCache c = cache(
        [](const std::string&, uint64_t, const std::function<bool(std::string_view)>&) {
            return EngineCache::FetchResult{false, false, "no engine URL", true};
        },
        serving(bytes, &grpc));
    std::string error;
    ASSERT_TRUE(c.executable(engine, &error)) << error;
    EXPECT_EQ(grpc.size(), 1u);
    EXPECT_EQ(logged("HTTP"), 0u);
}

}  // namespace
}  // namespace sparring
