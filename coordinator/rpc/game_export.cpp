#include "coordinator/rpc/game_export.h"

#include <grpcpp/impl/codegen/proto_utils.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "client/connection.h"
#include "common/time_control.h"
#include "coordinator/domain/core.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/gate.h"

namespace sparring::coordinator {

namespace {

// The run kinds by the names `sparring submit` gives them (and `runs` shows).
constexpr std::array<std::pair<std::string_view, RunKind>, 7> kKindNames = {{
    {"sprt", RunKind::Regression},
    {"regression", RunKind::Regression},
    {"fixed", RunKind::FixedGames},
    {"tune", RunKind::Tune},
    {"generate", RunKind::Generate},
    {"train", RunKind::Train},
    {"chain", RunKind::Chain},
}};

// The results' bits (ExportFilter::results): bit 2 * outcome + test_white, outcome 0 for the
// test version's win, 1 draw, 2 loss.
constexpr uint32_t bit(int outcome, bool test_white) {
    return uint32_t(1) << (2 * outcome + (test_white ? 1 : 0));
}
constexpr std::array<std::pair<std::string_view, uint32_t>, 6> kResults = {{
    {"win", bit(0, false) | bit(0, true)},
    {"draw", bit(1, false) | bit(1, true)},
    {"loss", bit(2, false) | bit(2, true)},
    {"1-0", bit(0, true) | bit(2, false)},
    {"1/2-1/2", bit(1, false) | bit(1, true)},
    {"0-1", bit(0, false) | bit(2, true)},
}};

}  // namespace

absl::Status GameExport::resolve(Storage& storage) {
    const v1::ExportGamesStreamRequest& s = selection_;
    for (int64_t id : s.run_ids()) {
        if (id <= 0)
            return absl::InvalidArgumentError("run: " + std::to_string(id) + " is no run id");
        if (!storage.find_run(id))
            return absl::NotFoundError("run: no run " + std::to_string(id) +
                                       " (see `sparring runs`)");
        filter_.run_ids.push_back(id);
    }
    for (const std::string& name : s.versions()) {
        const std::optional<Version> version = storage.find_version(name);
        if (!version)
            return absl::NotFoundError("version: no version '" + name +
                                       "' (see `sparring versions`)");
        filter_.version_ids.push_back(version->id);
    }
    for (const std::string& text : s.time_controls()) {
        std::string error;
        const std::optional<TimeControl> tc = parse_time_control(text, &error);
        if (!tc)
            return absl::InvalidArgumentError("tc: '" + text + "' is no time control: " + error);
        // As submit stores it: "10+0.10" selects the runs of "10+0.1".
        filter_.time_controls.push_back(tc->to_string());
    }
    for (const std::string& name : s.kinds()) {
        const auto* found = std::find_if(kKindNames.begin(), kKindNames.end(),
                                         [&name](const auto& k) { return k.first == name; });
        if (found == kKindNames.end())
            return absl::InvalidArgumentError(
                "kind: '" + name + "' is no run kind (sprt, fixed, tune, generate, train, chain)");
        filter_.kinds.push_back(found->second);
    }
    if (s.results_size() > 0) filter_.results = 0;
    for (const std::string& name : s.results()) {
        const auto* found = std::find_if(kResults.begin(), kResults.end(),
                                         [&name](const auto& r) { return r.first == name; });
        if (found == kResults.end())
            return absl::InvalidArgumentError(
                "result: '" + name +
                "' is no result (win, draw, loss: the test version's; 1-0, 1/2-1/2, 0-1)");
        filter_.results |= found->second;
    }
    if (s.since_unix_ms() < 0 || s.until_unix_ms() < 0)
        return absl::InvalidArgumentError("since, until: a time before 1970");
    if (s.since_unix_ms() > 0 && s.until_unix_ms() > 0 && s.since_unix_ms() >= s.until_unix_ms())
        return absl::InvalidArgumentError("since: not before until (nothing is between them)");
    filter_.since_ms = s.since_unix_ms();
    filter_.until_ms = s.until_unix_ms();
    runs_ = storage.export_runs(filter_);
    return absl::OkStatus();
}

absl::Status GameExport::read(Storage& storage) {
    if (done_) return absl::OkStatus();
    if (!started_) {
        if (absl::Status status = resolve(storage); !status.ok()) return status;
        started_ = true;
    }
    int games = 0;
    size_t bytes = 0;
    std::string pgn;
    while (next_run_ < runs_.size() && games < kChunkGames && bytes <= kChunkBytes) {
        const int limit = kChunkGames - games;
        const std::vector<ExportedGame> page = storage.export_games(
            runs_[next_run_], after_game_, filter_, limit, kChunkBytes - bytes);
        size_t page_bytes = 0;
        for (const ExportedGame& game : page) {
            pgn = game.pgn;
            if (!pgn.empty() && pgn.back() != '\n') pgn += '\n';
            pgn += '\n';
            gzip_.write(pgn, &chunk_);
            page_bytes += game.pgn.size();
            after_game_ = int64_t(game.game);
        }
        games += int(page.size());
        bytes += page_bytes;
        games_ += page.size();
        // Fewer games than asked for, none cut off by the bytes: the run has no more.
        if (int(page.size()) < limit && page_bytes <= kChunkBytes - (bytes - page_bytes)) {
            ++next_run_;
            after_game_ = -1;
        }
    }
    if (next_run_ >= runs_.size()) {
        gzip_.finish(&chunk_);
        done_ = true;
    } else {
        gzip_.flush(&chunk_);
    }
    return absl::OkStatus();
}

void UserApi::export_chunk(const Credential& credential, std::shared_ptr<GameExport> games,
                           Done done) {
    Executor::Job job = [this, credential, games](Storage& storage) {
        if (!credential.public_queries) {
            absl::StatusOr<Caller> caller =
                core_.authenticate(storage, credential.token, std::nullopt);
            if (!caller.ok()) return caller.status();
        }
        return games->read(storage);
    };
    if (games->started())
        reader_.submit(std::move(job), std::move(done));
    else
        reader_.offer(std::move(job), std::move(done));
}

namespace {

// One ExportGamesStream call: authenticate the caller, then parse the request (a caller without
// a valid token learns nothing but that), then read a chunk on the reader, write it, and only
// then read the next, so that one chunk at most is held; the call ends after the chunk with
// gzip's trailer, at the first error, or when the client cancels.
class ExportReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
  public:
    ExportReactor(UserApi& api, grpc::CallbackServerContext* context,
                  const grpc::ByteBuffer& request)
        : api_(api),
          context_(context),
          credential_{bearer_token(*context), false, context->peer()},
          request_(request) {
        api_.authenticate(credential_, std::nullopt, [this](absl::Status status) {
            if (!status.ok()) return finish(status);
            v1::ExportGamesStreamRequest selection;
            if (!grpc::SerializationTraits<v1::ExportGamesStreamRequest>::Deserialize(&request_,
                                                                                      &selection)
                     .ok())
                return finish(absl::InvalidArgumentError(
                    "malformed request: not a sparring.v1.ExportGamesStreamRequest"));
            games_ = std::make_shared<GameExport>(std::move(selection));
            read_next();
        });
    }

