// Labelled positions as bytes, for the wire and the database: the coordinator stores what
// workers report in this form and hands it back for export and training. A record is the
// 32-byte PackedPosition, the result (0 black wins, 1 draw, 2 white wins), a flags byte
// (bit 0: a score follows) and white's score in centipawns (int16, little endian; 0 when
// there is none): 36 bytes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "training/labelled_position.h"

namespace sparring::training {

inline constexpr std::size_t POSITION_RECORD_BYTES = 36;

// Returns the positions as consecutive records.
std::string encode_positions(std::span<const LabelledPosition> positions);
// Appends count records of bytes to *positions; false with *error (nothing appended) when
// the size does not match the count or a record is not exactly what encode_positions writes
// for a legal position: forged or damaged data is refused, not trusted.
bool decode_positions(std::string_view bytes, std::size_t count,
                      std::vector<LabelledPosition>* positions, std::string* error);

}  // namespace sparring::training
