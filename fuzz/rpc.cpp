// Every coordinator RPC, called with a request decoded from the input: the first byte picks
// the method (WorkerService's, then UserService's, in the order the .proto declares them),
// the second the credential, the rest is the serialized request. The call goes to a real
// coordinator (gRPC on 127.0.0.1, the real services, core and SQLite) started once on a
// temporary database that holds a user and a worker token, two versions, a run and a lease,
// so inputs reach past authentication into validation, the core and report decoding.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <sanitizer/lsan_interface.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/core.h"
#include "coordinator/kinds/registry.h"
#include "coordinator/server.h"
#include "coordinator/storage/sqlite_storage.h"
#include "fuzz/check.h"
#include "sparring/v1/user.grpc.pb.h"
#include "sparring/v1/worker.grpc.pb.h"

using namespace sparring;
using namespace sparring::coordinator;

namespace {

struct Method {
    std::string path;  // "/sparring.v1.UserService/AddVersion"
    const google::protobuf::Message* request;
    bool worker;  // needs a worker token
};

// The coordinator under test, its tokens and a client channel to it.
struct Target {
    std::filesystem::path directory;
    std::unique_ptr<Server> server;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::string user_token;
    std::string worker_token;
    std::vector<Method> methods;
};

// Returns every method of the two services, from their descriptors.
std::vector<Method> list_methods() {
    std::vector<Method> methods;
    for (const auto* service :
         {v1::WorkerService::service_full_name(), v1::UserService::service_full_name()}) {
        const auto* descriptor =
            google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
        FUZZ_CHECK(descriptor);
        for (int i = 0; i < descriptor->method_count(); ++i) {
            const auto* method = descriptor->method(i);
            methods.push_back({"/" + std::string(service) + "/" + method->name(),
                               google::protobuf::MessageFactory::generated_factory()->GetPrototype(
                                   method->input_type()),
                               descriptor->name() == "WorkerService"});
        }
    }
    return methods;
}

// Fails the fuzzer with a setup call's status unless it is OK.
void check_setup(const grpc::Status& status, const char* what) {
    if (status.ok()) return;
    std::fprintf(stderr, "fuzz_rpc: setup %s failed: %s\n", what, status.error_message().c_str());
    std::abort();
}

// Adds two built-in versions, submits a regression run between them, registers a worker and
// takes a lease: the state the corpus's worker calls (worker 1, lease 1, run 1) refer to.
void set_up_state(Target& target) {
    auto user = v1::UserService::NewStub(target.channel);
    auto worker = v1::WorkerService::NewStub(target.channel);
    for (const char* name : {"base", "test"}) {
        grpc::ClientContext context;
        context.AddMetadata("authorization", "Bearer " + target.user_token);
        v1::AddVersionRequest request;
        request.mutable_version()->set_name(name);
        request.mutable_version()->mutable_builtin()->set_preset("default");
        // The signature `sparring-engine bench` prints for the default preset (BENCHMARKS.md);
        // nothing here plays, so it is only checked for presence.
        request.mutable_version()->set_bench(4'344'230);
        v1::Version response;
        check_setup(user->AddVersion(&context, request, &response), "AddVersion");
    }
    {
        grpc::ClientContext context;
        context.AddMetadata("authorization", "Bearer " + target.user_token);
        v1::SubmitRunRequest request;
        v1::RunSpec& spec = *request.mutable_spec();
        spec.set_kind(v1::RUN_KIND_FIXED_GAMES);
        spec.set_test_version("test");
        spec.set_base_version("base");
        spec.mutable_time_control()->set_depth(1);
        spec.set_games(1'000'000);
        spec.mutable_book()->add_openings()->set_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        v1::RunStatus response;
        check_setup(user->SubmitRun(&context, request, &response), "SubmitRun");
    }
    v1::RegisterResponse registered;
    {
        grpc::ClientContext context;
        context.AddMetadata("authorization", "Bearer " + target.worker_token);
        v1::RegisterRequest request;
        request.set_name("fuzz-worker");
        request.set_cores(2);
        request.set_memory_mb(4096);
        request.set_concurrency(1);
        check_setup(worker->Register(&context, request, &registered), "Register");
    }
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + target.worker_token);
    v1::RequestWorkRequest request;
    request.set_worker_id(registered.worker_id());
    v1::RequestWorkResponse response;
    check_setup(worker->RequestWork(&context, request, &response), "RequestWork");
}

Target* target_instance = nullptr;

// Stops the coordinator, removes its database, and checks the whole run for leaks (when
// ASAN_OPTIONS has detect_leaks=1): libFuzzer's check after each input is off (below).
void stop_target() {
    target_instance->server->shutdown();
    target_instance->server->wait();
    target_instance->server.reset();
    std::filesystem::remove_all(target_instance->directory);
    __lsan_do_leak_check();
}

