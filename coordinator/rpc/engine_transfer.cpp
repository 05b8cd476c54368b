#include "coordinator/rpc/engine_transfer.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "common/dates.h"
#include "common/engine_archive.h"
#include "common/log.h"
#include "common/sha256.h"
#include "coordinator/domain/text.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

constexpr size_t kChunkBytes = 1 << 20;
constexpr size_t kMaxChunkBytes = 4 << 20;

// Returns a size in MiB for messages, rounded up (without overflow: 2^64-1 bytes is 2^44 MiB).
std::string mib(uint64_t bytes) {
    return std::to_string((bytes >> 20) + ((bytes & ((1 << 20) - 1)) != 0)) + " MiB";
}

// Receives one upload into a temporary file and stores it once every check has passed.
class UploadReactor final : public grpc::ServerReadReactor<v1::UploadEngineRequest> {
  public:
    UploadReactor(EngineTransfers& transfers, grpc::CallbackServerContext* context,
                  v1::UploadEngineResponse* response)
        : transfers_(transfers), response_(response) {
        transfers_.reader().submit(
            [this, &core = transfers_.core(), token = bearer_token(*context)](Storage& storage) {
                absl::StatusOr<Caller> caller = core.authenticate(storage, token, Role::User);
                if (!caller.ok()) return caller.status();
                caller_ = std::move(*caller);
                return absl::OkStatus();
            },
            [this, context](absl::Status status) {
                if (!status.ok()) return Finish(to_grpc(status));
                if (absl::Status begun = transfers_.begin_upload(this, context, caller_);
                    !begun.ok())
                    return Finish(to_grpc(begun));
                registered_ = true;
                StartRead(&chunk_);
            });
    }

    void OnReadDone(bool ok) override {
        // An exception let out on gRPC's thread would end the process.
        try {
            if (!ok) return complete();
            transfers_.upload_progressed(this);
            const bool first = temporary_.fd < 0;
            if (absl::Status status = take(); !status.ok()) return fail(status);
            if (first && caller_.role != Role::Admin) return reserve();
            StartRead(&chunk_);
        } catch (...) {
            log_unexpected_exception("engine upload");
            Finish(to_grpc(absl::InternalError("the coordinator failed to store the upload")));
        }
    }

    void OnDone() override {
        if (registered_) transfers_.end_upload(this);
        if (temporary_.fd >= 0) close(temporary_.fd);
        if (!temporary_.name.empty()) transfers_.store().remove_temporary(temporary_.name);
        delete this;
    }

  private:
    // Counts the size the first chunk announced against the user's quota of unreferenced bytes
    // (nothing when the same bytes are stored already), then reads on.
    void reserve() {
        transfers_.reader().submit(
            [this](Storage& storage) {
                stored_before_ = storage.find_engine(sha256_).has_value();
                held_ = EngineTransfers::unreferenced_bytes(storage, caller_.user);
                return absl::OkStatus();
            },
            [this](absl::Status status) {
                if (status.ok())
                    status = transfers_.reserve_bytes(this, stored_before_ ? 0 : size_, held_);
                if (!status.ok()) return fail(status);
                StartRead(&chunk_);
            });
    }

    // Checks and writes the chunk just read.
    absl::Status take() {
        if (temporary_.fd < 0) {
            const uint64_t max = transfers_.options().max_bytes;
            if (chunk_.size() > max)
                return absl::InvalidArgumentError(
                    "the engine file is " + mib(chunk_.size()) + " (" +
                    std::to_string(chunk_.size()) + " bytes), over this coordinator's limit of " +
                    mib(max) + " (its --max-engine-mb); nothing was stored");
            if (!is_sha256_hex(chunk_.sha256()))
                return absl::InvalidArgumentError(
                    "the first chunk of an upload gives the file's size and hex SHA-256");
            size_ = chunk_.size();
            sha256_ = chunk_.sha256();
            archive_ = chunk_.archive();
            std::string error;
            std::optional<EngineStore::Temporary> temporary =
                transfers_.store().create_temporary(&error);
            if (!temporary) return absl::InternalError(error);
            temporary_ = std::move(*temporary);
        } else if (chunk_.size() != 0 || !chunk_.sha256().empty()) {
            return absl::InvalidArgumentError("only the first chunk of an upload gives its size");
        }
        const std::string& data = chunk_.data();
        if (data.size() > kMaxChunkBytes)
            return absl::InvalidArgumentError("an upload chunk holds at most 4 MiB");
        if (received_ + data.size() > size_)
            return absl::InvalidArgumentError("the upload sends more bytes than the " +
                                              std::to_string(size_) + " it announced");
        if (write(temporary_.fd, data.data(), data.size()) != ssize_t(data.size()))
            return absl::InternalError("cannot write the engine file (disk full?)");
        digest_.update(data);
        received_ += data.size();
        return absl::OkStatus();
    }

