// The notification receivers' list and URLs (coordinator/domain/notifications.h): the input is
// an entry of --notify-allow, a newline, and a notification URL (the whole input is both when
// there is no newline). An accepted entry or URL reads back from its written form as itself;
// a refused one says why; an entry lets a URL through only on its host, its port and below its
// path, and the entry made of a URL's own host, port and path lets it through.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "coordinator/domain/notifications.h"
#include "fuzz/check.h"

using namespace sparring::coordinator;

namespace {

// Returns whether two parsed URLs are the same.
bool same(const NotifyUrl& a, const NotifyUrl& b) {
    return a.scheme == b.scheme && a.host == b.host && a.port == b.port && a.target == b.target;
}

// Checks what an accepted entry must be, and that its text reads back as itself.
void check_entry(const NotifyAllowEntry& entry) {
    FUZZ_CHECK(!entry.host.empty());
    for (const char c : entry.host) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'));
    FUZZ_CHECK(entry.port >= 1 && entry.port <= 65535);
    FUZZ_CHECK(entry.path.empty() || entry.path[0] == '/');
    const absl::StatusOr<NotifyAllowEntry> again = parse_notify_allow(to_string(entry));
    FUZZ_CHECK(again.ok() && *again == entry);
}

// Checks what an accepted URL must be, and that its written form reads back as itself.
void check_url(const NotifyUrl& url) {
    FUZZ_CHECK(url.scheme == "http" || url.scheme == "https");
    FUZZ_CHECK(!url.host.empty());
    FUZZ_CHECK(url.port >= 1 && url.port <= 65535);
    FUZZ_CHECK(!url.target.empty() && url.target[0] == '/');
    // Written with its port, a URL near the length limit may pass it.
    const std::string written = url.scheme + "://" + destination_of(url) + url.target;
    if (written.size() <= 2048) {
        const absl::StatusOr<NotifyUrl> again = parse_notify_url(written);
        FUZZ_CHECK(again.ok() && same(*again, url));
    }
    // The entry of the URL's own host, port and path is valid and lets it through.
    const NotifyAllowEntry own{url.host, url.port, std::string(url.path())};
    check_entry(own);
    FUZZ_CHECK(notify_allows(own, url));
    if (written.size() <= 2048) FUZZ_CHECK(check_notify_url(written, {to_string(own)}).ok());
    FUZZ_CHECK(!notify_allows(NotifyAllowEntry{url.host, url.port % 65535 + 1, ""}, url));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t newline = input.find('\n');
    const std::string_view entry_text = input.substr(0, newline);
    const std::string_view url_text =
        newline == std::string_view::npos ? input : input.substr(newline + 1);

    const absl::StatusOr<NotifyAllowEntry> entry = parse_notify_allow(entry_text);
    if (entry.ok())
        check_entry(*entry);
    else
        FUZZ_CHECK(entry.status().code() == absl::StatusCode::kInvalidArgument &&
                   entry.status().message().find("HOST:PORT") != std::string_view::npos);

    const absl::StatusOr<NotifyUrl> url = parse_notify_url(url_text);
    if (url.ok())
        check_url(*url);
    else
        FUZZ_CHECK(url.status().code() == absl::StatusCode::kInvalidArgument &&
                   !url.status().message().empty());

    if (entry.ok() && url.ok()) {
        const bool allowed = notify_allows(*entry, *url);
        if (allowed)
            FUZZ_CHECK(url->host == entry->host && url->port == entry->port &&
                       url->path().starts_with(entry->path));
        FUZZ_CHECK(check_notify_url(url_text, {to_string(*entry)}).ok() == allowed);
    }
    return 0;
}
