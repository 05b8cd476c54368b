// The UCI protocol end to end: a scripted session through pipes to the real
// sparring-engine binary, including malformed input, and the bench command's signature.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/params.h"
#include "engine/uci.h"

extern char** environ;

namespace sparring {
namespace {

using Clock = std::chrono::steady_clock;

// A child process running sparring-engine with pipes on its standard input and output.
class EngineProcess {
  public:
    explicit EngineProcess(std::vector<std::string> args = {}) {
        signal(SIGPIPE, SIG_IGN);
        int to_child[2], from_child[2];
        if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe failed");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, to_child[1]);
        posix_spawn_file_actions_addclose(&actions, from_child[0]);
        args.insert(args.begin(), SPARRING_ENGINE_BINARY);
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int rc =
            posix_spawn(&pid_, SPARRING_ENGINE_BINARY, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(to_child[0]);
        close(from_child[1]);
        if (rc != 0) throw std::runtime_error("cannot start " SPARRING_ENGINE_BINARY);
        in_ = to_child[1];
        out_ = from_child[0];
    }

    ~EngineProcess() {
        if (in_ >= 0) close(in_);
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        close(out_);
    }

    // Writes one command line.
    void send(const std::string& line) {
        std::string text = line + "\n";
        ASSERT_EQ(write(in_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    }

    // Reads lines until one starts with prefix; returns them all, or nullopt on timeout/EOF.
    std::optional<std::vector<std::string>> read_until(const std::string& prefix,
                                                       int timeout_ms = 10000) {
        std::vector<std::string> lines;
        auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (true) {
            std::size_t newline;
            while ((newline = buffer_.find('\n')) != std::string::npos) {
                lines.push_back(buffer_.substr(0, newline));
                buffer_.erase(0, newline + 1);
                if (lines.back().rfind(prefix, 0) == 0) return lines;
            }
            int left = static_cast<int>(
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
                    .count());
            if (left <= 0) return std::nullopt;
            pollfd p{out_, POLLIN, 0};
            if (poll(&p, 1, left) <= 0) continue;
            char chunk[4096];
            ssize_t n = read(out_, chunk, sizeof(chunk));
            if (n <= 0) return std::nullopt;
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    // Waits for the process to exit and returns its exit status (-1 on timeout or signal).
    int wait_exit(int timeout_ms = 5000) {
        auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (Clock::now() < deadline) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            usleep(10000);  // polls the process state (waitpid has no timeout)
        }
        return -1;
    }

    // Closes the engine's standard input (end of file).
    void close_input() {
        close(in_);
        in_ = -1;
    }

  private:
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    std::string buffer_;
};

// Returns whether some line starts with prefix.
bool has_line(const std::vector<std::string>& lines, const std::string& prefix) {
    for (const std::string& l : lines)
        if (l.rfind(prefix, 0) == 0) return true;
    return false;
}

// Returns the move of a "bestmove" line.
std::string best_move_of(const std::string& line) {
    std::istringstream s(line);
    std::string word, move;
    s >> word >> move;
    return move;
}

TEST(Uci, HandshakeListsIdAndEveryOption) {
    EngineProcess engine;
    engine.send("uci");
    auto lines = engine.read_until("uciok");
    ASSERT_TRUE(lines);
    EXPECT_TRUE(has_line(*lines, "id name Sparring "));
    EXPECT_TRUE(has_line(*lines, "id author "));
    EXPECT_TRUE(has_line(*lines, "option name Hash type spin default 16 min 1 max "));
    EXPECT_TRUE(has_line(*lines, "option name Clear Hash type button"));
    EXPECT_TRUE(has_line(*lines, "option name Move Overhead type spin "));
    for (const ParamSpec& spec : param_registry()) {
        std::string expected = "option name " + std::string(spec.name) + " type spin default " +
                               std::to_string(spec.default_value) + " min " +
                               std::to_string(spec.min) + " max " + std::to_string(spec.max);
        EXPECT_TRUE(has_line(*lines, expected)) << expected;
    }
    engine.send("isready");
    EXPECT_TRUE(engine.read_until("readyok"));
    engine.send("quit");
    EXPECT_EQ(engine.wait_exit(), 0);
}

TEST(Uci, SearchesAPositionWithMovesToADepth) {
    EngineProcess engine;
    engine.send("uci");
    ASSERT_TRUE(engine.read_until("uciok"));
    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4 e7e5 g1f3");
    engine.send("go depth 6");
    auto lines = engine.read_until("bestmove");
    ASSERT_TRUE(lines);
    int infos = 0;
    for (const std::string& l : *lines) {
        if (l.rfind("info depth", 0) != 0) continue;
        ++infos;
        for (const char* field :
             {" seldepth ", " score cp ", " nodes ", " nps ", " time ", " hashfull ", " pv "})
            EXPECT_NE(l.find(field), std::string::npos) << field << " missing in: " << l;
    }
    EXPECT_EQ(infos, 6);
    Board board;
    for (const char* m : {"e2e4", "e7e5", "g1f3"}) board.do_move(parse_uci(board, m));
    EXPECT_TRUE(parse_uci(board, best_move_of(lines->back()))) << lines->back();
    engine.send("quit");
    EXPECT_EQ(engine.wait_exit(), 0);
}

// The session keeps one search thread from go to go: forty searches of a game in a row, as a
// match runner sends them, each answer the move the in-process engine finds on the same
// position after the same searches (one table and history through the game, as both keep).
TEST(Uci, ManySearchesInOneSessionPlayAsTheInProcessEngine) {
    EngineProcess engine;
    engine.send("uci");
    ASSERT_TRUE(engine.read_until("uciok"));
    engine.send("ucinewgame");
    Engine inprocess;
    inprocess.new_game();
    Board board;
    std::string moves;
    SearchLimits limits;
    limits.nodes = 1000;
    for (int ply = 0; ply < 40; ++ply) {
        engine.send("position startpos" + (moves.empty() ? "" : " moves" + moves));
        engine.send("go nodes 1000");
        auto lines = engine.read_until("bestmove");
        ASSERT_TRUE(lines) << "ply " << ply;
        inprocess.set_position(board);
        const SearchResult result = inprocess.search(limits);
        ASSERT_FALSE(result.best_move.is_none()) << "ply " << ply;
        ASSERT_EQ(best_move_of(lines->back()), to_uci(result.best_move)) << "ply " << ply;
        board.do_move(result.best_move);
        moves += " " + to_uci(result.best_move);
        if (MoveList<>(board).size() == 0) break;
    }
    engine.send("isready");
    EXPECT_TRUE(engine.read_until("readyok"));
    engine.send("quit");
    EXPECT_EQ(engine.wait_exit(), 0);
}

TEST(Uci, FenPositionAndMateScore) {
    EngineProcess engine;
    engine.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    engine.send("go depth 4");
    auto lines = engine.read_until("bestmove");
    ASSERT_TRUE(lines);
    EXPECT_EQ(lines->back(), "bestmove d1d8");
    EXPECT_NE((*lines)[lines->size() - 2].find("score mate 1 "), std::string::npos);
}

TEST(Uci, InfiniteSearchAnswersIsreadyAndStops) {
    EngineProcess engine;
    engine.send("position startpos");
    engine.send("go infinite");
    ASSERT_TRUE(engine.read_until("info", 5000)) << "the search did not start";
    engine.send("isready");
    auto ready = engine.read_until("readyok", 1000);
    ASSERT_TRUE(ready);
    EXPECT_FALSE(has_line(*ready, "bestmove"));
    auto stop_time = Clock::now();
    engine.send("stop");
    auto lines = engine.read_until("bestmove", 2000);
    ASSERT_TRUE(lines);
    EXPECT_LE(Clock::now() - stop_time, std::chrono::milliseconds(500));
    EXPECT_TRUE(parse_uci(Board(), best_move_of(lines->back())));
}

TEST(Uci, StopRightAfterGoIsNotLost) {
    EngineProcess engine;
    for (int i = 0; i < 5; ++i) {
        engine.send("position startpos moves d2d4");
        engine.send("go infinite");
        engine.send("stop");
        ASSERT_TRUE(engine.read_until("bestmove", 2000)) << "round " << i;
    }
}

TEST(Uci, ClockLimitedSearchReturnsInTime) {
    EngineProcess engine;
    engine.send("position startpos");
    auto start = Clock::now();
    engine.send("go wtime 1000 btime 1000 winc 10 binc 10");
    ASSERT_TRUE(engine.read_until("bestmove", 2000));
    EXPECT_LE(Clock::now() - start, std::chrono::milliseconds(400));
    engine.send("go movetime 200");
    start = Clock::now();
    ASSERT_TRUE(engine.read_until("bestmove", 2000));
    EXPECT_LE(Clock::now() - start, std::chrono::milliseconds(350));
}

TEST(Uci, MalformedInputGetsADiagnosticAndTheEngineCarriesOn) {
    EngineProcess engine;
    const std::string bad_commands[] = {
        "hello there",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        "position fen 8/8/8 w",
        "position startpos moves e2e4 e2e4",
        "position sideways",
        "setoption name NoSuchOption value 3",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name " + std::string(param_registry()[0].name) + " value " +
            std::to_string(param_registry()[0].max + 1),
        "go depth x",
        "go nodes -5",
        "go wtime",
        "go sideways 3",
    };
    for (const std::string& command : bad_commands) {
        engine.send(command);
        engine.send("isready");
        auto lines = engine.read_until("readyok", 2000);
        ASSERT_TRUE(lines) << "no readyok after: " << command;
        EXPECT_TRUE(has_line(*lines, "info string ")) << "no diagnostic for: " << command;
        EXPECT_FALSE(has_line(*lines, "bestmove")) << command;
    }
    // The rejected position command left the last good position in place.
    engine.send("position startpos moves e2e4");
    engine.send("position startpos moves e2e4 e7e6 e1e3");
    engine.send("go depth 3");
    auto lines = engine.read_until("bestmove");
    ASSERT_TRUE(lines);
    Board board;
    board.do_move(parse_uci(board, "e2e4"));
    EXPECT_TRUE(parse_uci(board, best_move_of(lines->back()))) << lines->back();
    engine.send("quit");
    EXPECT_EQ(engine.wait_exit(), 0);
}

TEST(Uci, SetoptionChangesParametersAndHash) {
    EngineProcess engine;
    const ParamSpec& spec = param_registry()[0];
    for (const std::string& command :
         {std::string("setoption name Hash value 8"), std::string("setoption name Clear Hash"),
          std::string("setoption name Move Overhead value 50"),
          "setoption name " + std::string(spec.name) + " value " + std::to_string(spec.min)}) {
        engine.send(command);
        engine.send("isready");
        auto lines = engine.read_until("readyok", 2000);
        ASSERT_TRUE(lines);
        EXPECT_FALSE(has_line(*lines, "info string")) << command;
    }
    engine.send("go depth 2");
    EXPECT_TRUE(engine.read_until("bestmove"));
}

TEST(Uci, EndOfInputEndsTheEngine) {
    EngineProcess engine;
    engine.send("position startpos");
    engine.send("go infinite");
    engine.close_input();
    EXPECT_EQ(engine.wait_exit(), 0);
}

// Returns the result of a depth-6 search of Kiwipete, the way every session leaves it.
SearchResult search_kiwipete(Engine& engine) {
    Board board;
    board.set_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    engine.set_position(board);
    SearchLimits limits;
    limits.depth = 6;
    return engine.search(limits);
}

TEST(Uci, SessionOnAKeptEngineStartsItAsNew) {
    Engine kept;
    const ParamSpec& spec = param_registry()[0];
    std::istringstream first("setoption name Hash value 2\nsetoption name " +
                             std::string(spec.name) + " value " + std::to_string(spec.min) + "\n");
    std::ostringstream out;
    EXPECT_EQ(uci_loop(first, out, kept), 0);
    EXPECT_EQ(kept.hash_mb(), 2);
    EXPECT_NE(kept.params(), ParamSet());
    search_kiwipete(kept);  // fills the table and the histories

    std::istringstream second("isready\n");
    EXPECT_EQ(uci_loop(second, out, kept), 0);
    EXPECT_EQ(kept.hash_mb(), 16);
    EXPECT_EQ(kept.params(), ParamSet());
    Engine fresh;
    const SearchResult again = search_kiwipete(kept);
    const SearchResult expected = search_kiwipete(fresh);
    EXPECT_EQ(again.best_move, expected.best_move);
    EXPECT_EQ(again.nodes, expected.nodes);
    EXPECT_EQ(again.score, expected.score);
}

// Runs `sparring-engine bench DEPTH` and returns the node count it reports.
std::optional<std::string> bench_nodes(int depth) {
    EngineProcess engine({"bench", std::to_string(depth)});
    auto lines = engine.read_until("Nodes searched: ", 60000);
    if (!lines) return std::nullopt;
    EXPECT_TRUE(engine.read_until("Nodes/second: ", 5000));
    EXPECT_EQ(engine.wait_exit(), 0);
    return lines->back();
}

TEST(Bench, SignatureOfTheBinaryIsRepeatable) {
    auto first = bench_nodes(6);
    auto second = bench_nodes(6);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(*first, *second);
    auto deeper = bench_nodes(7);
    ASSERT_TRUE(deeper);
    EXPECT_NE(*first, *deeper);
}

}  // namespace
}  // namespace sparring
