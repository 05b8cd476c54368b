// The load generator's simulated workers: many of them, multiplexed over a few threads and
// channels with gRPC's asynchronous callback API, each looping lease -> think -> report.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sparring::loadgen {

struct LoadOptions {
    std::string address;  // coordinator HOST:PORT (plaintext)
    std::string worker_token;
    int workers = 1000;                 // simulated worker processes
    double rate = 2000;                 // target result reports per second, all workers together
    int channels = 16;                  // separate HTTP/2 connections
    int threads = 2;                    // threads that schedule the simulated workers
    std::chrono::seconds warmup{10};    // registration and ramp-up, not measured
    std::chrono::seconds duration{30};  // the measured window
};

struct Latencies {
    std::vector<double> ms;  // one entry per call started in the measured window

    // Returns the q-quantile (0..1) in milliseconds, 0 when empty.
    double quantile(double q) const;
};

struct LoadResult {
    double window_s = 0;
    int64_t reports_in_window = 0;  // acknowledged reports started in the window
    int64_t reports_total = 0;      // acknowledged reports, whole run
    int64_t duplicates = 0;         // retries the coordinator had already counted
    // Game pairs in acknowledged reports: a duplicate answer acknowledges the earlier attempt
    // that timed out, so its pairs count too (once: the report is not sent again).
    int64_t pairs_acknowledged = 0;
    int64_t pairs_sent = 0;       // game pairs in every report built and sent
    int64_t pairs_rejected = 0;   // in reports refused for good (their lease had ended)
    int64_t calls_in_window = 0;  // calls started in the measured window, answered
    int64_t shed_in_window = 0;   // of them, answered RESOURCE_EXHAUSTED (busy, retry later)
    int64_t workers_registered = 0;
    Latencies report_latency;
    Latencies work_latency;
    std::map<std::string, int64_t> errors;  // failed calls by status
};

// Runs the simulation against an active run the workers will be leased pairs of; blocks for
// warmup + duration, then lets calls in flight finish (retrying unacknowledged reports).
LoadResult simulate(const LoadOptions& options);

}  // namespace sparring::loadgen
