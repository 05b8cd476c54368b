// Security of a real coordinator on 127.0.0.1 (issue 16): every gRPC method, listed through
// server reflection, authenticates before it looks at the request and changes nothing for a
// caller without the right token; and what users and workers send is bounded where it enters.
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "cluster.h"
#include "common/printable.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;
using google::protobuf::internal::WireFormatLite;

// Returns the length-delimited fields numbered `number` of an encoded message.
std::vector<std::string> fields(const std::string& bytes, int number) {
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              int(bytes.size()));
    std::vector<std::string> out;
    while (const uint32_t tag = in.ReadTag()) {
        if (WireFormatLite::GetTagFieldNumber(tag) == number &&
            WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
            std::string value;
            uint32_t size = 0;
            if (!in.ReadVarint32(&size) || !in.ReadString(&value, int(size))) break;
            out.push_back(std::move(value));
        } else if (!WireFormatLite::SkipField(&in, tag)) {
            break;
        }
    }
    return out;
}

// Returns a length-delimited field encoded.
std::string field(int number, const std::string& value) {
    std::string out;
    out += char(number << 3 | 2);
    for (size_t size = value.size();; size >>= 7) {
        out += char((size & 0x7f) | (size > 0x7f ? 0x80 : 0));
        if (size <= 0x7f) break;
    }
    return out + value;
}

// Returns the bytes of a byte buffer.
std::string bytes_of(const grpc::ByteBuffer& buffer) {
    std::vector<grpc::Slice> slices;
    std::string out;
    if (!buffer.Dump(&slices).ok()) return out;
    for (const grpc::Slice& slice : slices)
        out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    return out;
}

// A byte buffer holding the bytes.
grpc::ByteBuffer buffer_of(const std::string& bytes) {
    const grpc::Slice slice(bytes);
    return grpc::ByteBuffer(&slice, 1);
}

// Asks the server's reflection service one question per request; returns the answers.
std::vector<std::string> reflect(const std::string& address,
                                 const std::vector<std::string>& requests) {
    grpc::GenericStub stub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    grpc::CompletionQueue queue;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    auto call = stub.PrepareCall(
        &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
    void* tag = nullptr;
    bool ok = false;
    const auto wait = [&] { return queue.Next(&tag, &ok) && ok; };
    call->StartCall(nullptr);
    std::vector<std::string> answers;
    if (!wait()) return answers;
    for (const std::string& request : requests) {
        call->Write(buffer_of(request), nullptr);
        if (!wait()) return answers;
        grpc::ByteBuffer answer;
        call->Read(&answer, nullptr);
        if (!wait()) return answers;
        answers.push_back(bytes_of(answer));
    }
    call->WritesDone(nullptr);
    wait();
    grpc::Status status;
    call->Finish(&status, nullptr);
    wait();
    return answers;
}

struct Method {
    std::string path;  // "/sparring.v1.UserService/AddVersion"
};

// Returns every method of the sparring services the server offers, found by reflection.
std::vector<Method> sparring_methods(const std::string& address) {
    // ServerReflectionRequest.list_services = 7; ListServiceResponse = 6, its services 1.
    const std::vector<std::string> listed = reflect(address, {field(7, "*")});
    std::vector<std::string> services;
    if (listed.size() == 1)
        for (const std::string& list : fields(listed[0], 6))
            for (const std::string& service : fields(list, 1))
                for (const std::string& name : fields(service, 1))
                    if (name.rfind("sparring.", 0) == 0) services.push_back(name);
    std::vector<std::string> questions;
    // file_containing_symbol = 4; FileDescriptorResponse = 4, its files 1.
    for (const std::string& service : services) questions.push_back(field(4, service));
    const std::vector<std::string> answers = reflect(address, questions);
    std::vector<Method> methods;
    for (size_t i = 0; i < answers.size(); ++i)
        for (const std::string& response : fields(answers[i], 4))
            for (const std::string& file_bytes : fields(response, 1)) {
                google::protobuf::FileDescriptorProto file;
                if (!file.ParseFromString(file_bytes)) continue;
                for (const auto& service : file.service()) {
                    if (file.package() + "." + service.name() != services[i]) continue;
                    for (const auto& method : service.method())
                        methods.push_back({"/" + services[i] + "/" + method.name()});
                }
            }
    return methods;
}

// Returns every row of every table of the database file, as text.
std::string dump(const std::string& path) {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return "cannot open " + path;
    }
    std::vector<std::string> tables;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1,
                       &s, nullptr);
    while (sqlite3_step(s) == SQLITE_ROW)
        tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    sqlite3_finalize(s);
    for (const std::string& table : tables) {
        out += "[" + table + "]\n";
        sqlite3_prepare_v2(db, ("SELECT * FROM \"" + table + "\"").c_str(), -1, &s, nullptr);
        while (sqlite3_step(s) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(s); ++c) {
                const auto* text = sqlite3_column_blob(s, c);
                out.append(text ? static_cast<const char*>(text) : "NULL",
                           text ? size_t(sqlite3_column_bytes(s, c)) : 4);
                out += '|';
            }
            out += '\n';
        }
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return out;
}

