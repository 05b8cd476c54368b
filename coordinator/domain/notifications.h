// Notifications of runs' ends: where they may go (the operator's list of hosts) and what they
// say. The core puts them in the outbox in the transaction that ends a run; the notifier
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
};

// Parses an http or https URL with a host and no user or password; INVALID_ARGUMENT says what
// is wrong.
absl::StatusOr<NotifyUrl> parse_notify_url(std::string_view url);
// Checks a URL as parse_notify_url does, and that its host ("host" entries, any port) or
// host:port is on the list; PERMISSION_DENIED names the hosts allowed.
absl::Status check_notify_url(std::string_view url, const std::vector<std::string>& hosts);
// Returns the JSON object telling of a run's end (without the notification's id): run, kind,
// owner, versions, time control, state, result, games, W/D/L, Elo with its interval, LLR
// (regression runs), the end's time and, when link is not empty, the run page's link.
std::string run_end_notice(const Run& run, const std::string& link);

}  // namespace sparring::coordinator
