// Engine files over gRPC: the client-streaming upload of UserService.UploadEngine (SHA-256
// computed as the chunks arrive and compared with the client's, archives checked, nothing
// stored unless all of it is right) and the server-streaming FetchEngine of workers,
// resumable from an offset. File I/O happens on the gRPC threads, SQLite on the executors.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>

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

    const Options& options() const { return options_; }
    Core& core() { return core_; }
    Executor& writer() { return writer_; }
    Executor& reader() { return reader_; }
    EngineStore& store() { return store_; }

  private:
    Options options_;
    Core& core_;
    Executor& writer_;
    Executor& reader_;
    EngineStore& store_;
};

}  // namespace sparring::coordinator
