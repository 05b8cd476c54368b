// Text repair for what is stored or sent (common/printable.h): any bytes come out of
// valid_utf8 as well-formed UTF-8, unchanged when they were well-formed and unchanged by a
// second repair; every cut keeps whole code points; printable() output is printable.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/printable.h"
#include "fuzz/check.h"

using namespace sparring;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const bool valid = is_valid_utf8(text);
    const std::string repaired = valid_utf8(text);
    FUZZ_CHECK(is_valid_utf8(repaired));
    FUZZ_CHECK(valid_utf8(repaired) == repaired);
    if (valid) FUZZ_CHECK(repaired == text);
    // Each ill-formed part is one U+FFFD (3 bytes) for at least one byte of input.
    FUZZ_CHECK(repaired.size() <= 3 * text.size());
    for (std::size_t max : {std::size_t(0), std::size_t(1), size / 2, size, size + 1}) {
        const std::string_view cut = utf8_prefix(text, max);
        FUZZ_CHECK(cut.size() <= max && text.substr(0, cut.size()) == cut);
        if (valid) FUZZ_CHECK(is_valid_utf8(cut));
        const std::string_view repaired_cut = utf8_prefix(repaired, max);
        FUZZ_CHECK(is_valid_utf8(repaired_cut));
        // A cut stops at most one code point (4 bytes) short of the limit.
        FUZZ_CHECK(repaired_cut.size() + 4 > std::min(max, repaired.size()));
    }
    const std::string shown = printable(text, size / 2 + 1);
    FUZZ_CHECK(is_printable(shown));
    return 0;
}
