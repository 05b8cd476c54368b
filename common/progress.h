// The progress line of long work on the console: rewritten in place on a terminal, written
// now and then on a line of its own when standard error goes to a file or a pipe.
#pragma once

#include <chrono>
#include <ostream>
#include <string_view>

namespace sparring {

class ConsoleProgress {
  public:
    using Duration = std::chrono::steady_clock::duration;
    // An interval after which no line is ever due: off a terminal only forced lines appear.
    static constexpr Duration kNever = Duration::max();

    // Writes to standard error; off a terminal, a line is due once per interval.
    explicit ConsoleProgress(Duration interval = std::chrono::seconds(10));
    // Writes to out as to a terminal of the given width in columns (0: not a terminal).
    ConsoleProgress(std::ostream& out, int width, Duration interval);
    // Ends the line shown in place.
    ~ConsoleProgress();

    ConsoleProgress(const ConsoleProgress&) = delete;
    ConsoleProgress& operator=(const ConsoleProgress&) = delete;

    // Shows the line: in place on a terminal (cut to its width); elsewhere on a line of its
    // own when one is due or force is set.
    void show(std::string_view line, bool force = false);
    // Ends the line shown in place, so that what follows starts on a line of its own.
    void finish();
    // Returns whether the output is a terminal.
    bool terminal() const { return width_ > 0; }

  private:
    std::ostream& out_;
    int width_;
    Duration interval_;
    std::chrono::steady_clock::time_point last_line_;
    bool in_place_ = false;  // a line is shown in place and not ended yet
};

}  // namespace sparring
