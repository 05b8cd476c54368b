#include "coordinator/domain/notifications.h"

#include <algorithm>
#include <cctype>

#include "common/json_text.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

constexpr size_t kMaxUrlBytes = 2048;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// Returns why text cannot be a URL or an entry (too long, a space, a control or a non-ASCII
// character), or an empty string.
std::string notify_text_problem(std::string_view text) {
    if (text.size() > kMaxUrlBytes) return "longer than 2048 bytes";
    for (const unsigned char c : text)
        if (c <= ' ' || c >= 127) return "holds a space, a control or a non-ASCII character";
    return {};
}

// Reads HOST[:PORT] (an IPv6 address in brackets) into host and port; default_port 0 makes the
// port required. Returns what is wrong, or an empty string. The host is a name (letters,
// digits, '-', '.', '_') or a bracketed IPv6 address.
std::string parse_authority(std::string_view text, int default_port, std::string& host, int& port) {
    if (text.find('@') != std::string_view::npos) return "no user or password";
    std::string_view digits;
    bool has_port = false;
    bool bracketed = false;
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string_view::npos) return "an unclosed [";
        host = lower(text.substr(1, close - 1));
        bracketed = true;
        const std::string_view after = text.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return "unexpected text after the host";
            digits = after.substr(1);
            has_port = true;
        }
    } else {
        const size_t colon = text.rfind(':');
        host = lower(text.substr(0, colon));
        if (colon != std::string_view::npos) {
            digits = text.substr(colon + 1);
            has_port = true;
        }
    }
    if (host.empty()) return "no host";
    const bool host_ok = bracketed
                             ? host.find(':') != std::string::npos &&
                                   host.find_first_not_of("0123456789abcdef:.") == std::string::npos
                             : std::all_of(host.begin(), host.end(), [](unsigned char c) {
                                   return std::isalnum(c) || c == '-' || c == '.' || c == '_';
                               });
    if (!host_ok)
        return bracketed ? "not an IPv6 address in the brackets"
                         : "the host may hold letters, digits, '-', '.' and '_' (an IPv6 "
                           "address in brackets)";
    if (!has_port || digits.empty()) {
        if (default_port == 0) return "give HOST:PORT (the port is required)";
        port = default_port;
        return {};
    }
    if (digits.size() > 5 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return "the port must be a number";
    port = std::stoi(std::string(digits));
    if (port < 1 || port > 65535) return "the port must be in 1..65535";
    return {};
}

// Returns why a path could reach something other than what it reads as (a dot segment, also
// percent-encoded, an encoded slash or a backslash), or an empty string. A path is matched
// against the list's prefixes as text, so it must mean what it says.
std::string path_problem(std::string_view path) {
    if (path.empty() || path.front() != '/') return "the path must start with '/'";
    if (path.starts_with("//")) return "the path may not start with '//'";
    if (path.find('\\') != std::string_view::npos) return "no backslash in the path";
    const std::string text = lower(path);
    if (text.find("%2f") != std::string::npos || text.find("%5c") != std::string::npos)
        return "no encoded slash in the path";
    for (size_t from = 1; from <= text.size();) {
        size_t to = text.find('/', from);
        if (to == std::string::npos) to = text.size();
        std::string segment = text.substr(from, to - from);
        segment.resize(std::min(segment.size(), segment.find(';')));  // "..;" is ".." to some
        for (size_t at; (at = segment.find("%2e")) != std::string::npos;)
            segment.replace(at, 3, ".");
        if (segment == "." || segment == "..") return "no '.' or '..' segment in the path";
        from = to + 1;
    }
    return {};
}

