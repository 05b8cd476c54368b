#include "match/uci_options.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "common/printable.h"

namespace sparring::match {

namespace {

// Returns whether name holds "value" as a word: the engine would split the command there.
bool has_value_word(const std::string& name) {
    for (std::size_t at = name.find("value"); at != std::string::npos;
         at = name.find("value", at + 1)) {
        const bool starts = at == 0 || name[at - 1] == ' ';
        const bool ends = at + 5 == name.size() || name[at + 5] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

// Returns whether an option makes the engine write a log file: its canonical name holds
// "logfile" once spaces, '_' and '-' are dropped.
bool writes_log_file(const std::string& canonical) {
    std::string joined = canonical;
    std::erase_if(joined, [](char c) { return c == ' ' || c == '_' || c == '-'; });
    return joined.find("logfile") != std::string::npos;
}

// Returns the MiB a Hash value asks for, or -1 when it is not a whole decimal number in range.
int64_t hash_mb(const std::string& value) {
    int64_t mb = -1;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), mb);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size()) return -1;
    return mb;
}

}  // namespace

std::string canonical_option_name(std::string_view name) {
    std::string canonical;
    bool gap = false;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (u == ' ' || (u >= '\t' && u <= '\r')) {
            gap = !canonical.empty();
            continue;
        }
        if (gap) canonical += ' ';
        gap = false;
        canonical += u >= 'A' && u <= 'Z' ? char(u - 'A' + 'a') : c;
    }
    return canonical;
}

std::string check_uci_options(const std::vector<std::pair<std::string, std::string>>& options) {
    if (options.size() > kMaxUciOptions)
        return std::to_string(options.size()) + " UCI options, more than the " +
               std::to_string(kMaxUciOptions) + " allowed";
    for (const auto& [name, value] : options) {
        const std::string shown = "UCI option '" + printable(name, 64) + "'";
        if (name.empty()) return "a UCI option needs a name";
        if (name.size() > kMaxUciOptionNameBytes)
            return shown + ": the name is longer than " + std::to_string(kMaxUciOptionNameBytes) +
                   " bytes";
        if (value.size() > kMaxUciOptionValueBytes)
            return shown + ": the value is longer than " + std::to_string(kMaxUciOptionValueBytes) +
                   " bytes";
        if (!is_printable(name))
            return shown + ": the name holds a control character or is not UTF-8";
        if (!is_printable(value))
            return shown + ": the value '" + printable(value, 64) +
                   "' holds a control character or is not UTF-8";
        if (name.front() == ' ' || name.back() == ' ')
            return shown + ": the name starts or ends with a space";
        if (has_value_word(name)) return shown + ": the name holds the word 'value'";
    }
    return "";
}

std::string check_submitted_uci_options(const UciOptions& options) {
    std::map<std::string, std::string> seen;  // canonical name -> name as given
    for (const auto& [name, value] : options) {
        const std::string canonical = canonical_option_name(name);
        const std::string shown = "UCI option '" + printable(name, 64) + "'";
        if (const auto [at, fresh] = seen.emplace(canonical, name); !fresh)
            return "UCI options '" + printable(at->second, 64) + "' and '" + printable(name, 64) +
                   "' are one option to an engine (names are compared ignoring case and "
                   "spaces); give it once";
        // The engine would write wherever the value points, on every worker.
        if (writes_log_file(canonical))
            return shown + ": options that make the engine write files are refused";
        if (canonical == "hash") {
            const int64_t mb = hash_mb(value);
            if (mb < 0 || mb > kMaxUciHashMb)
                return shown + ": Hash must be a number of MiB in 0.." +
                       std::to_string(kMaxUciHashMb) + ", got '" + printable(value, 64) + "'";
        }
    }
    return "";
}

}  // namespace sparring::match
