// The evidence of a faulty game: an engine's whole UCI exchange of the game (both directions,
// each line with its time from the game's start) and the tail of its stderr, kept by the UCI
// player and handed over with the game's result when the engine lost it by a fault.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sparring::match {

// The last `capacity` bytes written to it (an engine's stderr); safe to use from two threads
// (the reader draining the pipe, the player taking the evidence).
class ByteRing {
  public:
    explicit ByteRing(std::size_t capacity) : capacity_(capacity) {}
    // Appends bytes, dropping the oldest ones past the capacity.
    void append(std::string_view bytes);
    // Forgets everything (a new process).
    void clear();
    // Returns the bytes kept, oldest first.
    std::string text() const;
    // Returns how many bytes were ever appended since the last clear.
    std::uint64_t total() const;

  private:
    mutable std::mutex mutex_;
    std::size_t capacity_;
    std::string data_;  // a ring once full: next_ is where the oldest byte is
    std::size_t next_ = 0;
    std::uint64_t total_ = 0;
};

// One game's UCI exchange with an engine. Lines are written as "TIME > line" (sent to the
// engine) and "TIME < line" (read from it), TIME in ms from begin(). Bounded: the first
// kHeadBytes of it (the handshake, the options, the first moves) and its last kTailBytes are
// kept; what lies between is replaced by one line saying how many lines and bytes were left
// out. It also remembers the last `position` and `go` commands sent.
class Transcript {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kHeadBytes = 32 * 1024;
    static constexpr std::size_t kTailBytes = 224 * 1024;

    // Starts a new game's transcript at now.
    void begin();
    // Records a line sent to the engine (several when it holds newlines).
    void sent(std::string_view text);
    // Records a line read from the engine.
    void received(std::string_view line);

    // Returns the transcript's text, lines ending in '\n'.
    std::string text() const;
    // Returns whether no line was left out.
    bool complete() const { return dropped_lines_ == 0; }
    // The last `position` and `go` commands sent this game ("" when none).
    const std::string& last_position() const { return last_position_; }
    const std::string& last_go() const { return last_go_; }

  private:
    void add(char direction, std::string_view line);

    Clock::time_point start_ = Clock::now();
    std::string head_;
    std::deque<std::string> tail_;
    std::size_t tail_bytes_ = 0;
    std::uint64_t dropped_lines_ = 0;
    std::uint64_t dropped_bytes_ = 0;
    std::string last_position_;
    std::string last_go_;
};

// What a UCI engine that lost a game by a fault leaves behind: how it was run, what it was
// last asked, its UCI exchange of the game and its stderr's tail.
struct FaultEvidence {
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> options;  // as sent with setoption
    std::string position;                                      // the last `position` command sent
    std::string go;          // the `go` command that led to the fault
    std::string transcript;  // Transcript::text()
    bool transcript_complete = true;
    std::string stderr_tail;         // the last kStderrBytes of its stderr
    std::uint64_t stderr_bytes = 0;  // how many it wrote in all (this process)
    static constexpr std::size_t kStderrBytes = 64 * 1024;
};

struct UciSpec;
class ChildProcess;

// Returns the evidence of a UCI engine run as engine says, with its game's transcript and
// its process's stderr tail (the process stopped, or still running).
FaultEvidence uci_fault_evidence(const UciSpec& engine, const Transcript& transcript,
                                 const ChildProcess& process);

// The zlib streams evidence travels in: compress_evidence returns bytes' stream;
// inflate_evidence returns a stream's bytes, or nullopt when it is damaged or would inflate
// past max_bytes (a decompression bomb costs the reader max_bytes, not more).
std::string compress_evidence(std::string_view bytes);
std::optional<std::string> inflate_evidence(std::string_view stream, std::size_t max_bytes);

// Returns the sent lines of a transcript's text, in order (its "TIME > line" lines).
std::vector<std::string> sent_lines(std::string_view transcript);

}  // namespace sparring::match
