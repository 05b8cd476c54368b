#include "coordinator/web/games_export.h"

#include <algorithm>
#include <charconv>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/dates.h"
#include "coordinator/rpc/game_export.h"
#include "coordinator/web/handlers.h"

namespace sparring::coordinator::web {

namespace {

// Returns a parameter's values: every occurrence, each split at commas.
std::vector<std::string> values(const HttpRequest& request, const std::string& name) {
    std::vector<std::string> out;
    const auto [first, last] = request.params.equal_range(name);
    for (auto it = first; it != last; ++it) {
        std::string_view text = it->second;
        for (;;) {
            const size_t comma = text.find(',');
            out.emplace_back(text.substr(0, comma));
            if (comma == std::string_view::npos) break;
            text.remove_prefix(comma + 1);
        }
    }
    return out;
}

// Returns the milliseconds of a since or until parameter (a date alone as until: the next
// midnight), 0 when absent; INVALID_ARGUMENT naming it otherwise.
absl::StatusOr<int64_t> time_param(const HttpRequest& request, const std::string& name) {
    const std::vector<std::string> texts = values(request, name);
    if (texts.empty()) return 0;
    if (texts.size() > 1) return absl::InvalidArgumentError(name + ": given more than once");
    bool date_only = false;
    const std::optional<int64_t> ms = utc_time_ms(texts[0], &date_only);
    if (!ms)
        return absl::InvalidArgumentError(
            name + ": '" + texts[0] +
            "' is no UTC time (YYYY-MM-DD, YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS)");
    return *ms + (name == "until" && date_only ? int64_t(86'400'000) : 0);
}

// Reads the selection from the request's parameters.
absl::Status read_selection(const HttpRequest& request, v1::ExportGamesStreamRequest* out) {
    static const std::vector<std::string> kKnown = {"run",    "version", "tc",   "kind",
                                                    "result", "since",   "until"};
    for (const auto& [name, value] : request.params)
        if (std::find(kKnown.begin(), kKnown.end(), name) == kKnown.end())
            return absl::InvalidArgumentError("unknown parameter '" + name +
                                              "' (run, version, tc, kind, result, since, until)");
    for (const std::string& text : values(request, "run")) {
        int64_t id = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
        if (error != std::errc() || end != text.data() + text.size() || id <= 0)
            return absl::InvalidArgumentError("run: '" + text + "' is no run id");
        out->add_run_ids(id);
    }
    for (const std::string& v : values(request, "version")) out->add_versions(v);
    for (const std::string& v : values(request, "tc")) out->add_time_controls(v);
    for (const std::string& v : values(request, "kind")) out->add_kinds(v);
    for (const std::string& v : values(request, "result")) out->add_results(v);
    const absl::StatusOr<int64_t> since = time_param(request, "since");
    if (!since.ok()) return since.status();
    const absl::StatusOr<int64_t> until = time_param(request, "until");
    if (!until.ok()) return until.status();
    out->set_since_unix_ms(*since);
    out->set_until_unix_ms(*until);
    return absl::OkStatus();
}

// Reads the next chunk of an export, waiting on this handler thread.
absl::Status read_chunk(UserApi& api, const Credential& credential,
                        const std::shared_ptr<GameExport>& games) {
    std::promise<absl::Status> done;
    std::future<absl::Status> status = done.get_future();
    api.export_chunk(credential, games, [&done](absl::Status s) { done.set_value(std::move(s)); });
    return status.get();
}

}  // namespace

void serve_games_export(UserApi& api, const Credential& credential, const HttpRequest& request,
                        HttpResponse& response) {
    // The caller first: the parameters are read only for a token that may read.
    std::promise<absl::Status> known;
    api.authenticate(credential, std::nullopt,
                     [&known](absl::Status s) { known.set_value(std::move(s)); });
    absl::Status status = known.get_future().get();
    v1::ExportGamesStreamRequest selection;
    if (status.ok()) status = read_selection(request, &selection);
    auto games = std::make_shared<GameExport>(std::move(selection));
    if (status.ok()) status = read_chunk(api, credential, games);
    if (!status.ok()) return reply_error(response, status);
    response.set_header("Content-Disposition", "attachment; filename=\"games.pgn.gz\"");
    response.set_header("Cache-Control", "private, no-store");
    // The first chunk is read (it checked the selection); each next one is read on a handler
    // thread once the one before has been written.
    response.set_pull("application/gzip",
                      [&api, credential, games, first = true](std::string* chunk) mutable {
                          for (;;) {
                              if (!first) {
                                  if (games->done()) {
                                      chunk->clear();  // an empty chunk: the end
                                      return true;
                                  }
                                  if (!read_chunk(api, credential, games).ok()) return false;
                              }
                              first = false;
                              *chunk = games->take_chunk();
                              if (!chunk->empty()) return true;
                          }
                      });
}

}  // namespace sparring::coordinator::web
