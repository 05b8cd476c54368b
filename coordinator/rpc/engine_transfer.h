// Engine files over gRPC: the client-streaming upload of UserService.UploadEngine (SHA-256
// computed as the chunks arrive and compared with the client's, archives checked, nothing
// stored unless all of it is right) and the server-streaming FetchEngine of workers,
// resumable from an offset. File I/O happens on the gRPC threads, SQLite on the executors.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

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
        std::chrono::seconds upload_idle{60};      // an upload sending nothing this long ends
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

    // Registers an authenticated upload, stamped as active now; false when
    // options().max_uploads are in progress already.
    bool begin_upload(const void* upload, grpc::CallbackServerContext* context);
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
        bool cancelled = false;
    };

    Options options_;
    mutable std::mutex mutex_;
    std::map<const void*, Upload> uploads_;  // by reactor
    Core& core_;
    Executor& writer_;
    Executor& reader_;
    EngineStore& store_;
};

}  // namespace sparring::coordinator