// Returns a host as it is written in a URL: an IPv6 address in brackets.
std::string written_host(const std::string& host) {
    return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

std::string_view NotifyUrl::path() const {
    return std::string_view(target).substr(0, target.find('?'));
}

absl::StatusOr<NotifyUrl> parse_notify_url(std::string_view url) {
    const auto bad = [&url](const std::string& why) {
        return absl::InvalidArgumentError("notification URL '" + excerpt(url) + "': " + why);
    };
    if (std::string problem = notify_text_problem(url); !problem.empty()) return bad(problem);
    NotifyUrl out;
    const size_t colon = url.find("://");
    if (colon == std::string_view::npos) return bad("give http://HOST[:PORT]/PATH or https://...");
    out.scheme = lower(url.substr(0, colon));
    if (out.scheme != "http" && out.scheme != "https") return bad("only http and https");
    std::string_view rest = url.substr(colon + 3);
    const size_t slash = rest.find_first_of("/?#");
    const std::string_view authority = rest.substr(0, slash);
    out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (out.target[0] != '/') out.target = "/" + out.target;
    if (const size_t hash = out.target.find('#'); hash != std::string::npos)
        out.target.resize(hash);
    if (std::string problem =
            parse_authority(authority, out.scheme == "https" ? 443 : 80, out.host, out.port);
        !problem.empty())
        return bad(problem);
    if (std::string problem = path_problem(out.path()); !problem.empty()) return bad(problem);
    return out;
}

absl::StatusOr<NotifyAllowEntry> parse_notify_allow(std::string_view entry) {
    const auto bad = [&entry](const std::string& why) {
        return absl::InvalidArgumentError("notification receiver '" + excerpt(entry) +
                                          "' (HOST:PORT or HOST:PORT/PATH): " + why);
    };
    if (std::string problem = notify_text_problem(entry); !problem.empty()) return bad(problem);
    if (entry.find_first_of("?#") != std::string_view::npos) return bad("no query or fragment");
    NotifyAllowEntry out;
    const size_t slash = entry.find('/');
    if (slash != std::string_view::npos && entry.substr(slash).starts_with("//") && slash > 0 &&
        entry[slash - 1] == ':')
        return bad("no scheme");
    if (std::string problem = parse_authority(entry.substr(0, slash), 0, out.host, out.port);
        !problem.empty())
        return bad(problem);
    if (slash != std::string_view::npos) {
        out.path = std::string(entry.substr(slash));
        if (std::string problem = path_problem(out.path); !problem.empty()) return bad(problem);
    }
    return out;
}

std::string to_string(const NotifyAllowEntry& entry) {
    return written_host(entry.host) + ":" + std::to_string(entry.port) + entry.path;
}

std::string destination_of(const NotifyUrl& url) {
    return written_host(url.host) + ":" + std::to_string(url.port);
}

bool notify_allows(const NotifyAllowEntry& entry, const NotifyUrl& url) {
    if (entry.host != url.host || entry.port != url.port) return false;
    if (entry.path.empty()) return true;
    const std::string_view path = url.path();
    if (!path.starts_with(entry.path)) return false;
    return entry.path.back() == '/' || path.size() == entry.path.size() ||
           path[entry.path.size()] == '/';
}

absl::Status check_notify_url(std::string_view url, const std::vector<std::string>& allowed) {
    absl::StatusOr<NotifyUrl> parsed = parse_notify_url(url);
    if (!parsed.ok()) return parsed.status();
    for (const std::string& text : allowed)
        if (const absl::StatusOr<NotifyAllowEntry> entry = parse_notify_allow(text);
            entry.ok() && notify_allows(*entry, *parsed))
            return absl::OkStatus();
    std::string list;
    for (const std::string& text : allowed) list += (list.empty() ? "" : ", ") + text;
    return absl::PermissionDeniedError(
        "notifications go only to the hosts the operator allows (--notify-allow "
        "HOST:PORT[/PATH]): " +
        (list.empty() ? std::string("none") : list) + "; not " +
        excerpt(destination_of(*parsed) + std::string(parsed->path())));
}

std::string run_end_notice(const Run& run) {
    nlohmann::json notice = {
        {"event", "run_ended"},
        {"run", run.id},
        {"kind", std::string(run_kind_name(run.spec.kind))},
        {"owner", run.spec.owner},
        {"test", run.spec.test_version},
        {"base", run.spec.base_version},
        {"time_control", run.spec.time_control.to_string()},
        {"state", std::string(run_state_name(run.state))},
        {"result", run.result},
        {"games", 2 * run.counts.pairs},
        {"wins", run.counts.wins},
        {"draws", run.counts.draws},
        {"losses", run.counts.losses},
        {"elo", run.elo.elo},
        {"elo_low", run.elo.elo_low},
        {"elo_high", run.elo.elo_high},
        {"finished_unix_ms", run.finished_ms},
    };
    if (run_kind(run.spec.kind).decided_by_sprt()) {
        notice["llr"] = run.sprt.llr;
        notice["llr_lower"] = run.sprt.lower;
        notice["llr_upper"] = run.sprt.upper;
    }
    if (!run.spec.description.empty()) notice["description"] = run.spec.description;
    return json_text(notice);
}

void Core::enqueue_notifications(Outbox& outbox, const Run& run, std::string body) const {
    std::vector<std::string> urls;
    if (!options_.notify_url.empty()) urls.push_back(options_.notify_url);
    if (!run.spec.owner.empty())
        if (std::string mine = outbox.find_notify_url(run.spec.owner);
            !mine.empty() && std::find(urls.begin(), urls.end(), mine) == urls.end())
            urls.push_back(std::move(mine));
    if (urls.empty()) return;
    if (body.empty()) body = run_end_notice(run);
    for (const std::string& url : urls) {
        Notification n;
        n.run_id = run.id;
        n.url = url;
        // A URL that no longer parses gets a queue of its own, and is dropped when sent.
        const absl::StatusOr<NotifyUrl> parsed = parse_notify_url(url);
        n.destination = parsed.ok() ? destination_of(*parsed) : url;
        n.body = body;
        n.next_ms = run.finished_ms;  // 0 for a pause: at once
        outbox.insert_notification(n);
    }
}

absl::StatusOr<std::string> Core::set_notify_url(Outbox& outbox, const Caller& caller,
                                                 std::optional<std::string> url) const {
    if (url) {
        if (!url->empty())
            if (absl::Status allowed = check_notify_url(*url, options_.notify_hosts); !allowed.ok())
                return allowed;
        // The notices still waiting for the URL given up go nowhere: the user no longer wants
        // them there (unless it is the operator's URL too, whose notices they are as well).
        if (const std::string before = outbox.find_notify_url(caller.user);
            !before.empty() && before != *url && before != options_.notify_url)
            outbox.drop_notifications(before, caller.user, "the user's URL was changed");
        outbox.set_notify_url(caller.user, *url);
    }
    return outbox.find_notify_url(caller.user);
}

}  // namespace sparring::coordinator