    // Verifies the whole file, stores it under its hash and records it.
    void complete() {
        if (temporary_.fd < 0) return fail(absl::InvalidArgumentError("the upload sent no chunk"));
        if (received_ != size_)
            return fail(absl::InvalidArgumentError(
                "the upload ended after " + std::to_string(received_) + " of " +
                std::to_string(size_) + " bytes; nothing was stored"));
        const std::string computed = digest_.hex();
        if (computed != sha256_)
            return fail(absl::DataLossError("the coordinator computed SHA-256 " + computed +
                                            " but the client sent " + sha256_ +
                                            ": the file changed in transit; nothing was stored"));
        if (archive_) {
            // The file still open, read through its descriptor: whatever its name became.
            const std::string why =
                check_archive("/proc/self/fd/" + std::to_string(temporary_.fd), ArchiveLimits{});
            if (!why.empty())
                return fail(absl::InvalidArgumentError(
                    "unsafe or unreadable engine archive: " + why + "; nothing was stored"));
        }
        std::string error;
        if (!transfers_.store().install(temporary_, sha256_, &error))
            return fail(absl::InternalError(error));
        temporary_.name.clear();
        transfers_.writer().submit(
            [this](Storage& storage) {
                if (const auto known = storage.find_engine(sha256_)) {
                    if (known->archive != archive_)
                        return absl::AlreadyExistsError(
                            "these bytes were uploaded before as " +
                            std::string(known->archive ? "an archive" : "a single file"));
                    duplicate_ = true;
                    return absl::OkStatus();
                }
                // Counted again as it is recorded: the user's other uploads may have ended since.
                if (absl::Status quota = transfers_.check_quota(
                        caller_, EngineTransfers::unreferenced_bytes(storage, caller_.user), size_);
                    !quota.ok())
                    return quota;
                storage.insert_engine(
                    EngineFile{sha256_, size_, archive_, unix_now_ms(), caller_.user});
                return absl::OkStatus();
            },
            [this](absl::Status status) {
                if (!status.ok()) return Finish(to_grpc(status));
                log_event(LogLevel::Info, "engine_uploaded",
                          {{"sha256", sha256_},
                           {"size", std::to_string(size_)},
                           {"duplicate", duplicate_ ? "true" : "false"}});
                response_->set_sha256(sha256_);
                response_->set_size(size_);
                response_->set_duplicate(duplicate_);
                Finish(grpc::Status::OK);
            });
    }

    // Ends the call with an error; the temporary file goes when the call is done.
    void fail(const absl::Status& status) {
        log_event(LogLevel::Warn, "engine_upload_refused",
                  {{"error", std::string(status.message())}});
        Finish(to_grpc(status));
    }

    EngineTransfers& transfers_;
    v1::UploadEngineResponse* response_;
    v1::UploadEngineRequest chunk_;
    EngineStore::Temporary temporary_;  // removed when the call ends unless installed
    uint64_t size_ = 0;
    std::string sha256_;
    bool archive_ = false;
    uint64_t received_ = 0;
    Sha256 digest_;
    bool duplicate_ = false;
    bool registered_ = false;     // counted among the uploads in progress
    Caller caller_;               // who uploads
    uint64_t held_ = 0;           // the bytes of their files no version used at the first chunk
    bool stored_before_ = false;  // these bytes were stored when the first chunk came
};

