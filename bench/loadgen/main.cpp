// sparring-loadgen: simulates many workers against a real coordinator, measures result
// reports per second, their latency and the share of calls shed, and checks the database
// against what was sent and acknowledged.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "bench/loadgen/simulation.h"
#include "client/connection.h"
#include "common/flags.h"
#include "coordinator/storage/sqlite.h"
#include "sparring/v1/user.grpc.pb.h"

namespace {

using sparring::UsageError;
namespace v1 = sparring::v1;

// The load generator's flags.
struct Flags {
    std::string coordinator, user_token, worker_token, db;
    std::vector<CLI::Option*> required;  // in the order they are checked
    int64_t workers = 0, pairs = 0, warmup = 0, duration = 0, channels = 0, threads = 0;
    double rate = 0;

    // Declares the flags on app.
    explicit Flags(CLI::App& app);
};

Flags::Flags(CLI::App& app) {
    using sparring::add_flag;
    CLI::Option* coordinator_option = add_flag(app, "coordinator", coordinator, "HOST:PORT",
                                               "the coordinator to load (plaintext)");
    CLI::Option* user_token_option = add_flag(app, "user-token", user_token, "TOKEN",
                                              "user token: creates the versions and the run");
    CLI::Option* worker_token_option = add_flag(app, "worker-token", worker_token, "TOKEN",
                                                "worker token of the simulated workers");
    CLI::Option* db_option = add_flag(app, "db", db, "FILE",
                                      "the coordinator's database, to check that nothing was lost");
    required = {coordinator_option, worker_token_option, user_token_option, db_option};
    add_flag(app, "workers", workers, "N", "simulated workers", "1000", 1, 1'000'000);
    add_flag(app, "rate", rate, "R", "target result reports per second", "2000");
    add_flag(app, "pairs", pairs, "N", "game pairs per lease and report", "1", 1, 256);
    add_flag(app, "warmup", warmup, "S", "seconds of registration and ramp-up, not measured", "10",
             1, 3600);
    add_flag(app, "duration", duration, "S", "seconds measured", "30", 1, 86400);
    add_flag(app, "channels", channels, "N", "client connections", "16", 1, 1024);
    add_flag(app, "threads", threads, "N", "client threads scheduling the workers", "2", 1, 64);
}

// Calls a UserService method with a token and a deadline; throws on failure.
template <typename Request, typename Response>
void call(v1::UserService::Stub& stub,
          grpc::Status (v1::UserService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                        Response*),
          const std::string& token, const Request& request, Response* response) {
    grpc::ClientContext context;
    sparring::rpc::prepare(context, token, std::chrono::seconds(30));
    const grpc::Status status = (stub.*method)(&context, request, response);
    if (!status.ok()) throw std::runtime_error(sparring::rpc::describe(status));
}

// Creates two versions and a fixed-games run large enough to last; returns the run id.
int64_t create_run(v1::UserService::Stub& stub, const std::string& token, int pairs) {
    const std::string suffix = std::to_string(std::chrono::system_clock::now().time_since_epoch() /
                                              std::chrono::milliseconds(1));
    for (const char* side : {"a", "b"}) {
        v1::AddVersionRequest request;
        request.mutable_version()->set_name(std::string("loadgen-") + side + "-" + suffix);
        request.mutable_version()->mutable_builtin()->set_preset("default");
        request.mutable_version()->set_bench(1);
        v1::Version added;
        call(stub, &v1::UserService::Stub::AddVersion, token, request, &added);
    }
    v1::SubmitRunRequest request;
    v1::RunSpec& spec = *request.mutable_spec();
    spec.set_kind(v1::RUN_KIND_FIXED_GAMES);
    spec.set_test_version("loadgen-a-" + suffix);
    spec.set_base_version("loadgen-b-" + suffix);
    spec.mutable_time_control()->set_nodes(1000);
    v1::Opening* opening = spec.mutable_book()->add_openings();
    opening->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    spec.mutable_book()->set_source("loadgen");
    spec.set_games(1'000'000'000);
    spec.set_pairs_per_thread(uint32_t(pairs));
    spec.set_description("sparring-loadgen");
    v1::RunStatus run;
    call(stub, &v1::UserService::Stub::SubmitRun, token, request, &run);
    return run.id();
}

// Returns the first column of the first row of a query with one integer parameter.
int64_t query(sparring::coordinator::Database& db, const char* sql, int64_t run_id) {
    sparring::coordinator::Statement& s = db.prepare(sql);
    s.bind(run_id);
    const int64_t value = s.step() ? s.int64(0) : 0;
    s.reset();
    return value;
}

// Returns the one-minute load average of the machine, as /proc/loadavg gives it.
std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string first;
    in >> first;
    return first.empty() ? "?" : first;
}

// Runs the load, prints the measurements; returns 0 if the database matches the acks.
int run(const Flags& args) {
    sparring::loadgen::LoadOptions options;
    for (const CLI::Option* option : args.required) sparring::require(option);
    options.address = args.coordinator;
    options.worker_token = args.worker_token;
    const std::string& user_token = args.user_token;
    const std::string& db_path = args.db;
    options.workers = int(args.workers);
    options.rate = args.rate;
    if (options.rate <= 0) throw UsageError("--rate must be positive");
    const int pairs = int(args.pairs);
    options.warmup = std::chrono::seconds(args.warmup);
    options.duration = std::chrono::seconds(args.duration);
    options.channels = int(args.channels);
    options.threads = int(args.threads);

    // The run's status lists every worker: at 100,000 workers it passes gRPC's 4 MiB default.
    sparring::rpc::Endpoint user_endpoint{options.address, user_token, ""};
    user_endpoint.max_receive_bytes = 256 << 20;
    auto users = v1::UserService::NewStub(sparring::rpc::make_channel(user_endpoint));
    const int64_t run_id = create_run(*users, user_token, pairs);
    std::cerr << "sparring-loadgen: run " << run_id << ", " << options.workers
              << " simulated workers, target " << options.rate << " reports/s\n";
    const std::string load_before = load_average();
    const sparring::loadgen::LoadResult result = sparring::loadgen::simulate(options);
    const std::string load_after = load_average();
    v1::StopRunRequest stop;
    stop.set_run_id(run_id);
    v1::RunStatus stopped;
    call(*users, &v1::UserService::Stub::StopRun, user_token, stop, &stopped);

    sparring::coordinator::Database db(db_path);
    const int64_t stored_pairs =
        query(db, "SELECT coalesce(sum(pairs), 0) FROM results WHERE run_id = ?", run_id);
    const int64_t stored_games = query(db, "SELECT count(*) FROM games WHERE run_id = ?", run_id);
    const int64_t counted_pairs = query(db, "SELECT pairs_done FROM runs WHERE id = ?", run_id);

    std::printf("machine:        load average %s before, %s after (other processes count)\n",
                load_before.c_str(), load_after.c_str());
    std::printf("workers:        %d simulated, %lld registered, %d connections\n", options.workers,
                (long long)result.workers_registered, options.channels);
    std::printf("reports:        %.0f/s sustained (%lld acknowledged in %.0f s, target %.0f/s)\n",
                double(result.reports_in_window) / result.window_s,
                (long long)result.reports_in_window, result.window_s, options.rate);
    std::printf("report latency: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
                result.report_latency.quantile(0.5), result.report_latency.quantile(0.99),
                result.report_latency.quantile(1.0));
    std::printf("lease latency:  p50 %.2f ms, p99 %.2f ms\n", result.work_latency.quantile(0.5),
                result.work_latency.quantile(0.99));
    for (const auto& [what, count] : result.errors)
        std::printf("failed calls:   %lld x %s\n", (long long)count, what.c_str());
    std::printf(
        "shed:           %.1f%% of %lld calls answered in the window were "
        "RESOURCE_EXHAUSTED\n",
        result.calls_in_window
            ? 100.0 * double(result.shed_in_window) / double(result.calls_in_window)
            : 0.0,
        (long long)result.calls_in_window);
    std::printf(
        "duplicates:     %lld retried reports recognised (their first attempt was "
        "counted)\n",
        (long long)result.duplicates);
    // What is stored must equal what was sent (less what was refused for good), and what was
    // acknowledged: nothing lost, nothing counted twice.
    const int64_t expected = result.pairs_sent - result.pairs_rejected;
    const bool intact = stored_pairs == expected && counted_pairs == expected &&
                        stored_games == 2 * expected && result.pairs_acknowledged == expected;
    std::printf(
        "database:       %lld pairs sent (%lld refused for good), %lld acknowledged; %lld in "
        "results, %lld counted, %lld games stored: %s\n",
        (long long)result.pairs_sent, (long long)result.pairs_rejected,
        (long long)result.pairs_acknowledged, (long long)stored_pairs, (long long)counted_pairs,
        (long long)stored_games, intact ? "nothing lost, nothing counted twice" : "MISMATCH");
    return intact ? 0 : 1;
}

}  // namespace

// Parses the flags and runs the load.
int main(int argc, char** argv) {
    CLI::App app("Simulate many workers against a coordinator and measure it.", "sparring-loadgen");
    sparring::set_synopsis(
        app, "--coordinator HOST:PORT --user-token T --worker-token T --db FILE [FLAGS]");
    const Flags flags(app);
    return sparring::run_command_line(app, argc, argv, [&] { return run(flags); });
}