// Calls a method with raw request bytes and a token (none when empty); returns the status.
grpc::Status call_raw(const std::string& address, const std::string& path,
                      const std::string& request, const std::string& token) {
    grpc::GenericStub stub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    const std::unique_ptr<grpc::ClientContext> context = Cluster::context(token);
    const grpc::ByteBuffer bytes = buffer_of(request);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(context.get(), path, grpc::StubOptions(), &bytes, &response,
                   [&done](grpc::Status status) { done.set_value(status); });
    return done.get_future().get();
}

// Returns the longest line of a file.
size_t longest_line(const std::string& path) {
    std::ifstream in(path);
    size_t longest = 0;
    for (std::string line; std::getline(in, line);) longest = std::max(longest, line.size());
    return longest;
}

class SecurityTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Adds a UCI version over gRPC with options; returns the status.
    grpc::Status add_uci(const std::string& name,
                         const std::map<std::string, std::string>& options) {
        v1::AddVersionRequest request;
        request.mutable_version()->set_name(name);
        request.mutable_version()->mutable_uci()->set_command("/bin/engine");
        request.mutable_version()->mutable_uci()->mutable_options()->insert(options.begin(),
                                                                            options.end());
        v1::Version version;
        return cluster->users()->AddVersion(Cluster::context(cluster->user_token).get(), request,
                                            &version);
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(SecurityTest, EveryMethodAuthenticatesBeforeItLooksAtTheRequest) {
    cluster = std::make_unique<Cluster>();
    const std::vector<Method> methods = sparring_methods(cluster->address);
    ASSERT_GE(methods.size(), 18u) << "reflection listed too few methods";
    const std::string before = dump(cluster->db);
    // An empty request, one of invalid wire bytes, and one that parses but means nothing.
    const std::vector<std::string> bodies = {"", std::string("\xff\xff\xff\x07garbage", 11),
                                             std::string("\x08\x01\x12\x03xyz", 7)};
    for (const Method& method : methods) {
        const bool worker_method = method.path.find("WorkerService") != std::string::npos;
        // A token of the other role: refused for every worker method and every user change.
        const std::string wrong_role = worker_method ? cluster->user_token : cluster->worker_token;
        for (const std::string& body : bodies) {
            for (const std::string& token :
                 {std::string(), std::string("spu_forged_0000"), std::string("spw_forged_0000")}) {
                const grpc::Status status = call_raw(cluster->address, method.path, body, token);
                EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED)
                    << method.path << " with token '" << token << "', body of " << body.size()
                    << " bytes: " << status.error_message();
                EXPECT_EQ(status.error_message().find("malformed"), std::string::npos);
            }
            const grpc::Status status = call_raw(cluster->address, method.path, body, wrong_role);
            const bool query = !worker_method && (method.path.find("/List") != std::string::npos ||
                                                  method.path.find("/Get") != std::string::npos ||
                                                  method.path.find("/Export") != std::string::npos);
            if (!query) {
                EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
                    << method.path << " with a token of the wrong role: " << status.error_message();
            }
        }
    }
    EXPECT_EQ(dump(cluster->db), before);
    // The three calls, by their typed stubs: empty requests without a token.
    v1::Version version;
    EXPECT_EQ(cluster->users()->AddVersion(Cluster::context("").get(), {}, &version).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    v1::RunStatus run;
    EXPECT_EQ(cluster->users()->SubmitRun(Cluster::context("").get(), {}, &run).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    v1::ReleaseLeaseResponse released;
    EXPECT_EQ(
        cluster->workers()->ReleaseLease(Cluster::context("").get(), {}, &released).error_code(),
        grpc::StatusCode::UNAUTHENTICATED);
    // With the right token, a request that is not one is refused as such.
    const grpc::Status garbage = call_raw(cluster->address, "/sparring.v1.UserService/SubmitRun",
                                          bodies[1], cluster->user_token);
    EXPECT_EQ(garbage.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(garbage.error_message().find("malformed request"), std::string::npos);
    EXPECT_EQ(dump(cluster->db), before);
}

// A flood of calls without a valid token is refused on the gRPC threads, before any database
// look-up: it sheds none of a real user's calls, and the log gets at most 20 refusal lines a
// second, each naming how many were left out before it.
TEST_F(SecurityTest, AFloodOfCallsWithoutATokenShedsNoRealCallAndFloodsNoLog) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--max-queued-calls", "2"});
    std::atomic<bool> done = false;
    std::atomic<int> refused = 0;
    std::vector<std::thread> flood;
    const auto started = std::chrono::steady_clock::now();
    for (int t = 0; t < 16; ++t)
        flood.emplace_back([&, t] {
            auto stub = cluster->users();
            const std::string token = t % 2 ? "" : "spu_" + std::string(64, 'z');
            while (!done) {
                v1::ListRunsResponse runs;
                if (stub->ListRuns(Cluster::context(token).get(), {}, &runs).error_code() ==
                    grpc::StatusCode::UNAUTHENTICATED)
                    ++refused;
            }
        });
    int served = 0;
    std::string failures;
    for (int i = 0; i < 200 || refused < 5000; ++i) {
        v1::ListRunsResponse runs;
        const grpc::Status status =
            cluster->users()->ListRuns(Cluster::context(cluster->user_token).get(), {}, &runs);
        if (status.ok())
            ++served;
        else
            failures += status.error_message() + "\n";
    }
    done = true;
    for (std::thread& t : flood) t.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_TRUE(failures.empty()) << served << " served; " << failures;
    EXPECT_GE(refused, 5000);
    // The count of refusals left out goes with the first line of a later second: on a fast
    // machine the flood ends within its first second, so one more refusal comes after it. The
    // wall clock's next second is the fact, and only time brings it.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    v1::ListRunsResponse after;
    EXPECT_EQ(cluster->users()->ListRuns(Cluster::context("").get(), {}, &after).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    std::ifstream log(cluster->dir + "/coordinator-1.log");
    size_t lines = 0;
    bool counted = false;
    for (std::string line; std::getline(log, line);)
        if (line.find("event=rpc_failed") != std::string::npos &&
            line.find("code=UNAUTHENTICATED") != std::string::npos) {
            ++lines;
            counted = counted || line.find("suppressed=") != std::string::npos;
        }
    EXPECT_LE(lines, size_t(20 * (seconds + 2))) << refused << " refusals in " << seconds << " s";
    EXPECT_TRUE(counted) << "no line says how many refusals it left out";
}

TEST_F(SecurityTest, UciOptionsCannotSmuggleCommandsOrWriteFiles) {
    cluster = std::make_unique<Cluster>();
    struct Case {
        std::map<std::string, std::string> options;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{{"Hash", "16\nsetoption name Debug Log File value /tmp/x\nquit"}}, "control character"},
        {{{"Threads\r", "1"}}, "control character"},
        {{{"Hash", std::string("16\0quit", 7)}}, "control character"},
        {{{"Debug Log File", "/tmp/engine.log"}}, "write files"},
        // Engines read whitespace runs as one space and ignore case (issue 32).
        {{{"Debug  Log  File", "/tmp/engine.log"}}, "write files"},
        {{{"debug log file", "/tmp/engine.log"}}, "write files"},
        {{{"hash", "800000"}}, "Hash must be a number of MiB in 0..65536"},
        {{{"HASH", "lots"}}, "Hash must be"},
        {{{"Hash", "16"}, {"hash", "800"}}, "are one option to an engine"},
        {{{"Style value x", "1"}}, "' value '"},
        {{{"Hash", "9223372036854775807"}}, "Hash must be"},
        {{{"Hash", "lots"}}, "Hash must be"},
        {{{"Contempt", std::string(2000, '1')}}, "over 1024 bytes"},
        {{{std::string(100, 'N'), "1"}}, "names must be 1-64 bytes"},
    };
    for (const Case& c : cases) {
        const grpc::Status status = add_uci("uci-bad", c.options);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
            << c.options.begin()->first;
        EXPECT_NE(status.error_message().find(c.message), std::string::npos)
            << status.error_message();
    }
    std::map<std::string, std::string> many;
    for (int i = 0; i < 65; ++i) many["Option" + std::to_string(i)] = "1";
    EXPECT_EQ(add_uci("uci-bad", many).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);
    const grpc::Status threads = add_uci("uci-threads", {{"Hash", "64"}, {"Threads", "64"}});
    EXPECT_EQ(threads.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(threads.error_message().find("may not set them"), std::string::npos);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);
    EXPECT_TRUE(add_uci("uci-good", {{"Hash", "64"}}).ok());
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 1);
}

TEST_F(SecurityTest, OpeningsAreParsedAtSubmission) {
    cluster = std::make_unique<Cluster>();
    for (const char* name : {"a", "b"})
        ASSERT_EQ(cluster->cli({"versions", "add", name, "--bench", "1"}).status, 0);
    struct Case {
        std::string fen;
        std::vector<std::string> moves;
        std::string message;
    };
    const std::string start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const std::vector<Case> cases = {
        {std::string(3'500'000, 'p'), {}, "over the limit of 128"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", {}, "bad FEN"},
        {"8/8/8/8/8/8/8/8 w - - 0 1", {}, "bad FEN"},
        {start, {"e2e5"}, "move 1 'e2e5' is not legal"},
        {start, {"e2e4", "e2e4"}, "move 2 'e2e4' is not legal"},
        {start, std::vector<std::string>(300, "e2e4"), "moves, over 256"},
    };
    for (const Case& c : cases) {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(4);
        v1::Opening* opening = request.mutable_spec()->mutable_book()->add_openings();
        opening->set_fen(c.fen);
        for (const std::string& move : c.moves) opening->add_moves(move);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message;
        EXPECT_NE(status.error_message().find("opening 3 of the book"), std::string::npos)
            << status.error_message();
        EXPECT_NE(status.error_message().find(c.message), std::string::npos)
            << status.error_message();
        EXPECT_LT(status.error_message().size(), 400u);
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
}

TEST_F(SecurityTest, EchoedStringsAreShortInErrorsAndLogs) {
    cluster = std::make_unique<Cluster>();
    v1::GetVersionRequest request;
    request.set_name(std::string(3'900'000, 'v'));
    v1::Version version;
    const grpc::Status status = cluster->users()->GetVersion(
        Cluster::context(cluster->user_token).get(), request, &version);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_LT(status.error_message().size(), 200u);
    request.set_name("no-such\x1b[31m-version");
    const grpc::Status missing = cluster->users()->GetVersion(
        Cluster::context(cluster->user_token).get(), request, &version);
    EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(missing.error_message().find('\x1b'), std::string::npos);

    // A worker name with a terminal escape and a line break is refused.
    v1::RegisterRequest worker;
    worker.set_name("evil\x1b]0;owned\x07\nname");
    worker.set_cores(1);
    worker.set_concurrency(1);
    v1::RegisterResponse registered;
    const grpc::Status refused = cluster->workers()->Register(
        Cluster::context(cluster->worker_token).get(), worker, &registered);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers"), 0);

    cluster->stop_coordinator(SIGTERM);
    size_t longest = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cluster->dir))
        if (entry.path().extension() == ".log")
            longest = std::max(longest, longest_line(entry.path().string()));
    EXPECT_LT(longest, 2000u);
}

// Issue 49: ModifyRun checks a description with SubmitRun's validator: terminal escapes, NUL,
// C1 controls, bidirectional overrides and line separators are refused and nothing changes;
// line breaks, tabs and any script are kept. `show` of the run stopped after says "stopped"
// once.
TEST_F(SecurityTest, AModifiedDescriptionIsCheckedAsASubmittedOne) {
    cluster = std::make_unique<Cluster>();
    for (const char* name : {"a", "b"})
        ASSERT_EQ(cluster->cli({"versions", "add", name, "--bench", "1"}).status, 0);
    auto users = cluster->users();
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(10);
    v1::RunStatus run;
    ASSERT_TRUE(users->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run).ok());
    for (const std::string& bad :
         {std::string("esc\x1b[2Jcleared"), std::string("nul\0byte", 8),
          std::string("c1\xc2\x85line"), std::string("admin\xe2\x80\xaenimda"),
          std::string("line\xe2\x80\xa8separator")}) {
        v1::ModifyRunRequest modify;
        modify.set_run_id(run.id());
        modify.set_description(bad);
        v1::RunStatus modified;
        const grpc::Status refused =
            users->ModifyRun(Cluster::context(cluster->user_token).get(), modify, &modified);
        EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << printable(bad);
        EXPECT_NE(refused.error_message().find("run description holds a control character"),
                  std::string::npos)
            << refused.error_message();
        // The same text is refused at submission with the same message.
        v1::SubmitRunRequest again = submit;
        again.mutable_spec()->set_description(bad);
        v1::RunStatus submitted;
        const grpc::Status at_submit =
            users->SubmitRun(Cluster::context(cluster->user_token).get(), again, &submitted);
        EXPECT_EQ(at_submit.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_EQ(at_submit.error_message(), refused.error_message());
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM run_changes"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 1);

    v1::ModifyRunRequest good;
    good.set_run_id(run.id());
    good.set_description("line one\n\tGr\xc3\xbcnfeld \xe2\x80\x94 \xe7\x8e\x8b");
    v1::RunStatus modified;
    const grpc::Status taken =
        users->ModifyRun(Cluster::context(cluster->user_token).get(), good, &modified);
    ASSERT_TRUE(taken.ok()) << taken.error_message();
    EXPECT_EQ(modified.spec().description(), good.description());

    ASSERT_EQ(cluster->cli({"stop", std::to_string(run.id())}).status, 0);
    const CommandResult show = cluster->cli({"show", std::to_string(run.id())});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("stopped by user"), std::string::npos) << show.out;
    EXPECT_EQ(show.out.find("stopped: stopped"), std::string::npos) << show.out;
}

// Issue 49: names users and workers are known by may not hold invisible characters, so that
// "alice" and "ali<ZERO WIDTH SPACE>ce" cannot be two owners that look the same: token names,
// worker names and version names alike. A token made without --name says whose it is.
TEST_F(SecurityTest, NamesWithInvisibleCharactersAreRefusedAndAnUnnamedTokenWarns) {
    cluster = std::make_unique<Cluster>();
    const std::string tool = binary("coordinator/sparring-coordinator");
    const std::vector<std::string> invisible = {
        "\xe2\x80\x8b",  // U+200B ZERO WIDTH SPACE
        "\xc2\xad",      // U+00AD SOFT HYPHEN
        "\xef\xbb\xbf",  // U+FEFF BYTE ORDER MARK
        "\xc2\xa0",      // U+00A0 NO-BREAK SPACE
        "\xe2\x81\xa0",  // U+2060 WORD JOINER
    };
    const int64_t tokens = cluster->query("SELECT count(*) FROM tokens");
    auto workers = cluster->workers();
    for (const std::string& c : invisible) {
        const std::string name = "ali" + c + "ce";
        const CommandResult token = cluster->run(
            {tool, "token", "create", "--db", cluster->db, "--role", "user", "--name", name});
        EXPECT_NE(token.status, 0) << printable(name);
        EXPECT_NE(token.err.find("invisible character"), std::string::npos) << token.err;

        v1::RegisterRequest worker;
        worker.set_name(name);
        worker.set_cores(1);
        worker.set_concurrency(1);
        v1::RegisterResponse registered;
        const grpc::Status refused =
            workers->Register(Cluster::context(cluster->worker_token).get(), worker, &registered);
        EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << printable(name);
        EXPECT_NE(refused.error_message().find("invisible character"), std::string::npos)
            << refused.error_message();

        EXPECT_NE(cluster->cli({"versions", "add", name, "--bench", "1"}).status, 0);
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM tokens"), tokens);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 0);

    // Names of any script are taken, as before.
    const CommandResult named = cluster->run({tool, "token", "create", "--db", cluster->db,
                                              "--role", "user", "--name", "J\xc3\xbcrgen"});
    EXPECT_EQ(named.status, 0) << named.err;
    EXPECT_EQ(named.err.find("warning"), std::string::npos) << named.err;
    // Without --name the token's user is the role's name, shared, and the tool says so.
    const CommandResult unnamed =
        cluster->run({tool, "token", "create", "--db", cluster->db, "--role", "user"});
    EXPECT_EQ(unnamed.status, 0) << unnamed.err;
    EXPECT_NE(unnamed.err.find("warning: no --name, so this token's user is 'user', as is every "
                               "user token made without --name"),
              std::string::npos)
        << unnamed.err;
    const CommandResult worker_token =
        cluster->run({tool, "token", "create", "--db", cluster->db, "--role", "worker"});
    EXPECT_EQ(worker_token.status, 0) << worker_token.err;
    EXPECT_EQ(worker_token.err.find("warning"), std::string::npos) << worker_token.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM tokens"), tokens + 3);
}

// Issue 49: a worker's TOO_SLOW release names the speed it measured; one past any engine's
// (2^64-1) is refused and stored nowhere, where a plausible one is kept.
TEST_F(SecurityTest, AnImpossibleMeasuredSpeedIsRefused) {
    cluster = std::make_unique<Cluster>();
    for (const char* name : {"a", "b"})
        ASSERT_EQ(cluster->cli({"versions", "add", name, "--bench", "1"}).status, 0);
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(10);
    submit.mutable_spec()->mutable_time_control()->mutable_clock()->set_base_ms(10000);
    submit.mutable_spec()->mutable_time_control()->mutable_clock()->set_increment_ms(100);
    submit.mutable_spec()->set_reference_nps(1'000'000'000'000);
    v1::RunStatus run;
    const grpc::Status submitted =
        cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
    ASSERT_TRUE(submitted.ok()) << submitted.error_message();
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    v1::ReleaseLeaseRequest release;
    release.set_worker_id(worker);
    release.set_lease_id(work.lease().lease_id());
    release.set_reason(v1::RELEASE_REASON_TOO_SLOW);
    release.set_measured_nps(std::numeric_limits<uint64_t>::max());
    v1::ReleaseLeaseResponse released;
    const grpc::Status refused =
        workers->ReleaseLease(Cluster::context(cluster->worker_token).get(), release, &released);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(refused.error_message().find("18446744073709551615 nodes per second is past"),
              std::string::npos)
        << refused.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM worker_speeds"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'leased'"), 1);

    release.set_measured_nps(500'000);
    const grpc::Status taken =
        workers->ReleaseLease(Cluster::context(cluster->worker_token).get(), release, &released);
    EXPECT_TRUE(taken.ok()) << taken.error_message();
    EXPECT_EQ(cluster->query("SELECT max(nps) FROM worker_speeds"), 500'000);
}

TEST_F(SecurityTest, AReportsPgnHoldsOneGameWhoseResultMatchesItsOutcome) {
    cluster = std::make_unique<Cluster>();
    for (const char* name : {"a", "b"})
        ASSERT_EQ(cluster->cli({"versions", "add", name, "--bench", "1"}).status, 0);
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(10);
    v1::RunStatus run;
    ASSERT_TRUE(cluster->users()
                    ->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run)
                    .ok());
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const int64_t lease = work.lease().lease_id();
    const std::string game = "[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
    struct Case {
        std::string pgn;  // of the first game: a win for the test version as white
        std::string message;
    };
    const std::vector<Case> cases = {
        {game + game, "more than one game"},
        {"[Result \"0-1\"]\n\n1. e4 e5 0-1\n", "PGN says 0-1"},
        {"[Result \"*\"]\n\n1. e4 *\n", "no definite Result"},
        {"[Result \"1-0\"]\n\n1. e5 1-0\n", "holds no game"},
        {"", "has no PGN"},
    };
    for (const Case& c : cases) {
        v1::ReportResultsRequest request = report(worker, lease, 1, {0});
        request.mutable_pairs(0)->mutable_first()->set_pgn(c.pgn);
        v1::ReportResultsResponse response;
        const grpc::Status status = workers->ReportResults(
            Cluster::context(cluster->worker_token).get(), request, &response);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message;
        EXPECT_NE(status.error_message().find(c.message), std::string::npos)
            << status.error_message();
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM results"), 0);
    v1::ReportResultsRequest good = report(worker, lease, 1, {0});
    good.mutable_pairs(0)->mutable_first()->set_pgn(game);
    v1::ReportResultsResponse response;
    const grpc::Status accepted =
        workers->ReportResults(Cluster::context(cluster->worker_token).get(), good, &response);
    EXPECT_TRUE(accepted.ok()) << accepted.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 2);
}

TEST_F(SecurityTest, DatabaseAndBackupsArePrivateAndLinksAreNotFollowed) {
    cluster = std::make_unique<Cluster>();
    namespace fs = std::filesystem;
    const auto mode = [](const std::string& path) {
        return fs::status(path).permissions() & fs::perms::all;
    };
    EXPECT_EQ(mode(cluster->db), fs::perms::owner_read | fs::perms::owner_write);
    const std::string tool = binary("coordinator/sparring-coordinator");

    // A link planted as the partial file is replaced, never written through.
    const std::string victim = cluster->dir + "/victim";
    std::ofstream(victim) << "precious\n";
    const std::string backup = cluster->dir + "/backup.db";
    fs::create_symlink(victim, backup + ".partial");
    const CommandResult copied =
        cluster->run({tool, "backup", "--db", cluster->db, "--to", backup});
    ASSERT_EQ(copied.status, 0) << copied.err;
    EXPECT_EQ(mode(backup), fs::perms::owner_read | fs::perms::owner_write);
    std::ifstream in(victim);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "precious");
    EXPECT_FALSE(fs::exists(fs::symlink_status(backup + ".partial")));

    // A database path that is a link is refused.
    const std::string link = cluster->dir + "/link.db";
    fs::create_symlink(cluster->db, link);
    const CommandResult listed = cluster->run({tool, "token", "list", "--db", link});
    EXPECT_NE(listed.status, 0);
    EXPECT_NE(listed.err.find("symbolic link"), std::string::npos) << listed.err;
}

}  // namespace
}  // namespace sparring::testing