// Streams one stored engine file from an offset, a chunk at a time.
class FetchReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
  public:
    // Takes the request as bytes: the caller's token is checked before they are parsed.
    FetchReactor(EngineTransfers& transfers, grpc::CallbackServerContext* context,
                 const grpc::ByteBuffer& request)
        : transfers_(transfers), request_(request) {
        transfers_.reader().submit(
            [this, &core = transfers_.core(), token = bearer_token(*context)](Storage& storage) {
                absl::StatusOr<Caller> caller = core.authenticate(storage, token, Role::Worker);
                if (!caller.ok()) return caller.status();
                v1::FetchEngineRequest parsed;
                if (!grpc::SerializationTraits<v1::FetchEngineRequest>::Deserialize(&request_,
                                                                                    &parsed)
                         .ok())
                    return absl::InvalidArgumentError(
                        "malformed request: not a sparring.v1.FetchEngineRequest");
                sha256_ = parsed.sha256();
                offset_ = parsed.offset();
                const std::optional<EngineFile> file = storage.find_engine(sha256_);
                if (!file) return absl::NotFoundError("no engine file " + excerpt(sha256_));
                size_ = file->size;
                return absl::OkStatus();
            },
            [this](absl::Status status) {
                if (!status.ok()) return Finish(to_grpc(status));
                if (offset_ > size_)
                    return Finish(to_grpc(absl::OutOfRangeError("offset past the file's end")));
                fd_ = transfers_.store().open_file(sha256_);
                if (fd_ < 0)
                    return Finish(
                        to_grpc(absl::DataLossError("the engine file " + sha256_ +
                                                    " is missing from the coordinator's disk, or "
                                                    "is not a regular file there")));
                transfers_.note_served("grpc", sha256_, offset_, size_ - offset_);
                next();
            });
    }

    void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the stream broke"));
        next();
    }

    void OnDone() override {
        if (fd_ >= 0) close(fd_);
        delete this;
    }

  private:
    // Sends the next chunk (send_next); an exception let out on gRPC's thread would end the
    // process, so it ends the call instead.
    void next() {
        try {
            send_next();
        } catch (...) {
            log_unexpected_exception("engine fetch");
            Finish(grpc::Status(grpc::StatusCode::INTERNAL, "the coordinator failed to send"));
        }
    }

    // Sends the next chunk, or finishes at the end of the file.
    void send_next() {
        std::string* data = chunk_.mutable_data();
        data->resize(kChunkBytes);
        const ssize_t n = pread(fd_, data->data(), kChunkBytes, off_t(offset_));
        if (n < 0) return Finish(grpc::Status(grpc::StatusCode::DATA_LOSS, "cannot read the file"));
        if (n == 0) return Finish(grpc::Status::OK);
        data->resize(size_t(n));
        chunk_.set_offset(offset_);
        chunk_.set_size(size_);
        offset_ += uint64_t(n);
        bool own = false;
        buffer_.Clear();  // the last chunk's bytes: serializing into a filled buffer aborts
        if (!grpc::SerializationTraits<v1::EngineChunk>::Serialize(chunk_, &buffer_, &own).ok())
            return Finish(grpc::Status(grpc::StatusCode::INTERNAL, "cannot serialize a chunk"));
        StartWrite(&buffer_);
    }

    EngineTransfers& transfers_;
    grpc::ByteBuffer request_;
    std::string sha256_;
    uint64_t offset_ = 0;
    uint64_t size_ = 0;
    int fd_ = -1;
    v1::EngineChunk chunk_;
    grpc::ByteBuffer buffer_;
};

}  // namespace

absl::Status EngineTransfers::begin_upload(const void* upload, grpc::CallbackServerContext* context,
                                           const Caller& caller) {
    std::lock_guard lock(mutex_);
    if (int(uploads_.size()) >= options_.max_uploads)
        return absl::ResourceExhaustedError(std::to_string(options_.max_uploads) +
                                            " uploads are in progress, this coordinator's limit; "
                                            "try again in a minute");
    if (caller.role != Role::Admin) {
        const auto users = std::count_if(uploads_.begin(), uploads_.end(), [&](const auto& entry) {
            return entry.second.caller.user == caller.user;
        });
        if (users >= options_.max_uploads_per_user)
            return absl::ResourceExhaustedError(
                "user '" + excerpt(caller.user) + "' has " + std::to_string(users) +
                " uploads in progress, the most one user may have at once on this coordinator "
                "(its --max-uploads-per-user); try again when one has ended");
    }
    uploads_[upload] = Upload{context, std::chrono::steady_clock::now(), caller};
    return absl::OkStatus();
}

