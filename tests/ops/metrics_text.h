// A parser of the Prometheus text exposition format (version 0.0.4) for tests: it checks
// each line against the format's rules and returns the samples.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparring::testing {

struct MetricSample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct MetricsText {
    std::map<std::string, std::string> types;  // family name -> counter, gauge, histogram ...
    std::vector<MetricSample> samples;

    // Returns the value of the one sample with this name and these labels (a subset match).
    std::optional<double> value(const std::string& name,
                                const std::map<std::string, std::string>& labels = {}) const;
};

// Parses an exposition; throws std::runtime_error naming the line that breaks a rule: a
// malformed name, label or value, a TYPE given twice or after its samples, a sample of an
// undeclared family, a duplicate series, or a histogram whose buckets are not cumulative or
// whose +Inf bucket differs from its _count.
MetricsText parse_metrics(const std::string& text);

}  // namespace sparring::testing
