// A worker's identity (v1::WorkerIdentity, issue 52) as `sparring workers` and the dashboard's
// /workers write it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sparring/v1/worker.pb.h"

namespace sparring {

// Returns the CPU in a few words: "AMD EPYC 9654 96-Core Processor" (or the vendor when the
// model is unknown); "" for an identity without one.
std::string identity_cpu_text(const v1::WorkerIdentity& identity);

// Returns "2 cores, 4 threads" (or "-" when not reported).
std::string identity_cores_text(const v1::WorkerIdentity& identity);

// Returns CPU numbers as ranges: "0-7,16-23".
std::string cpu_ranges_text(const std::vector<uint32_t>& cpus);

// Returns every part of the identity as (label, text) lines for a detailed view: cpu, class,
// levels, flags, cores, core types, os, kernel, machine id (the ones reported).
std::vector<std::pair<std::string, std::string>> identity_lines(const v1::WorkerIdentity& identity,
                                                                const std::string& cpu_class);

}  // namespace sparring
