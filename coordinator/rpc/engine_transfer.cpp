#include "coordinator/rpc/engine_transfer.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

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

// Returns milliseconds since the Unix epoch.
int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Returns a size in MiB for messages, rounded up.
std::string mib(uint64_t bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// Receives one upload into a temporary file and stores it once every check has passed.
class UploadReactor final : public grpc::ServerReadReactor<v1::UploadEngineRequest> {
  public:
    UploadReactor(EngineTransfers& transfers, grpc::CallbackServerContext* context,
                  v1::UploadEngineResponse* response)
        : transfers_(transfers), response_(response) {
        transfers_.reader().submit(
            [&core = transfers_.core(), token = bearer_token(*context)](Storage& storage) {
                return core.authenticate(storage, token, Role::User).status();
            },
            [this, context](absl::Status status) {
                if (!status.ok()) return Finish(to_grpc(status));
                if (!transfers_.begin_upload(this, context))
                    return Finish(to_grpc(absl::ResourceExhaustedError(
                        std::to_string(transfers_.options().max_uploads) +
                        " uploads are in progress, this coordinator's limit; try again in a "
                        "minute")));
                registered_ = true;
                StartRead(&chunk_);
            });
    }

    void OnReadDone(bool ok) override {
        // An exception let out on gRPC's thread would end the process.
        try {
            if (!ok) return complete();
            transfers_.upload_progressed(this);
            if (absl::Status status = take(); !status.ok()) return fail(status);
            StartRead(&chunk_);
        } catch (...) {
            log_unexpected_exception("engine upload");
            Finish(to_grpc(absl::InternalError("the coordinator failed to store the upload")));
        }
    }

    void OnDone() override {
        if (registered_) transfers_.end_upload(this);
        if (fd_ >= 0) close(fd_);
        std::error_code ignored;
        if (!temporary_.empty()) std::filesystem::remove(temporary_, ignored);
        delete this;
    }

  private:
    // Checks and writes the chunk just read.
    absl::Status take() {
        if (fd_ < 0) {
            const uint64_t max = transfers_.options().max_bytes;
            if (chunk_.size() > max)
                return absl::InvalidArgumentError("the engine file is " + mib(chunk_.size()) +
                                                  ", over this coordinator's limit of " + mib(max) +
                                                  " (its --max-engine-mb); nothing was stored");
            if (!is_sha256_hex(chunk_.sha256()))
                return absl::InvalidArgumentError(
                    "the first chunk of an upload gives the file's size and hex SHA-256");
            size_ = chunk_.size();
            sha256_ = chunk_.sha256();
            archive_ = chunk_.archive();
            std::string error;
            const auto path = transfers_.store().create_temporary(&fd_, &error);
            if (!path) return absl::InternalError(error);
            temporary_ = *path;
        } else if (chunk_.size() != 0 || !chunk_.sha256().empty()) {
            return absl::InvalidArgumentError("only the first chunk of an upload gives its size");
        }
        const std::string& data = chunk_.data();
        if (data.size() > kMaxChunkBytes)
            return absl::InvalidArgumentError("an upload chunk holds at most 4 MiB");
        if (received_ + data.size() > size_)
            return absl::InvalidArgumentError("the upload sends more bytes than the " +
                                              std::to_string(size_) + " it announced");
        if (write(fd_, data.data(), data.size()) != ssize_t(data.size()))
            return absl::InternalError("cannot write the engine file (disk full?)");
        digest_.update(data);
        received_ += data.size();
        return absl::OkStatus();
    }

    // Verifies the whole file, stores it under its hash and records it.
    void complete() {
        if (fd_ < 0) return fail(absl::InvalidArgumentError("the upload sent no chunk"));
        if (received_ != size_)
            return fail(absl::InvalidArgumentError(
                "the upload ended after " + std::to_string(received_) + " of " +
                std::to_string(size_) + " bytes; nothing was stored"));
        const std::string computed = digest_.hex();
        if (computed != sha256_)
            return fail(absl::DataLossError("the coordinator computed SHA-256 " + computed +
                                            " but the client sent " + sha256_ +
                                            ": the file changed in transit; nothing was stored"));
        close(fd_);
        fd_ = -1;
        if (archive_) {
            const std::string why = check_archive(temporary_, ArchiveLimits{});
            if (!why.empty())
                return fail(absl::InvalidArgumentError(
                    "unsafe or unreadable engine archive: " + why + "; nothing was stored"));
        }
        std::string error;
        if (!transfers_.store().install(temporary_, sha256_, &error))
            return fail(absl::InternalError(error));
        temporary_.clear();
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
                storage.insert_engine(EngineFile{sha256_, size_, archive_, wall_clock_ms()});
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
    int fd_ = -1;
    std::string temporary_;  // removed when the call ends unless installed
    uint64_t size_ = 0;
    std::string sha256_;
    bool archive_ = false;
    uint64_t received_ = 0;
    Sha256 digest_;
    bool duplicate_ = false;
    bool registered_ = false;  // counted among the uploads in progress
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
                fd_ = open(transfers_.store().path_of(sha256_).c_str(), O_RDONLY | O_CLOEXEC);
                if (fd_ < 0)
                    return Finish(to_grpc(absl::DataLossError(
                        "the engine file " + sha256_ + " is missing from the coordinator's disk")));
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

bool EngineTransfers::begin_upload(const void* upload, grpc::CallbackServerContext* context) {
    std::lock_guard lock(mutex_);
    if (int(uploads_.size()) >= options_.max_uploads) return false;
    uploads_[upload] = Upload{context, std::chrono::steady_clock::now()};
    return true;
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

grpc::ServerReadReactor<v1::UploadEngineRequest>* EngineTransfers::upload(
    grpc::CallbackServerContext* context, v1::UploadEngineResponse* response) {
    return new UploadReactor(*this, context, response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* EngineTransfers::fetch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
    return new FetchReactor(*this, context, *request);
}

}  // namespace sparring::coordinator
