#include "common/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>

#include "common/printable.h"

namespace sparring {

namespace {

// Returns the width of the terminal standard error writes to, or 0 when it is no terminal.
int stderr_width() {
    if (!isatty(STDERR_FILENO)) return 0;
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
    return size.ws_col;
}

}  // namespace

ConsoleProgress::ConsoleProgress(Duration interval)
    : ConsoleProgress(std::cerr, stderr_width(), interval) {}

ConsoleProgress::ConsoleProgress(std::ostream& out, int width, Duration interval)
    : out_(out), width_(width), interval_(interval), last_line_(std::chrono::steady_clock::now()) {}

ConsoleProgress::~ConsoleProgress() {
    finish();
}

void ConsoleProgress::show(std::string_view line, bool force) {
    if (terminal()) {
        // The last column stays free: a full line would wrap on some terminals.
        if (line.size() >= static_cast<std::size_t>(width_)) line = utf8_prefix(line, width_ - 1);
        out_ << '\r' << line << "\x1b[K" << std::flush;
        in_place_ = true;
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!force && (interval_ == kNever || now - last_line_ < interval_)) return;
    last_line_ = now;
    out_ << line << '\n' << std::flush;
}

void ConsoleProgress::finish() {
    if (in_place_) out_ << '\n' << std::flush;
    in_place_ = false;
}

}  // namespace sparring