// Starts the coordinator on a fresh database in a temporary directory.
Target* start_target() {
    auto* target = new Target;
    // In memory where the machine offers it: every write call commits with a full fsync,
    // and on a disk shared with busy builds those waits, not the coordinator, set the pace.
    std::string pattern = std::filesystem::is_directory("/dev/shm")
                              ? "/dev/shm/"
                              : std::filesystem::temp_directory_path().string() + "/";
    pattern += "sparring-fuzz-rpc-XXXXXX";
    FUZZ_CHECK(mkdtemp(pattern.data()));
    target->directory = pattern;
    const std::string db = (target->directory / "coordinator.db").string();
    {
        SqliteStorage storage(db);
        Core::Options options;
        options.kinds = all_run_kinds();
        const Core core(options, [] { return int64_t(0); });
        storage.begin(true);
        target->user_token = core.create_token(storage, Role::User, "fuzz-user");
        target->worker_token = core.create_token(storage, Role::Worker, "fuzz-worker");
        storage.commit();
    }
    Server::Options options;
    options.db_path = db;
    options.listen = "127.0.0.1:0";
    options.gather = std::chrono::microseconds(0);
    options.read_threads = 1;
    target->server = std::make_unique<Server>(options);
    const int port = target->server->start();
    target->channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                          grpc::InsecureChannelCredentials());
    target->stub = std::make_unique<grpc::GenericStub>(target->channel);
    target->methods = list_methods();
    set_up_state(*target);
    target_instance = target;
    std::atexit(stop_target);
    return target;
}

// The token a call presents.
enum class Presented { Right, OtherRole, None, Unknown };

// Maps the input's second byte to the token presented; most inputs carry the right one.
Presented presented_by(std::uint8_t byte) {
    switch (byte % 8) {
        case 5:
            return Presented::OtherRole;
        case 6:
            return Presented::None;
        case 7:
            return Presented::Unknown;
        default:
            return Presented::Right;
    }
}

}  // namespace

// Turns libFuzzer's leak check after each input off unless the command line sets
// -detect_leaks: the coordinator keeps state from one input to the next, so what one input
// allocates a later one frees, and that check (a scan of the whole heap after every input
// whose allocations do not balance) took five sixths of the target's time. stop_target checks
// the run once instead, after the coordinator has stopped.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    for (int i = 1; i < *argc; ++i)
        if (std::string_view((*argv)[i]).starts_with("-detect_leaks=")) return 0;
    static std::vector<char*> arguments(*argv, *argv + *argc);
    static char flag[] = "-detect_leaks=0";
    arguments.push_back(flag);
    arguments.push_back(nullptr);
    *argv = arguments.data();
    *argc += 1;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static Target* target = start_target();
    if (size < 2) return -1;
    const Method& method = target->methods[data[0] % target->methods.size()];
    const Presented caller = presented_by(data[1]);
    const auto* body = data + 2;
    const std::size_t body_size = size - 2;
    // Bytes that are no request of this method fail in the gRPC layer before any of our code.
    std::unique_ptr<google::protobuf::Message> request(method.request->New());
    if (!request->ParseFromArray(body, int(body_size))) return -1;

    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const std::string& right = method.worker ? target->worker_token : target->user_token;
    const std::string& other = method.worker ? target->user_token : target->worker_token;
    if (caller == Presented::Right) context.AddMetadata("authorization", "Bearer " + right);
    if (caller == Presented::OtherRole) context.AddMetadata("authorization", "Bearer " + other);
    if (caller == Presented::Unknown)
        context.AddMetadata("authorization", "Bearer spu_" + std::string(64, '0'));
    const grpc::Slice slice(body, body_size);
    const grpc::ByteBuffer payload(&slice, 1);
    grpc::ByteBuffer reply;
    std::promise<grpc::Status> done;
    target->stub->UnaryCall(&context, method.path, grpc::StubOptions(), &payload, &reply,
                            [&done](grpc::Status status) { done.set_value(std::move(status)); });
    const grpc::Status status = done.get_future().get();

    const grpc::StatusCode code = status.error_code();
    if (code == grpc::StatusCode::UNKNOWN || code == grpc::StatusCode::INTERNAL ||
        code == grpc::StatusCode::DEADLINE_EXCEEDED || code == grpc::StatusCode::UNAVAILABLE ||
        code == grpc::StatusCode::DATA_LOSS) {
        std::fprintf(stderr, "fuzz_rpc: %s answered %d: %s\n", method.path.c_str(), int(code),
                     status.error_message().c_str());
        std::abort();
    }
    // A caller without a valid token, or a user calling the workers' service, gets nothing.
    if (caller == Presented::None || caller == Presented::Unknown ||
        (caller == Presented::OtherRole && method.worker))
        FUZZ_CHECK(!status.ok());
    return 0;
}
