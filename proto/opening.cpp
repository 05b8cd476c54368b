#include "proto/opening.h"

#include <string>

namespace sparring {

void opening_to_proto(const Opening& in, v1::Opening* out) {
    out->set_fen(in.fen);
    for (const std::string& move : in.moves) out->add_moves(move);
}

Opening opening_from_proto(const v1::Opening& in) {
    return Opening{in.fen(), {in.moves().begin(), in.moves().end()}};
}

}  // namespace sparring
