// The dashboard's static files, embedded into the binary at build time (embed_assets.cmake):
// dygraphs from Debian's libjs-dygraphs, and the dashboard's own script and style sheet.
#pragma once

#include <string_view>

namespace sparring::coordinator::web {

struct Asset {
    std::string_view name;          // served as /static/NAME
    std::string_view content_type;  // a text type, in UTF-8
    std::string_view body;
};

// Returns the embedded file of that name, or nullptr.
const Asset* find_asset(std::string_view name);

}  // namespace sparring::coordinator::web
