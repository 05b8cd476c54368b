#include "bench/loadgen/simulation.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <thread>

#include "client/connection.h"
#include "common/printable.h"
#include "sparring/v1/worker.grpc.pb.h"

namespace sparring::loadgen {

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kPgn[] =
    "[Event \"loadgen\"]\n[Site \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n\n"
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2\n";

// One simulated worker process and the single call it has in flight.
struct SimWorker {
    enum class Step { Register, RequestWork, Report, Done };

    size_t index = 0;
    Step step = Step::Register;
    int64_t id = 0;
    v1::WorkerService::Stub* stub = nullptr;
    std::unique_ptr<grpc::ClientContext> context;
    v1::RegisterRequest register_request;
    v1::RegisterResponse register_response;
    v1::RequestWorkRequest work_request;
    v1::RequestWorkResponse work_response;
    v1::ReportResultsRequest report_request;
    v1::ReportResultsResponse report_response;
    Clock::time_point sent;
};

class Simulation {
  public:
    explicit Simulation(const LoadOptions& options) : options_(options) {
        for (int i = 0; i < options.channels; ++i) {
            grpc::ChannelArguments args;
            args.SetInt("sparring.loadgen.channel", i);  // distinct args: its own connection
            stubs_.push_back(v1::WorkerService::NewStub(grpc::CreateCustomChannel(
                options.address, grpc::InsecureChannelCredentials(), args)));
        }
        workers_.resize(size_t(options.workers));
        for (size_t i = 0; i < workers_.size(); ++i) {
            workers_[i] = std::make_unique<SimWorker>();
            workers_[i]->index = i;
            workers_[i]->stub = stubs_[i % stubs_.size()].get();
        }
    }

    // Runs the timeline and returns what was measured.
    LoadResult run() {
        start_ = Clock::now();
        window_start_ = start_ + options_.warmup;
        end_ = window_start_ + options_.duration;
        // Registrations spread over the first half of the warm-up.
        const auto spread = options_.warmup / 2;
        for (auto& w : workers_)
            schedule(*w, start_ + spread * w->index / std::max<size_t>(1, workers_.size()));
        std::vector<std::thread> threads;
        for (int t = 0; t < options_.threads; ++t) threads.emplace_back([this, t] { drive(t); });
        for (auto& t : threads) t.join();
        result_.window_s = std::chrono::duration<double>(options_.duration).count();
        return std::move(result_);
    }

  private:
    struct Due {
        Clock::time_point when;
        SimWorker* worker;
        bool operator>(const Due& other) const { return when > other.when; }
    };

    // Returns how long a worker thinks (plays) between its lease and its report.
    Clock::duration think() {
        const double mean_s = double(options_.workers) / options_.rate;
        thread_local std::mt19937 random(std::random_device{}());
        std::uniform_real_distribution<double> spread(0.5 * mean_s, 1.5 * mean_s);
        return std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(spread(random)));
    }

    // Queues a worker's next call at a time.
    void schedule(SimWorker& w, Clock::time_point when) {
        {
            std::lock_guard lock(mutex_);
            due_.push({when, &w});
        }
        wake_.notify_one();
    }

    // Starts the calls that are due until the window is over and nothing is in flight.
    void drive(int) {
        std::unique_lock lock(mutex_);
        for (;;) {
            const auto now = Clock::now();
            if (now >= end_ && in_flight_ == 0 && (due_.empty() || !retries_pending())) return;
            if (!due_.empty() && due_.top().when <= now) {
                SimWorker* w = due_.top().worker;
                due_.pop();
                if (now >= end_ && w->step != SimWorker::Step::Report) {
                    w->step = SimWorker::Step::Done;  // past the window: only finish reports
                    continue;
                }
                ++in_flight_;
                lock.unlock();
                start_call(*w);
                lock.lock();
                continue;
            }
            const auto next = due_.empty() ? now + std::chrono::milliseconds(5) : due_.top().when;
            wake_.wait_until(lock, std::min(next, now + std::chrono::milliseconds(5)));
        }
    }

    // Returns whether a queued call is an unacknowledged report (caller holds mutex_).
    bool retries_pending() const { return pending_reports_ > 0; }

    // Issues the worker's current call.
    void start_call(SimWorker& w) {
        w.context = std::make_unique<grpc::ClientContext>();
        rpc::prepare(*w.context, options_.worker_token, std::chrono::seconds(10));
        w.sent = Clock::now();
        switch (w.step) {
            case SimWorker::Step::Register:
                w.register_request.set_name("sim-" + std::to_string(w.index));
                w.register_request.set_cores(1);
                w.register_request.set_memory_mb(1024);
                w.register_request.set_concurrency(1);
                w.stub->async()->Register(w.context.get(), &w.register_request,
                                          &w.register_response,
                                          [this, &w](grpc::Status s) { done(w, s); });
                break;
            case SimWorker::Step::RequestWork:
                w.work_request.set_worker_id(w.id);
                w.stub->async()->RequestWork(w.context.get(), &w.work_request, &w.work_response,
                                             [this, &w](grpc::Status s) { done(w, s); });
                break;
            case SimWorker::Step::Report:
                w.stub->async()->ReportResults(w.context.get(), &w.report_request,
                                               &w.report_response,
                                               [this, &w](grpc::Status s) { done(w, s); });
                break;
            case SimWorker::Step::Done:
                break;
        }
    }

