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

}  // namespace

absl::StatusOr<NotifyUrl> parse_notify_url(std::string_view url) {
    const auto bad = [&url](const std::string& why) {
        return absl::InvalidArgumentError("notification URL '" + excerpt(url) + "': " + why);
    };
    if (url.size() > kMaxUrlBytes) return bad("longer than 2048 bytes");
    for (const unsigned char c : url)
        if (c <= ' ' || c >= 127) return bad("holds a space, a control or a non-ASCII character");
    NotifyUrl out;
    const size_t colon = url.find("://");
    if (colon == std::string_view::npos) return bad("give http://HOST[:PORT]/PATH or https://...");
    out.scheme = lower(url.substr(0, colon));
    if (out.scheme != "http" && out.scheme != "https") return bad("only http and https");
    std::string_view rest = url.substr(colon + 3);
    const size_t slash = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, slash);
    out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (out.target[0] != '/') out.target = "/" + out.target;
    if (const size_t hash = out.target.find('#'); hash != std::string::npos)
        out.target.resize(hash);
    if (authority.find('@') != std::string_view::npos) return bad("no user or password");
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) return bad("an unclosed [");
        out.host = lower(authority.substr(1, close - 1));
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return bad("unexpected text after the host");
            port = after.substr(1);
        }
    } else {
        const size_t at = authority.rfind(':');
        out.host = lower(authority.substr(0, at));
        if (at != std::string_view::npos) port = authority.substr(at + 1);
    }
    if (out.host.empty()) return bad("no host");
    out.port = out.scheme == "https" ? 443 : 80;
    if (!port.empty()) {
        if (port.size() > 5 ||
            !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return bad("the port must be a number");
        out.port = std::stoi(std::string(port));
        if (out.port < 1 || out.port > 65535) return bad("the port must be in 1..65535");
    }
    return out;
}

absl::Status check_notify_url(std::string_view url, const std::vector<std::string>& hosts) {
    absl::StatusOr<NotifyUrl> parsed = parse_notify_url(url);
    if (!parsed.ok()) return parsed.status();
    const std::string with_port = parsed->host + ":" + std::to_string(parsed->port);
    for (const std::string& allowed : hosts) {
        std::string entry = lower(allowed);
        if (entry.size() > 2 && entry.front() == '[') entry.erase(0, 1);
        if (const size_t close = entry.find(']'); close != std::string::npos) entry.erase(close, 1);
        if (entry == parsed->host || entry == with_port) return absl::OkStatus();
    }
    std::string list;
    for (const std::string& allowed : hosts) list += (list.empty() ? "" : ", ") + allowed;
    return absl::PermissionDeniedError(
        "notifications go only to the hosts the operator allows (--notify-allow): " +
        (list.empty() ? std::string("none") : list) + "; not " + excerpt(parsed->host));
}

std::string run_end_notice(const Run& run, const std::string& link) {
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
    if (!link.empty()) notice["link"] = link;
    return json_text(notice);
}

void Core::enqueue_notifications(Storage& storage, const Run& run) const {
    std::vector<std::string> urls;
    if (!options_.notify_url.empty()) urls.push_back(options_.notify_url);
    if (!run.spec.owner.empty())
        if (std::string mine = storage.find_notify_url(run.spec.owner);
            !mine.empty() && std::find(urls.begin(), urls.end(), mine) == urls.end())
            urls.push_back(std::move(mine));
    if (urls.empty()) return;
    const std::string link =
        options_.public_url.empty() ? "" : options_.public_url + "/runs/" + std::to_string(run.id);
    const std::string body = run_end_notice(run, link);
    for (const std::string& url : urls) {
        Notification n;
        n.run_id = run.id;
        n.url = url;
        n.body = body;
        n.next_ms = run.finished_ms;
        storage.insert_notification(n);
    }
}

absl::StatusOr<std::string> Core::set_notify_url(Storage& storage, const Caller& caller,
                                                 std::optional<std::string> url) const {
    if (url) {
        if (!url->empty())
            if (absl::Status allowed = check_notify_url(*url, options_.notify_hosts); !allowed.ok())
                return allowed;
        storage.set_notify_url(caller.user, *url);
    }
    return storage.find_notify_url(caller.user);
}

}  // namespace sparring::coordinator
