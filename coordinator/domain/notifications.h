// Notifications of runs' ends: where they may go (the operator's list of receivers) and what
// they say. The core puts them in the outbox in the transaction that ends a run; the notifier
// (ops/notifier.h) sends them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// A notification URL, parsed.
struct NotifyUrl {
    std::string scheme;  // "http" or "https"
    std::string host;    // lowercase; an IPv6 address without its brackets
    int port = 0;
    std::string target;  // path and query, "/" at least

    // Returns the path: the target up to its query.
    std::string_view path() const;
};

// An entry of the operator's list of receivers (--notify-allow): HOST:PORT, and optionally a
// path prefix (HOST:PORT/PATH). An IPv6 address is written in brackets.
struct NotifyAllowEntry {
    std::string host;  // lowercase; an IPv6 address without its brackets
    int port = 0;
    std::string path;  // empty: any path; else starting with '/'

    bool operator==(const NotifyAllowEntry&) const = default;
};

// Parses an http or https URL with a host and no user or password, whose path has no dot
// segments, encoded slashes or backslashes; INVALID_ARGUMENT says what is wrong.
absl::StatusOr<NotifyUrl> parse_notify_url(std::string_view url);
// Parses a list entry, HOST:PORT[/PATH] (the port required, the path as a URL's, without a
// query); INVALID_ARGUMENT says what is wrong.
absl::StatusOr<NotifyAllowEntry> parse_notify_allow(std::string_view entry);
// Returns an entry as parse_notify_allow reads it.
std::string to_string(const NotifyAllowEntry& entry);
// Returns the receiver a URL names, "HOST:PORT" (brackets around an IPv6 address): the unit of
// the notifier's queues.
std::string destination_of(const NotifyUrl& url);
// Returns whether an entry lets a URL through: the same host and port, and when the entry has a
// path, the URL's path is it or below it ("/hooks" lets "/hooks" and "/hooks/x" through, not
// "/hooksx"; "/hooks/" only what starts with it).
bool notify_allows(const NotifyAllowEntry& entry, const NotifyUrl& url);
// Checks a URL as parse_notify_url does, and that an entry of the list (parse_notify_allow's
// text; entries it refuses let nothing through) lets it through; PERMISSION_DENIED names the
// entries.
absl::Status check_notify_url(std::string_view url, const std::vector<std::string>& allowed);
// Returns the JSON object telling of a run's end (without the notification's id): run, kind,
// owner, versions, time control, state, result, games, W/D/L, Elo with its interval, LLR
// (regression runs) and the end's time. The notifier adds the id and the run page's link.
std::string run_end_notice(const Run& run);

}  // namespace sparring::coordinator