    // Fills a worker's report with every pair of its lease.
    static void build_report(SimWorker& w) {
        const v1::Lease& lease = w.work_response.lease();
        w.report_request.Clear();
        w.report_request.set_worker_id(w.id);
        w.report_request.set_lease_id(lease.lease_id());
        w.report_request.set_sequence(1);
        for (int i = 0; i < lease.openings_size(); ++i) {
            v1::GamePair* p = w.report_request.add_pairs();
            p->set_index(uint32_t(i));
            p->mutable_first()->set_outcome(v1::GAME_OUTCOME_DRAW);
            p->mutable_first()->set_test_white(true);
            p->mutable_first()->set_pgn(kPgn);
            p->mutable_second()->set_outcome(v1::GAME_OUTCOME_DRAW);
            p->mutable_second()->set_test_white(false);
            p->mutable_second()->set_pgn(kPgn);
        }
    }

    // Records a finished call and schedules the worker's next one.
    void done(SimWorker& w, const grpc::Status& status) {
        const auto now = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - w.sent).count();
        const bool measured = w.sent >= window_start_ && w.sent < end_;
        Clock::time_point next = now;
        std::lock_guard lock(mutex_);
        --in_flight_;
        if (measured) ++result_.calls_in_window;
        if (!status.ok()) {
            const bool busy = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
            if (busy && measured) ++result_.shed_in_window;
            ++result_.errors[busy ? "resource exhausted (shed, retried after retry-after-ms)"
                                  : std::string(utf8_prefix(rpc::describe(status), 60))];
            // A busy coordinator says when to come back; the jitter spreads the retries.
            const auto asked = rpc::retry_after(*w.context);
            thread_local std::mt19937 random(std::random_device{}());
            const auto jitter = std::chrono::milliseconds(std::uniform_int_distribution<int>(
                0, int(std::max<int64_t>(1, asked.count() / 2)))(random));
            if (w.step == SimWorker::Step::Report && !rpc::is_transient(status)) {
                // Refused for good (the lease ended): nothing of it is stored.
                --pending_reports_;
                result_.pairs_rejected += w.report_request.pairs_size();
                w.step = SimWorker::Step::RequestWork;
                next = now;
            } else if (w.step == SimWorker::Step::Report) {
                next = now + (asked.count() ? asked + jitter : std::chrono::milliseconds(200));
            } else if (!rpc::is_transient(status)) {
                w.step = SimWorker::Step::Done;
                return;
            } else {
                next = now + (asked.count() ? asked + jitter : std::chrono::milliseconds(500));
            }
            due_.push({next, &w});
            wake_.notify_one();
            return;
        }
        switch (w.step) {
            case SimWorker::Step::Register:
                w.id = w.register_response.worker_id();
                ++result_.workers_registered;
                w.step = SimWorker::Step::RequestWork;
                break;
            case SimWorker::Step::RequestWork:
                if (measured) result_.work_latency.ms.push_back(ms);
                if (!w.work_response.has_lease()) {
                    next = now + std::chrono::milliseconds(w.work_response.retry_after_ms());
                    break;
                }
                build_report(w);
                w.step = SimWorker::Step::Report;
                ++pending_reports_;
                result_.pairs_sent += w.report_request.pairs_size();
                next = now + think();
                break;
            case SimWorker::Step::Report:
                --pending_reports_;
                if (measured) {
                    result_.report_latency.ms.push_back(ms);
                    ++result_.reports_in_window;
                }
                ++result_.reports_total;
                if (w.report_response.duplicate()) ++result_.duplicates;
                result_.pairs_acknowledged += w.report_request.pairs_size();
                w.step = SimWorker::Step::RequestWork;
                break;
            case SimWorker::Step::Done:
                return;
        }
        due_.push({next, &w});
        wake_.notify_one();
    }

    const LoadOptions options_;
    std::vector<std::unique_ptr<v1::WorkerService::Stub>> stubs_;
    std::vector<std::unique_ptr<SimWorker>> workers_;
    Clock::time_point start_, window_start_, end_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
    int64_t in_flight_ = 0;
    int64_t pending_reports_ = 0;  // leases taken whose report is not acknowledged yet
    LoadResult result_;
};

}  // namespace

double Latencies::quantile(double q) const {
    if (ms.empty()) return 0;
    std::vector<double> sorted = ms;
    const size_t k = std::min(sorted.size() - 1, size_t(q * double(sorted.size())));
    std::nth_element(sorted.begin(), sorted.begin() + long(k), sorted.end());
    return sorted[k];
}

LoadResult simulate(const LoadOptions& options) {
    return Simulation(options).run();
}

}  // namespace sparring::loadgen
