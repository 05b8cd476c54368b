// The engine's UCI loop fed a whole session from the input: every command line answered or
// refused, the loop ends at the end of input with status 0, whatever the bytes. One engine
// serves every session; each session starts it afresh (see uci_loop).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "engine/uci.h"
#include "fuzz/check.h"

namespace {

// Returns whether the input resizes the hash table: any size from 1 to 4096 MiB but the
// default is legal, and each such input would allocate and clear the table twice (there and
// back for the next session), which only slows the fuzzer down. Values the engine refuses,
// and the default (which only clears the table), are kept.
bool resizes_hash(std::string_view text) {
    std::string lower;
    for (char c : text) lower += char(std::tolower(static_cast<unsigned char>(c)));
    for (std::size_t at = lower.find("hash"); at != std::string::npos;
         at = lower.find("hash", at + 1)) {
        const std::size_t digits = lower.find_first_of("0123456789", at);
        if (digits == std::string::npos || digits > lower.find('\n', at)) continue;
        // Leading zeros count for nothing, as in the engine's parse: "00000000008" is 8.
        const std::size_t first = lower.find_first_not_of('0', digits);
        const std::size_t end = lower.find_first_not_of("0123456789", digits);
        if (first >= end) continue;
        const std::string number = lower.substr(first, std::min<std::size_t>(end - first, 9));
        const int megabytes = std::stoi(number);
        if (megabytes >= 1 && megabytes <= 4096 && megabytes != 16) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (resizes_hash(text)) return -1;
    static sparring::Engine engine;
    std::istringstream in{std::string(text)};
    std::ostringstream out;
    FUZZ_CHECK(sparring::uci_loop(in, out, engine) == 0);
    return 0;
}
