// Where the CLI finds the opening book it ships: share/sparring/books beside its bin directory,
// which `cmake --install` lays out and the build tree copies.
#pragma once

#include <string>

namespace sparring::cli {

// Returns the path of the shipped default book, relative to the running executable.
std::string default_book_path();

}  // namespace sparring::cli
