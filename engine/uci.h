// The UCI text protocol on top of the Engine facade: reads commands, searches on a
// thread of its own (so stop and isready are answered while searching), writes replies.
#pragma once

#include <iosfwd>

namespace sparring {

// Speaks UCI on in and out until `quit` or the end of input; returns the exit status.
int uci_loop(std::istream& in, std::ostream& out);

}  // namespace sparring