    void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
        if (games_->done()) return Finish(grpc::Status::OK);
        read_next();
    }
    void OnDone() override { delete this; }

  private:
    void finish(const absl::Status& status) {
        if (const std::optional<std::chrono::milliseconds> wait = Executor::retry_after(status))
            context_->AddTrailingMetadata(rpc::kRetryAfterKey, std::to_string(wait->count()));
        Finish(to_grpc(status));
    }

    void read_next() {
        if (context_->IsCancelled())
            return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
        api_.export_chunk(credential_, games_, [this](absl::Status status) {
            if (!status.ok()) return finish(status);
            v1::ExportGamesStreamChunk chunk;
            chunk.set_gzip(games_->take_chunk());
            chunk.set_games(games_->games());
            bool own = false;
            buffer_.Clear();
            if (!grpc::SerializationTraits<v1::ExportGamesStreamChunk>::Serialize(chunk, &buffer_,
                                                                                  &own)
                     .ok())
                return finish(absl::InternalError("cannot serialize a chunk of the export"));
            StartWrite(&buffer_);
        });
    }

    UserApi& api_;
    grpc::CallbackServerContext* context_;
    Credential credential_;
    grpc::ByteBuffer request_;
    std::shared_ptr<GameExport> games_;
    grpc::ByteBuffer buffer_;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* export_games_stream(
    UserApi& api, grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
    return new ExportReactor(api, context, *request);
}

}  // namespace sparring::coordinator
