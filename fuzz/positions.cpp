// Training positions: with an even first byte the rest is a text file (fen, epd and
// fen-score lines), with an odd one a run of 36-byte records. Whatever is accepted writes
// back, in every format that can hold it, as text or records that read as the same positions.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/board.h"
#include "fuzz/check.h"
#include "training/packed_position.h"
#include "training/position_io.h"
#include "training/position_record.h"

using namespace sparring;
using namespace sparring::training;

namespace {

bool same(const LabelledPosition& a, const LabelledPosition& b) {
    return a.position == b.position && a.result == b.result && a.score == b.score;
}

// Checks that positions survive every text format that can hold them, and the records.
void check_round_trips(const std::vector<LabelledPosition>& positions) {
    for (const LabelledPosition& position : positions) {
        Board board;
        FUZZ_CHECK(unpack_position(position.position, &board));
        for (PositionFormat format :
             {PositionFormat::Fen, PositionFormat::Epd, PositionFormat::FenScore}) {
            std::string error;
            const auto line = format_labelled_line(position, format, &error);
            if (!line) {
                FUZZ_CHECK(!error.empty());
                continue;
            }
            const auto read = parse_labelled_line(*line, &error);
            FUZZ_CHECK(read);
            // The fen format keeps no score.
            FUZZ_CHECK(read->position == position.position && read->result == position.result);
            if (format != PositionFormat::Fen) FUZZ_CHECK(read->score == position.score);
        }
    }
    const std::string bytes = encode_positions(positions);
    FUZZ_CHECK(bytes.size() == positions.size() * POSITION_RECORD_BYTES);
    std::vector<LabelledPosition> decoded;
    std::string error;
    FUZZ_CHECK(decode_positions(bytes, positions.size(), &decoded, &error));
    FUZZ_CHECK(decoded.size() == positions.size());
    for (std::size_t i = 0; i < decoded.size(); ++i) FUZZ_CHECK(same(decoded[i], positions[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool records = (data[0] & 1) != 0;
    const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::vector<LabelledPosition> positions;
    std::string error;
    if (records) {
        const std::size_t count = body.size() / POSITION_RECORD_BYTES;
        if (!decode_positions(body, count, &positions, &error)) {
            FUZZ_CHECK(!error.empty() && positions.empty());
            return 0;
        }
        FUZZ_CHECK(body.size() == count * POSITION_RECORD_BYTES);
        FUZZ_CHECK(encode_positions(positions) == body);
    } else {
        std::istringstream in{std::string(body)};
        if (!read_positions(in, "fuzz", &positions, &error)) FUZZ_CHECK(!error.empty());
    }
    check_round_trips(positions);
    return 0;
}
