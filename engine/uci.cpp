#include "engine/uci.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <condition_variable>
#include <functional>
#include <istream>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "engine/notation.h"
#include "engine/params.h"

namespace sparring {

namespace {

constexpr int HASH_DEFAULT_MB = 16;
constexpr int HASH_MAX_MB = 4096;
constexpr int OVERHEAD_DEFAULT_MS = 30;
constexpr int OVERHEAD_MAX_MS = 5000;

// Returns the words of a line.
std::vector<std::string> split_words(const std::string& line) {
    std::istringstream stream(line);
    std::vector<std::string> words;
    for (std::string w; stream >> w;) words.push_back(w);
    return words;
}

// Parses a whole word as a 64-bit integer, or nullopt.
std::optional<long long> parse_integer(const std::string& word) {
    long long value = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
    return value;
}

// Compares two option names ignoring case, as the protocol asks.
bool same_name(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// Formats an info record as a UCI info line.
std::string format_info(const SearchInfo& info) {
    std::ostringstream line;
    line << "info depth " << info.depth << " seldepth " << info.seldepth << " score "
         << (info.mate ? "mate " : "cp ") << info.score << " nodes " << info.nodes << " nps "
         << info.nps << " hashfull " << info.hashfull << " time " << info.time_ms << " pv";
    for (Move m : info.pv) line << ' ' << to_uci(m);
    return line.str();
}

// One thread that runs the searches one after another, kept for the whole session: a new
// thread per `go` cost a clone, and the kernel then handed it a stack whose pages it had
// dropped when the last one ended, so each move faulted them in again (at 1,000 nodes a move
// that was about as much CPU as the search itself).
class SearchThread {
  public:
    SearchThread() = default;
    SearchThread(const SearchThread&) = delete;
    SearchThread& operator=(const SearchThread&) = delete;
    // Finishes the search in progress, if any, and ends the thread.
    ~SearchThread() {
        {
            std::lock_guard lock(mutex_);
            quit_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    // Runs job on the thread; the caller has waited for the last one.
    void start(std::function<void()> job) {
        std::lock_guard lock(mutex_);
        if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
        job_ = std::move(job);
        busy_ = true;
        wake_.notify_all();
    }
    // Waits until the last job started has returned.
    void wait() {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return !busy_; });
    }

  private:
    void loop() {
        std::unique_lock lock(mutex_);
        while (true) {
            wake_.wait(lock, [this] { return quit_ || job_; });
            if (!job_) return;
            std::function<void()> job = std::move(job_);
            job_ = nullptr;
            lock.unlock();
            job();
            lock.lock();
            busy_ = false;
            done_.notify_all();
        }
    }

    std::mutex mutex_;  // guards job_, busy_ and quit_
    std::condition_variable wake_;
    std::condition_variable done_;
    std::function<void()> job_;
    bool busy_ = false;
    bool quit_ = false;
    std::thread thread_;
};

class UciSession {
  public:
    UciSession(std::istream& in, std::ostream& out, Engine& engine);
    ~UciSession() { finish_search(); }

    // Reads and answers commands until quit or end of input.
    int run();

  private:
    void send(const std::string& line);
    void handle(const std::string& line);
    void cmd_uci();
    void cmd_position(const std::vector<std::string>& words);
    void cmd_go(const std::vector<std::string>& words);
    void cmd_setoption(const std::vector<std::string>& words);
    void finish_search();
    void stop_search();

    std::istream& in_;
    std::ostream& out_;
    std::mutex out_mutex_;
    Engine& engine_;
    ParamSet params_;
    Board board_;
    int move_overhead_ms_ = OVERHEAD_DEFAULT_MS;
    std::atomic<bool> stop_signal_{false};
    std::atomic<bool> searching_{false};
    SearchThread search_thread_;  // last: it ends before the members its searches use
};

// Takes the engine back to the state of a new one, doing only what differs.
UciSession::UciSession(std::istream& in, std::ostream& out, Engine& engine)
    : in_(in), out_(out), engine_(engine) {
    if (engine_.hash_mb() != HASH_DEFAULT_MB) engine_.set_hash_mb(HASH_DEFAULT_MB);
    if (engine_.params() != params_) engine_.set_params(params_);
    engine_.new_game();
}

// Writes one line and flushes it, so match runners see it at once.
void UciSession::send(const std::string& line) {
    std::lock_guard lock(out_mutex_);
    out_ << line << std::endl;
}

int UciSession::run() {
    for (std::string line; std::getline(in_, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::vector<std::string> words = split_words(line);
        if (!words.empty() && words[0] == "quit") break;
        handle(line);
    }
    stop_search();
    finish_search();
    return 0;
}

// Raises the stop signal of a running search.
void UciSession::stop_search() {
    if (searching_.load()) stop_signal_.store(true);
}

// Waits for the search in progress, if any, to end.
void UciSession::finish_search() {
    search_thread_.wait();
}

// Dispatches one command line.
void UciSession::handle(const std::string& line) {
    std::vector<std::string> words = split_words(line);
    if (words.empty()) return;
    const std::string& cmd = words[0];
    if (cmd == "uci") {
        cmd_uci();
    } else if (cmd == "isready") {
        send("readyok");
    } else if (cmd == "ucinewgame") {
        stop_search();
        finish_search();
        engine_.new_game();
    } else if (cmd == "position") {
        cmd_position(words);
    } else if (cmd == "go") {
        cmd_go(words);
    } else if (cmd == "stop") {
        stop_search();
        finish_search();
    } else if (cmd == "setoption") {
        cmd_setoption(words);
    } else if (cmd == "ponderhit" || cmd == "debug" || cmd == "register") {
        // Accepted and ignored: the engine does not ponder, debug or need registering.
    } else {
        send("info string unknown command: " + line);
    }
}

// Identifies the engine and lists every option.
void UciSession::cmd_uci() {
    send("id name Sparring " SPARRING_VERSION);
    send("id author the Sparring developers");
    send("option name Hash type spin default " + std::to_string(HASH_DEFAULT_MB) + " min 1 max " +
         std::to_string(HASH_MAX_MB));
    send("option name Clear Hash type button");
    send("option name Move Overhead type spin default " + std::to_string(OVERHEAD_DEFAULT_MS) +
         " min 0 max " + std::to_string(OVERHEAD_MAX_MS));
    for (const ParamSpec& spec : param_registry())
        send("option name " + std::string(spec.name) + " type spin default " +
             std::to_string(spec.default_value) + " min " + std::to_string(spec.min) + " max " +
             std::to_string(spec.max));
    send("uciok");
}

// Sets up a position from startpos or a FEN, then plays the listed moves; on any error the
// previous position stays.
void UciSession::cmd_position(const std::vector<std::string>& words) {
    auto moves_at = std::find(words.begin(), words.end(), "moves");
    Board board;
    if (words.size() >= 2 && words[1] == "startpos") {
        if (moves_at != words.begin() + 2 && !(moves_at == words.end() && words.size() == 2)) {
            send("info string position: unexpected words after startpos; position unchanged");
            return;
        }
    } else if (words.size() >= 2 && words[1] == "fen") {
        std::string fen;
        for (auto it = words.begin() + 2; it != moves_at; ++it)
            fen += (fen.empty() ? "" : " ") + *it;
        std::string error;
        if (!board.set_fen(fen, &error)) {
            send("info string position: bad FEN \"" + fen + "\": " + error +
                 "; position unchanged");
            return;
        }
    } else {
        send("info string position: expected startpos or fen; position unchanged");
        return;
    }
    if (moves_at != words.end()) {
        for (auto it = moves_at + 1; it != words.end(); ++it) {
            Move m = parse_uci(board, *it);
            if (!m) {
                send("info string position: illegal move " + *it + " in " + board.fen() +
                     "; position unchanged");
                return;
            }
            board.do_move(m);
        }
    }
    board_ = board;
}

// Parses the limits of a go command and starts the search on its own thread.
void UciSession::cmd_go(const std::vector<std::string>& words) {
    if (searching_.load()) {
        send("info string go: a search is already running; send stop first");
        return;
    }
    SearchLimits limits;
    for (std::size_t i = 1; i < words.size(); ++i) {
        const std::string& key = words[i];
        if (key == "infinite") {
            limits.infinite = true;
            continue;
        }
        if (key == "ponder") continue;
        const bool numeric = key == "depth" || key == "nodes" || key == "movetime" ||
                             key == "wtime" || key == "btime" || key == "winc" || key == "binc" ||
                             key == "movestogo";
        if (!numeric) {
            send("info string go: unsupported or unknown word '" + key + "'; search not started");
            return;
        }
        std::optional<long long> value;
        if (i + 1 < words.size()) value = parse_integer(words[i + 1]);
        const bool clock = key == "wtime" || key == "btime";
        if (!value || (!clock && *value < 0) || *value > (1LL << 40)) {
            send("info string go: " + key + " needs a " + (clock ? "" : "non-negative ") +
                 "integer, got '" + (i + 1 < words.size() ? words[i + 1] : "") +
                 "'; search not started");
            return;
        }
        ++i;
        // A clock may run out while the command travels; keep it positive.
        const int ms = static_cast<int>(std::clamp<long long>(*value, 1, 1LL << 30));
        const int count = static_cast<int>(std::min<long long>(*value, 1LL << 30));
        if (key == "depth")
            limits.depth = count;
        else if (key == "nodes")
            limits.nodes = static_cast<std::uint64_t>(*value);
        else if (key == "movetime")
            limits.movetime_ms = ms;
        else if (key == "wtime")
            limits.time_ms[WHITE] = ms;
        else if (key == "btime")
            limits.time_ms[BLACK] = ms;
        else if (key == "winc")
            limits.inc_ms[WHITE] = count;
        else if (key == "binc")
            limits.inc_ms[BLACK] = count;
        else
            limits.movestogo = count;
    }
    limits.move_overhead_ms = move_overhead_ms_;
    limits.stop_signal = &stop_signal_;

    finish_search();
    stop_signal_.store(false);
    searching_.store(true);
    engine_.set_position(board_);
    search_thread_.start([this, limits] {
        SearchResult result =
            engine_.search(limits, [this](const SearchInfo& info) { send(format_info(info)); });
        std::ostringstream line;
        line << "bestmove " << to_uci(result.best_move);
        if (result.ponder_move) line << " ponder " << to_uci(result.ponder_move);
        searching_.store(false);
        send(line.str());
    });
}

// Sets Hash, Clear Hash, Move Overhead or an evaluation parameter.
void UciSession::cmd_setoption(const std::vector<std::string>& words) {
    if (searching_.load()) {
        send("info string setoption: not allowed while searching; option unchanged");
        return;
    }
    auto value_at = std::find(words.begin(), words.end(), "value");
    if (words.size() < 3 || words[1] != "name" || value_at == words.begin() + 2) {
        send("info string setoption: expected 'setoption name <name> [value <value>]'");
        return;
    }
    std::string name;
    for (auto it = words.begin() + 2; it != value_at; ++it) name += (name.empty() ? "" : " ") + *it;
    std::string value_text;
    if (value_at != words.end())
        for (auto it = value_at + 1; it != words.end(); ++it)
            value_text += (value_text.empty() ? "" : " ") + *it;

    if (same_name(name, "Clear Hash")) {
        engine_.new_game();
        return;
    }
    std::optional<long long> value = parse_integer(value_text);
    if (!value) {
        send("info string setoption: option " + name + " needs an integer value, got '" +
             value_text + "'");
        return;
    }
    auto out_of_range = [&](long long min, long long max) {
        if (*value >= min && *value <= max) return false;
        send("info string setoption: value " + value_text + " for " + name + " is outside [" +
             std::to_string(min) + ", " + std::to_string(max) + "]; option unchanged");
        return true;
    };
    if (same_name(name, "Hash")) {
        if (out_of_range(1, HASH_MAX_MB)) return;
        try {
            engine_.set_hash_mb(static_cast<int>(*value));
        } catch (const std::bad_alloc&) {
            send("info string setoption: cannot allocate " + value_text +
                 " MB of hash; table unchanged");
        }
        return;
    }
    if (same_name(name, "Move Overhead")) {
        if (!out_of_range(0, OVERHEAD_MAX_MS)) move_overhead_ms_ = static_cast<int>(*value);
        return;
    }
    for (const ParamSpec& spec : param_registry()) {
        if (!same_name(name, spec.name)) continue;
        if (out_of_range(spec.min, spec.max)) return;
        params_.set(spec.name, static_cast<int>(*value));
        engine_.set_params(params_);
        return;
    }
    send("info string setoption: unknown option '" + name + "'");
}

}  // namespace

int uci_loop(std::istream& in, std::ostream& out) {
    Engine engine;
    return uci_loop(in, out, engine);
}

int uci_loop(std::istream& in, std::ostream& out, Engine& engine) {
    UciSession session(in, out, engine);
    return session.run();
}

}  // namespace sparring