absl::Status EngineTransfers::reserve_bytes(const void* upload, uint64_t bytes, uint64_t held) {
    std::lock_guard lock(mutex_);
    const auto it = uploads_.find(upload);
    if (it == uploads_.end()) return absl::OkStatus();
    const Caller& caller = it->second.caller;
    uint64_t in_progress = 0;
    for (const auto& [other, entry] : uploads_)
        if (other != upload && entry.caller.user == caller.user) in_progress += entry.bytes;
    // bytes is within --max-engine-mb already: no sum here overflows.
    if (absl::Status quota = check_quota(caller, held, bytes + in_progress); !quota.ok())
        return quota;
    it->second.bytes = bytes;
    return absl::OkStatus();
}

uint64_t EngineTransfers::unreferenced_bytes(VersionStore& versions, std::string_view user) {
    uint64_t bytes = 0;
    for (const EngineFile& file :
         versions.unreferenced_engines(std::numeric_limits<int64_t>::max()))
        if (file.uploader == user) bytes += file.size;
    return bytes;
}

absl::Status EngineTransfers::check_quota(const Caller& caller, uint64_t held,
                                          uint64_t bytes) const {
    const uint64_t limit = options_.max_unreferenced_bytes;
    if (caller.role == Role::Admin || (held <= limit && bytes <= limit - held))
        return absl::OkStatus();
    return absl::ResourceExhaustedError(
        "user '" + excerpt(caller.user) + "' has uploaded " + mib(held) +
        " of engine files that no version uses yet, and its uploads in progress would add " +
        mib(bytes) + ": past the " + mib(limit) +
        " one user may keep unused on this coordinator (its --max-unreferenced-engine-mb); add "
        "the versions that use them, or wait until they are collected; nothing was stored");
}

void EngineTransfers::upload_progressed(const void* upload) {
    std::lock_guard lock(mutex_);
    if (auto it = uploads_.find(upload); it != uploads_.end())
        it->second.last = std::chrono::steady_clock::now();
}

void EngineTransfers::end_upload(const void* upload) {
    std::lock_guard lock(mutex_);
    uploads_.erase(upload);
}

int EngineTransfers::uploads() const {
    std::lock_guard lock(mutex_);
    return int(uploads_.size());
}

int EngineTransfers::cancel_idle_uploads() {
    const auto before = std::chrono::steady_clock::now() - options_.upload_idle;
    int cancelled = 0;
    // Under the lock an upload's reactor, and so its context, cannot be deleted.
    std::lock_guard lock(mutex_);
    for (auto& [reactor, upload] : uploads_) {
        if (upload.cancelled || upload.last > before) continue;
        upload.cancelled = true;
        upload.context->TryCancel();
        ++cancelled;
    }
    if (cancelled)
        log_event(LogLevel::Warn, "engine_upload_idle",
                  {{"cancelled", std::to_string(cancelled)},
                   {"idle_seconds", std::to_string(options_.upload_idle.count())}});
    return cancelled;
}

void EngineTransfers::set_own_http(OwnHttp own) {
    std::lock_guard lock(mutex_);
    own_http_ = std::move(own);
}

void EngineTransfers::describe_urls(v1::RegisterResponse* response) const {
    std::lock_guard lock(mutex_);
    if (!options_.base_url.empty()) {
        response->set_engine_base_url(options_.base_url);
    } else if (!own_http_.public_base.empty()) {
        response->set_engine_base_url(own_http_.public_base);
        response->set_engine_base_is_coordinator(true);
    }
    response->set_engine_http_port(own_http_.port);
    response->set_engine_http_tls(own_http_.tls);
}

void EngineTransfers::note_served(std::string_view transport, std::string_view sha256,
                                  uint64_t offset, uint64_t bytes) const {
    log_event(LogLevel::Info, "engine_fetch",
              {{"transport", std::string(transport)},
               {"sha256", std::string(sha256)},
               {"offset", std::to_string(offset)},
               {"bytes", std::to_string(bytes)}});
    if (options_.served) options_.served(transport, bytes);
}

grpc::ServerReadReactor<v1::UploadEngineRequest>* EngineTransfers::upload(
    grpc::CallbackServerContext* context, v1::UploadEngineResponse* response) {
    return new UploadReactor(*this, context, response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* EngineTransfers::fetch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
    return new FetchReactor(*this, context, *request);
}

}  // namespace sparring::coordinator
