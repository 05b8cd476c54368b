#include "worker/engine_url.h"

// cpp-httplib's pkg-config flags turn on HTTPS (CPPHTTPLIB_OPENSSL_SUPPORT).
#include <httplib.h>

#include <charconv>
#include <utility>

namespace sparring::worker {

namespace {

// Reads the first byte of a 206's Content-Range ("bytes FIRST-LAST/SIZE"); nullopt when it is
// not one.
std::optional<uint64_t> range_start(const std::string& content_range) {
    constexpr std::string_view unit = "bytes ";
    if (content_range.compare(0, unit.size(), unit) != 0) return std::nullopt;
    uint64_t first = 0;
    const char* begin = content_range.data() + unit.size();
    const char* end = content_range.data() + content_range.size();
    const auto [at, ec] = std::from_chars(begin, end, first);
    if (ec != std::errc() || at == end || *at != '-') return std::nullopt;
    return first;
}

}  // namespace

bool split_url(std::string_view url, std::string* origin, std::string* path) {
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return false;
    const std::string_view scheme = url.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") return false;
    const size_t slash = url.find('/', scheme_end + 3);
    const std::string_view authority =
        url.substr(scheme_end + 3, slash == url.npos ? url.npos : slash - scheme_end - 3);
    if (authority.empty() || authority.find_first_of("@?# ") != std::string_view::npos)
        return false;
    *origin = std::string(url.substr(0, scheme_end + 3)) + std::string(authority);
    *path = slash == url.npos ? "" : std::string(url.substr(slash));
    while (!path->empty() && path->back() == '/') path->pop_back();
    return true;
}

std::optional<EngineBase> engine_base(const v1::RegisterResponse& registered,
                                      std::string_view coordinator_address,
                                      std::string_view override_url) {
    // The coordinator's own base: the one it announced as itself, or its HTTP port at the host
    // the worker reaches it by.
    std::optional<std::string> own;
    if (!registered.engine_base_url().empty() && registered.engine_base_is_coordinator()) {
        own = registered.engine_base_url();
    } else if (registered.engine_http_port() != 0) {
        const size_t colon = coordinator_address.rfind(':');
        const std::string_view host = colon == std::string_view::npos
                                          ? coordinator_address
                                          : coordinator_address.substr(0, colon);
        if (!host.empty())
            own = std::string(registered.engine_http_tls() ? "https://" : "http://") +
                  std::string(host) + ":" + std::to_string(registered.engine_http_port()) +
                  "/engines";
    }
    if (override_url == "grpc") return std::nullopt;
    if (!override_url.empty()) {
        std::string url(override_url);
        while (!url.empty() && url.back() == '/') url.pop_back();
        std::string origin, path, own_origin, own_path;
        const bool same_origin = own && split_url(url, &origin, &path) &&
                                 split_url(*own, &own_origin, &own_path) && origin == own_origin;
        return EngineBase{url, same_origin};
    }
    if (!registered.engine_base_url().empty())
        return EngineBase{registered.engine_base_url(), registered.engine_base_is_coordinator()};
    if (own) return EngineBase{*own, true};
    return std::nullopt;
}

void EngineUrlFetcher::set_base(std::optional<EngineBase> base) {
    std::lock_guard lock(mutex_);
    base_ = std::move(base);
}

std::optional<EngineBase> EngineUrlFetcher::base() const {
    std::lock_guard lock(mutex_);
    return base_;
}

EngineCache::FetchResult EngineUrlFetcher::fetch(
    const std::string& sha256, uint64_t offset,
    const std::function<bool(std::string_view)>& write) const {
    const std::optional<EngineBase> from = base();
    EngineCache::FetchResult result;
    if (!from) {
        result.unavailable = true;
        result.error = "no engine URL";
        return result;
    }
    std::string origin, path;
    if (!split_url(from->url, &origin, &path)) {
        result.error = "the engine URL " + from->url + " is not an http:// or https:// URL";
        return result;
    }
    const std::string url = from->url + "/" + sha256;
    httplib::Client client(origin);
    client.set_connection_timeout(kConnectTimeout);
    client.set_read_timeout(kReadTimeout);
    // A redirect could lead to another host: followed only where no token is sent.
    client.set_follow_location(!from->send_token);
    if (from->send_token && !tls_ca_file_.empty() && origin.rfind("https://", 0) == 0)
        client.set_ca_cert_path(tls_ca_file_);
    httplib::Headers headers = {{"User-Agent", "sparring-worker"}};
    if (offset > 0) headers.emplace("Range", "bytes=" + std::to_string(offset) + "-");
    if (from->send_token) headers.emplace("Authorization", "Bearer " + token_);

    int status = 0;
    std::string refusal;  // why the answer's head was refused
    uint64_t skip = 0;    // bytes of a whole-file answer before the offset
    bool wrote = false;
    bool write_refused = false;
    const httplib::Result answer = client.Get(
        path + "/" + sha256, headers,
        [&](const httplib::Response& response) {
            status = response.status;
            if (status == 200) {
                skip = offset;  // a server that ignores ranges sends the whole file
                return true;
            }
            if (status == 206) {
                if (range_start(response.get_header_value("Content-Range")) == offset) return true;
                refusal = "a 206 whose Content-Range '" +
                          response.get_header_value("Content-Range") + "' does not start at byte " +
                          std::to_string(offset);
                return false;
            }
            refusal = "HTTP " + std::to_string(status);
            if (status == 401 || status == 403)
                refusal += from->send_token ? " (the worker token was refused)"
                                            : " (no token is sent to an external base)";
            return false;
        },
        [&](const char* data, size_t length) {
            std::string_view bytes(data, length);
            const size_t skipped = size_t(std::min<uint64_t>(skip, bytes.size()));
            skip -= skipped;
            bytes.remove_prefix(skipped);
            if (bytes.empty()) return true;
            wrote = true;
            if (!write(bytes)) {
                write_refused = true;
                return false;
            }
            return true;
        });
    if (answer && (status == 200 || status == 206) && skip == 0) {
        result.ok = true;
        return result;
    }
    if (!refusal.empty())
        result.error = refusal + " from " + url;
    else if (write_refused)
        result.error = "more bytes than the engine has from " + url;
    else if (!answer)
        result.error = httplib::to_string(answer.error()) + " fetching " + url;
    else
        result.error =
            "an answer shorter than the offset " + std::to_string(offset) + " from " + url;
    // Broken off after some bytes came: resumed from where it stopped.
    result.transient = wrote && !write_refused && refusal.empty();
    return result;
}

}  // namespace sparring::worker
