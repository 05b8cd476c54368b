// Conversion of imported labelled positions (the specs, statuses and leases of the self-play
// kinds are their modules').
#include "common/printable.h"
#include "coordinator/rpc/convert.h"
#include "training/position_record.h"

namespace sparring::coordinator {

absl::StatusOr<ImportChunk> import_chunk_from_proto(const v1::ImportPositionsRequest& in) {
    constexpr uint32_t kMaxChunk = 65536;
    if (in.count() > kMaxChunk)
        return absl::InvalidArgumentError("an import chunk holds at most 65536 positions");
    std::vector<training::LabelledPosition> positions;
    std::string error;
    if (!training::decode_positions(in.positions(), in.count(), &positions, &error))
        return absl::InvalidArgumentError("chunk " + std::to_string(in.chunk()) +
                                          ": malformed positions: " + error);
    ImportChunk chunk;
    chunk.run_id = in.run_id();
    chunk.version = in.version();
    chunk.source = valid_utf8(in.source());
    chunk.chunk = in.chunk();
    chunk.data = in.positions();
    chunk.count = in.count();
    chunk.done = in.done();
    chunk.key = in.import_key();
    return chunk;
}

}  // namespace sparring::coordinator
