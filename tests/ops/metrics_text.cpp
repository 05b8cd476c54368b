#include "metrics_text.h"

#include <cmath>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace sparring::testing {

namespace {

const std::regex kName("[a-zA-Z_:][a-zA-Z0-9_:]*");
const std::regex kLabelName("[a-zA-Z_][a-zA-Z0-9_]*");

// Throws the error for a line.
[[noreturn]] void fail(const std::string& line, const std::string& why) {
    throw std::runtime_error(why + ": '" + line + "'");
}

// Parses a sample value: a float, NaN, +Inf or -Inf.
double parse_value(const std::string& text, const std::string& line) {
    if (text == "NaN") return std::nan("");
    if (text == "+Inf") return INFINITY;
    if (text == "-Inf") return -INFINITY;
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        fail(line, "bad value");
    }
    if (used != text.size()) fail(line, "bad value");
    return value;
}

// Parses `{name="value",...}` from position i of a sample line; leaves i after the brace.
std::map<std::string, std::string> parse_labels(const std::string& line, size_t& i) {
    std::map<std::string, std::string> labels;
    ++i;
    while (i < line.size() && line[i] != '}') {
        const size_t eq = line.find('=', i);
        if (eq == std::string::npos) fail(line, "label without '='");
        const std::string name = line.substr(i, eq - i);
        if (!std::regex_match(name, kLabelName)) fail(line, "bad label name");
        if (eq + 1 >= line.size() || line[eq + 1] != '"') fail(line, "unquoted label value");
        std::string value;
        size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
            if (line[j] == '\\') {
                if (++j >= line.size()) fail(line, "dangling escape");
                if (line[j] == 'n')
                    value += '\n';
                else if (line[j] == '\\' || line[j] == '"')
                    value += line[j];
                else
                    fail(line, "bad escape in label value");
            } else {
                value += line[j];
            }
        }
        if (j >= line.size()) fail(line, "unterminated label value");
        if (!labels.emplace(name, value).second) fail(line, "label given twice");
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) fail(line, "unterminated label set");
    ++i;
    return labels;
}

// Returns the family a sample belongs to, given the declared types.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    if (types.count(name)) return name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s = suffix;
        if (name.size() > s.size() && name.ends_with(s)) {
            const std::string base = name.substr(0, name.size() - s.size());
            const auto it = types.find(base);
            if (it != types.end() && (it->second == "histogram" || it->second == "summary"))
                return base;
        }
    }
    return "";
}

// Checks every histogram series: cumulative buckets, and +Inf equal to _count.
void check_histograms(const MetricsText& m) {
    std::map<std::string, std::vector<std::pair<double, double>>> buckets;
    for (const MetricSample& s : m.samples) {
        if (!s.name.ends_with("_bucket")) continue;
        auto labels = s.labels;
        const auto le = labels.find("le");
        if (le == labels.end()) throw std::runtime_error(s.name + " bucket without le");
        const double bound = le->second == "+Inf" ? INFINITY : std::stod(le->second);
        labels.erase(le);
        std::ostringstream key;
        key << s.name.substr(0, s.name.size() - 7);
        for (const auto& [k, v] : labels) key << ',' << k << '=' << v;
        buckets[key.str()].push_back({bound, s.value});
    }
    for (const auto& [key, list] : buckets) {
        for (size_t i = 1; i < list.size(); ++i)
            if (list[i].first <= list[i - 1].first || list[i].second < list[i - 1].second)
                throw std::runtime_error(key + ": buckets not increasing and cumulative");
        if (list.empty() || !std::isinf(list.back().first))
            throw std::runtime_error(key + ": no +Inf bucket");
    }
    for (const MetricSample& s : m.samples) {
        if (!s.name.ends_with("_count")) continue;
        const std::string base = s.name.substr(0, s.name.size() - 6);
        if (family_of(s.name, m.types) != base || m.types.at(base) != "histogram") continue;
        std::ostringstream key;
        key << base;
        for (const auto& [k, v] : s.labels) key << ',' << k << '=' << v;
        const auto it = buckets.find(key.str());
        if (it == buckets.end() || it->second.back().second != s.value)
            throw std::runtime_error(key.str() + ": +Inf bucket differs from _count");
    }
}

}  // namespace

std::optional<double> MetricsText::value(const std::string& name,
                                         const std::map<std::string, std::string>& labels) const {
    std::optional<double> found;
    for (const MetricSample& s : samples) {
        if (s.name != name) continue;
        bool match = true;
        for (const auto& [k, v] : labels) {
            const auto it = s.labels.find(k);
            match = match && it != s.labels.end() && it->second == v;
        }
        if (!match) continue;
        if (found) throw std::runtime_error("several samples match " + name);
        found = s.value;
    }
    return found;
}

MetricsText parse_metrics(const std::string& text) {
    MetricsText m;
    std::set<std::string> sampled_families;
    std::set<std::string> series;
    std::istringstream in(text);
    if (!text.empty() && text.back() != '\n') throw std::runtime_error("missing final newline");
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::istringstream words(line.substr(1));
            std::string keyword, name, rest;
            words >> keyword >> name;
            if (keyword != "HELP" && keyword != "TYPE") continue;
            if (!std::regex_match(name, kName)) fail(line, "bad metric name");
            if (keyword == "TYPE") {
                words >> rest;
                static const std::set<std::string> kTypes = {"counter", "gauge", "histogram",
                                                             "summary", "untyped"};
                if (!kTypes.count(rest)) fail(line, "unknown type");
                if (sampled_families.count(name)) fail(line, "TYPE after the family's samples");
                if (!m.types.emplace(name, rest).second) fail(line, "TYPE given twice");
            }
            continue;
        }
        size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
        MetricSample s;
        s.name = line.substr(0, i);
        if (!std::regex_match(s.name, kName)) fail(line, "bad metric name");
        if (i < line.size() && line[i] == '{') s.labels = parse_labels(line, i);
        if (i >= line.size() || line[i] != ' ') fail(line, "no value");
        std::istringstream rest(line.substr(i + 1));
        std::string value, timestamp, extra;
        rest >> value >> timestamp >> extra;
        if (!extra.empty()) fail(line, "trailing text");
        s.value = parse_value(value, line);
        const std::string family = family_of(s.name, m.types);
        if (family.empty()) fail(line, "sample of an undeclared family");
        sampled_families.insert(family);
        std::ostringstream key;
        key << s.name;
        for (const auto& [k, v] : s.labels) key << ',' << k << '=' << v;
        if (!series.insert(key.str()).second) fail(line, "series given twice");
        m.samples.push_back(std::move(s));
    }
    check_histograms(m);
    return m;
}

}  // namespace sparring::testing
