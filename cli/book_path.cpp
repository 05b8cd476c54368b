#include "cli/book_path.h"

#include <filesystem>
#include <system_error>

namespace sparring::cli {

std::string default_book_path() {
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path bin =
        error ? std::filesystem::current_path() : executable.parent_path();
    return (bin / SPARRING_BOOKS_FROM_BIN / "default.epd").lexically_normal().string();
}

}  // namespace sparring::cli
