// Bulk export of games across runs as one .pgn.gz stream (UserService.ExportGamesStream and
// the REST route /api/v1/games.pgn.gz): the selection is checked and resolved in the first
// read transaction, then the games are read a chunk at a time, each chunk in a read
// transaction of its own, compressed and handed on before the next is read. At most one
// chunk of games is held in memory, whatever the export's size.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/domain/game_export.h"
#include "coordinator/domain/storage.h"
#include "coordinator/rpc/user_api.h"
#include "coordinator/storage/gzip_stream.h"
#include "sparring/v1/user.pb.h"

namespace sparring::coordinator {

class GameExport {
  public:
    // Games and PGN bytes a chunk holds at most (a chunk stops after the game that passes
    // kChunkBytes).
    static constexpr int kChunkGames = 500;
    static constexpr size_t kChunkBytes = size_t(1) << 20;

    explicit GameExport(v1::ExportGamesStreamRequest selection)
        : selection_(std::move(selection)) {}

    // Reads the next chunk, in the caller's read transaction. The first call checks and
    // resolves the selection: INVALID_ARGUMENT (a bad value, named as the REST parameter
    // that gives it: run, version, tc, since, until, result, kind) or NOT_FOUND (an unknown
    // run or version) before any game is read.
    absl::Status read(Storage& storage);
    // Returns the gzip bytes the last read made, and forgets them.
    std::string take_chunk() { return std::move(chunk_); }
    // Whether the stream has ended (the last chunk holds gzip's trailer).
    bool done() const { return done_; }
    // Whether the selection was resolved (the first read succeeded).
    bool started() const { return started_; }
    // Games written so far.
    uint64_t games() const { return games_; }

  private:
    absl::Status resolve(Storage& storage);

    v1::ExportGamesStreamRequest selection_;
    ExportFilter filter_;
    std::vector<int64_t> runs_;
    size_t next_run_ = 0;      // index in runs_ of the run being read
    int64_t after_game_ = -1;  // the last game read of that run
    GzipStream gzip_;
    std::string chunk_;
    uint64_t games_ = 0;
    bool started_ = false;
    bool done_ = false;
};

// Returns the reactor of an ExportGamesStream call, its request still unparsed bytes: the
// caller's token is checked first, then the request is parsed, then each chunk is read through
// UserApi::export_chunk (which authenticates again) and written before the next is read.
grpc::ServerWriteReactor<grpc::ByteBuffer>* export_games_stream(
    UserApi& api, grpc::CallbackServerContext* context, const grpc::ByteBuffer* request);

}  // namespace sparring::coordinator
