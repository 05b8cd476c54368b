// Engine files over gRPC: the client-streaming upload of UserService.UploadEngine (SHA-256
// computed as the chunks arrive and compared with the client's, archives checked, nothing
// stored unless all of it is right) and the server-streaming FetchEngine of workers,
// resumable from an offset. File I/O happens on the gRPC threads, SQLite on the executors.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "coordinator/domain/core.h"
#include "coordinator/storage/engine_store.h"
#include "coordinator/storage/executor.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

class EngineTransfers {
  public:
    struct Options {
        uint64_t max_bytes = uint64_t(256) << 20;  // largest engine file accepted
        int max_uploads = 4;                       // uploads at once; more are refused
        int max_uploads_per_user = 2;              // of them, one user's (admins: any)
        // The bytes of one user's uploaded files that no version uses yet (admins: any).
        uint64_t max_unreferenced_bytes = uint64_t(2048) << 20;
        std::chrono::seconds upload_idle{60};  // an upload sending nothing this long ends
        // Engines fetched by URL: an external base (--engine-base-url) holding the same files
        // at <base>/<sha256>; empty: none.
        std::string base_url;
        // Told of each fetch as its bytes start to go: "grpc" or "http", and how many.
        std::function<void(std::string_view transport, uint64_t bytes)> served;
    };
    // Where the coordinator itself serves engine files over HTTP (coordinator/engine_files.h).
    struct OwnHttp {
        uint32_t port = 0;        // 0: it serves none
        bool tls = false;         // HTTPS
        std::string public_base;  // <--public-url>/engines when that is set; empty: unknown
    };

    EngineTransfers(Options options, Core& core, Executor& writer, Executor& reader,
                    EngineStore& store)
        : options_(options), core_(core), writer_(writer), reader_(reader), store_(store) {}

    // Returns the reactor of an upload call (user token).
    grpc::ServerReadReactor<v1::UploadEngineRequest>* upload(grpc::CallbackServerContext* context,
                                                             v1::UploadEngineResponse* response);
    // Returns the reactor of a fetch call (worker token), its request still unparsed bytes.
    grpc::ServerWriteReactor<grpc::ByteBuffer>* fetch(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request);

    // Ends (cancels) the uploads that sent nothing for options().upload_idle; called by the
    // coordinator's maintenance loop. Returns how many it ended.
    int cancel_idle_uploads();
    // Returns the uploads in progress.
    int uploads() const;
    // Sets where the coordinator serves engine files itself, once its HTTP server is bound.
    void set_own_http(OwnHttp own);
    // Tells a registering worker where to fetch engine files by URL (RegisterResponse fields
    // 3-6): the external base when there is one (no token sent there), else the coordinator's
    // own public base (token sent), and its HTTP port for a worker to reach it by its host.
    void describe_urls(v1::RegisterResponse* response) const;
    // Notes a fetch's bytes starting to go over a transport ("grpc", "http"): logged and
    // counted (Options::served).
    void note_served(std::string_view transport, std::string_view sha256, uint64_t offset,
                     uint64_t bytes) const;

    // Registers an upload by an authenticated caller, stamped as active now; RESOURCE_EXHAUSTED
    // when options().max_uploads are in progress already, or the caller's max_uploads_per_user.
    absl::Status begin_upload(const void* upload, grpc::CallbackServerContext* context,
                              const Caller& caller);
    // Counts an upload's announced size against its user's quota of unreferenced bytes, of
    // which their stored files hold `held` (unreferenced_bytes); RESOURCE_EXHAUSTED when the
    // user's other uploads in progress and this one would pass it.
    absl::Status reserve_bytes(const void* upload, uint64_t bytes, uint64_t held);
    // Returns the bytes of a user's stored engine files that no version refers to.
    static uint64_t unreferenced_bytes(VersionStore& versions, std::string_view user);
    // Checks that a user holding `held` unreferenced bytes may store `bytes` more: the quota's
    // RESOURCE_EXHAUSTED message otherwise (admins: always OK).
    absl::Status check_quota(const Caller& caller, uint64_t held, uint64_t bytes) const;
    // Notes that an upload received a chunk.
    void upload_progressed(const void* upload);
    // Forgets an upload, before its reactor is deleted.
    void end_upload(const void* upload);

    const Options& options() const { return options_; }
    Core& core() { return core_; }
    Executor& writer() { return writer_; }
    Executor& reader() { return reader_; }
    EngineStore& store() { return store_; }

  private:
    struct Upload {
        grpc::CallbackServerContext* context;
        std::chrono::steady_clock::time_point last;  // when it began or last sent a chunk
        Caller caller;
        uint64_t bytes = 0;  // announced, once its first chunk came
        bool cancelled = false;
    };

    Options options_;
    mutable std::mutex mutex_;
    std::map<const void*, Upload> uploads_;  // by reactor
    OwnHttp own_http_;                       // under mutex_
    Core& core_;
    Executor& writer_;
    Executor& reader_;
    EngineStore& store_;
};

}  // namespace sparring::coordinator
