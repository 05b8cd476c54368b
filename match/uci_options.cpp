#include "match/uci_options.h"

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

}  // namespace

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

}  // namespace sparring::match
