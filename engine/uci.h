// The UCI text protocol on top of the Engine facade: reads commands, searches on a
// thread of its own (so stop and isready are answered while searching), writes replies.
#pragma once

#include <iosfwd>

namespace sparring {

class Engine;

// Speaks UCI on in and out until `quit` or the end of input; returns the exit status.
int uci_loop(std::istream& in, std::ostream& out);
// Speaks UCI as above with an engine the caller keeps between sessions (the UCI fuzz target
// runs many, and a new engine's table costs more than a short session): the session starts
// it as a new engine, with default parameters and an empty table of the default size.
int uci_loop(std::istream& in, std::ostream& out, Engine& engine);

}  // namespace sparring
