// Openings between the protocol and common/opening.h.
#pragma once

#include "common/opening.h"
#include "sparring/v1/common.pb.h"

namespace sparring {

// Writes an opening into a message.
void opening_to_proto(const Opening& in, v1::Opening* out);
// Returns the opening of a message (checked where it is played: the FEN and the moves).
Opening opening_from_proto(const v1::Opening& in);

}  // namespace sparring
