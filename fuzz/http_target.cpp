// An HTTP request's target as the dashboard's server reads it (path and query, percent-decoded):
// any bytes are refused or give a path starting with '/'; a target made by percent-encoding
// every byte of a path and of query names and values reads back as exactly those.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "coordinator/http/http_server.h"
#include "fuzz/check.h"

using namespace sparring::coordinator;

namespace {

// Returns every byte of text as %XX.
std::string encoded(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        out += '%';
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    HttpRequest request;
    request.target = std::string(bytes);
    if (http_detail::parse_target(request))
        FUZZ_CHECK(!request.path.empty() && request.path[0] == '/');

    // The input split in three (path, a name, a value), encoded, read back.
    const std::string path = "/" + std::string(bytes.substr(0, size / 3));
    const std::string name = std::string(bytes.substr(size / 3, size / 3));
    const std::string value = std::string(bytes.substr(2 * (size / 3)));
    HttpRequest made;
    made.target = encoded(path) + "?" + encoded(name) + "=" + encoded(value) + "&&x=%2B+";
    FUZZ_CHECK(http_detail::parse_target(made));
    FUZZ_CHECK(made.path == path);
    if (!name.empty()) {
        FUZZ_CHECK(made.params.count(name) >= 1);
        bool found = false;
        for (auto [it, end] = made.params.equal_range(name); it != end; ++it)
            found = found || it->second == value;
        FUZZ_CHECK(found);
    }
    FUZZ_CHECK(made.get_param_value("x") == "+ " || name == "x");
    return 0;
}
