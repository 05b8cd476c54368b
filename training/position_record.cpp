#include "training/position_record.h"

#include <cstdint>

namespace sparring::training {

namespace {

constexpr std::uint8_t HAS_SCORE = 1;

// Decodes one record; false with *error naming what is wrong with it.
bool decode_record(std::string_view record, LabelledPosition* out, std::string* error) {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(record[i]); };
    for (std::size_t i = 0; i < out->position.bytes.size(); ++i) out->position.bytes[i] = byte(i);
    Board board;
    std::string why;
    if (!unpack_position(out->position, &board, &why)) {
        *error = why;
        return false;
    }
    // Only the canonical packing of the board is accepted, so that stored data is exactly
    // what packing the position gives (no stray bits in unused nibbles or padding).
    const std::optional<PackedPosition> canonical = pack_position(board);
    if (!canonical || *canonical != out->position) {
        *error = "the packed position is not in canonical form";
        return false;
    }
    if (byte(32) > 2) {
        *error = "bad result code " + std::to_string(byte(32));
        return false;
    }
    out->result = static_cast<Outcome>(byte(32));
    const auto score = static_cast<std::int16_t>(byte(34) | byte(35) << 8);
    if (byte(33) == HAS_SCORE) {
        out->score = score;
    } else if (byte(33) == 0 && score == 0) {
        out->score.reset();
    } else {
        *error = "bad score flags";
        return false;
    }
    return true;
}

}  // namespace

std::string encode_positions(std::span<const LabelledPosition> positions) {
    std::string bytes;
    bytes.reserve(positions.size() * POSITION_RECORD_BYTES);
    for (const LabelledPosition& p : positions) {
        bytes.append(reinterpret_cast<const char*>(p.position.bytes.data()),
                     p.position.bytes.size());
        const auto score = static_cast<std::uint16_t>(p.score.value_or(0));
        bytes += static_cast<char>(p.result);
        bytes += static_cast<char>(p.score ? HAS_SCORE : 0);
        bytes += static_cast<char>(score & 0xff);
        bytes += static_cast<char>(score >> 8);
    }
    return bytes;
}

bool decode_positions(std::string_view bytes, std::size_t count,
                      std::vector<LabelledPosition>* positions, std::string* error) {
    if (bytes.size() != count * POSITION_RECORD_BYTES) {
        *error = std::to_string(bytes.size()) + " bytes do not hold " + std::to_string(count) +
                 " positions of " + std::to_string(POSITION_RECORD_BYTES) + " bytes";
        return false;
    }
    std::vector<LabelledPosition> decoded(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::string why;
        if (!decode_record(bytes.substr(i * POSITION_RECORD_BYTES, POSITION_RECORD_BYTES),
                           &decoded[i], &why)) {
            *error = "position " + std::to_string(i + 1) + ": " + why;
            return false;
        }
    }
    positions->insert(positions->end(), decoded.begin(), decoded.end());
    return true;
}

}  // namespace sparring::training
