// The evidence of faulty games on the worker's side: the bounded transcript and stderr ring,
// stderr read from a real process without ever blocking it, and a real engine's crash leaving
// its game's exchange and its last words with the game's result.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "match/child_process.h"
#include "match/game.h"
#include "match/runner.h"
#include "match/transcript.h"

namespace sparring::match {
namespace {

const std::string FakeEngine = std::string(SPARRING_SOURCE_DIR) + "/tests/match/fake_uci_engine.sh";

TEST(ByteRing, KeepsTheLastBytesAcrossWraps) {
    ByteRing ring(10);
    ring.append("abc");
    EXPECT_EQ(ring.text(), "abc");
    ring.append("defghijk");
    EXPECT_EQ(ring.text(), "bcdefghijk");
    ring.append("lmn");
    EXPECT_EQ(ring.text(), "efghijklmn");
    ring.append("0123456789012345");
    EXPECT_EQ(ring.text(), "6789012345");
    EXPECT_EQ(ring.total(), 3u + 8u + 3u + 16u);
    ring.clear();
    EXPECT_EQ(ring.text(), "");
    EXPECT_EQ(ring.total(), 0u);
}

TEST(Transcript, KeepsItsHeadAndTailAndSaysWhatWasLeftOut) {
    Transcript transcript;
    transcript.begin();
    transcript.sent("uci");
    transcript.received("uciok");
    transcript.sent("position startpos moves e2e4\ngo nodes 1000");
    transcript.received("bestmove e7e5");
    EXPECT_TRUE(transcript.complete());
    EXPECT_EQ(transcript.last_position(), "position startpos moves e2e4");
    EXPECT_EQ(transcript.last_go(), "go nodes 1000");
    const std::string text = transcript.text();
    EXPECT_NE(text.find(" > uci\n"), std::string::npos) << text;
    EXPECT_NE(text.find(" < uciok\n"), std::string::npos) << text;
    EXPECT_NE(text.find(" > go nodes 1000\n"), std::string::npos) << text;
    EXPECT_EQ(sent_lines(text),
              (std::vector<std::string>{"uci", "position startpos moves e2e4", "go nodes 1000"}));

    // 1 MiB of info lines: the first 32 KiB and the last 224 KiB stay, one line between.
    const std::string info = "info depth 1 pv " + std::string(90, 'x');
    for (int i = 0; i < 10000; ++i) transcript.received(info + " " + std::to_string(i));
    transcript.sent("go nodes 7");
    EXPECT_FALSE(transcript.complete());
    const std::string bounded = transcript.text();
    EXPECT_LE(bounded.size(), Transcript::kHeadBytes + Transcript::kTailBytes + 100);
    EXPECT_NE(bounded.find(" > uci\n"), std::string::npos);
    EXPECT_NE(bounded.find("lines ("), std::string::npos);
    EXPECT_NE(bounded.find("bytes) left out ..."), std::string::npos);
    EXPECT_NE(bounded.find(info + " 9999\n"), std::string::npos);
    EXPECT_EQ(sent_lines(bounded).back(), "go nodes 7");
    // A received line that looks like a sent one is not taken for one.
    EXPECT_TRUE(sent_lines("    12 < info string  3 > go\n").empty());
}

TEST(Evidence, StreamsRoundTripAndABombIsRefusedAtItsBound) {
    const std::string text = "12 > go nodes 1000\n" + std::string(5000, 'y');
    EXPECT_EQ(inflate_evidence(compress_evidence(text), 1 << 20), text);
    const std::string bomb = compress_evidence(std::string(64 << 20, '\0'));
    EXPECT_LT(bomb.size(), 100u * 1024);
    EXPECT_FALSE(inflate_evidence(bomb, 1 << 20).has_value());
    EXPECT_FALSE(inflate_evidence("not zlib", 1 << 20).has_value());
    EXPECT_FALSE(inflate_evidence(bomb.substr(0, bomb.size() / 2), 1ull << 30).has_value());
}

// A child that writes 4 MiB to stderr before its first line of output is never blocked by
// a full pipe: the line arrives, and the last 64 KiB of stderr are kept.
TEST(ChildProcess, AChattyStderrNeverBlocksAndItsTailIsKept) {
    ChildProcess process;
    ChildOptions options;
    options.capture_stderr = true;
    std::string error;
    ASSERT_TRUE(process.start("bash",
                              {"-c",
                               "head -c 4194304 /dev/zero | tr '\\0' e >&2; echo 'last words' >&2; "
                               "echo ready; read line"},
                              options, &error))
        << error;
    std::string line;
    EXPECT_EQ(process.read_line(&line, ChildProcess::Clock::now() + std::chrono::seconds(20)),
              ChildProcess::ReadStatus::Line);
    EXPECT_EQ(line, "ready");
    process.write_line("bye");
    process.stop(std::chrono::milliseconds(2000));
    const std::string tail = process.stderr_tail();
    EXPECT_EQ(tail.size(), FaultEvidence::kStderrBytes);
    EXPECT_TRUE(tail.ends_with("eeelast words\n")) << tail.substr(tail.size() - 40);
    EXPECT_EQ(process.stderr_bytes(), 4194304u + 11u);
}

// An engine (Debian's Stockfish behind tests/match/fake_uci_engine.sh) that dies at its
// third move: the game's result carries the exchange up to the fatal `go`, the position it
// was asked, and what it wrote to stderr before dying.
TEST(UciPlayer, ACrashLeavesTheGamesExchangeAndStderrWithTheResult) {
    if (!std::filesystem::exists("/usr/games/stockfish")) GTEST_SKIP() << "no /usr/games/stockfish";
    PlayerSpec crashy{"crashy", UciSpec{FakeEngine, {"crash-after-2"}, "", {{"Hash", "8"}}}, 0};
    PlayerSpec builtin{"builtin", BuiltinSpec{ParamSet(), 1}, 0};
    std::unique_ptr<Player> white = make_player(crashy);
    std::unique_ptr<Player> black = make_player(builtin);
    GameSettings settings;
    settings.time_control = *parse_time_control("nodes=500");
    std::atomic<bool> stop{false};
    const std::optional<GameResult> game =
        play_game(*white, *black, Opening{std::string(START_FEN), {}}, settings, stop);
    ASSERT_TRUE(game);
    EXPECT_EQ(game->termination, Termination::Crash) << game->reason;
    ASSERT_TRUE(game->evidence);
    const FaultEvidence& e = *game->evidence;
    EXPECT_EQ(e.command, FakeEngine);
    EXPECT_EQ(e.options, (std::vector<std::pair<std::string, std::string>>{{"Hash", "8"}}));
    EXPECT_EQ(e.go, "go nodes 500");
    // White's third move: four plies played before it.
    EXPECT_EQ(std::count(e.position.begin(), e.position.end(), ' '), 6) << e.position;
    EXPECT_TRUE(e.transcript_complete);
    EXPECT_NE(e.transcript.find(" > uci\n"), std::string::npos) << e.transcript;
    EXPECT_NE(e.transcript.find(" > setoption name Hash value 8\n"), std::string::npos);
    EXPECT_NE(e.transcript.find(" < bestmove "), std::string::npos);
    EXPECT_TRUE(e.transcript.ends_with(" > " + e.go + "\n")) << e.transcript;
    EXPECT_NE(
        e.stderr_tail.find("fake-engine: assertion failed: move 3 after '" + e.position + "'"),
        std::string::npos)
        << e.stderr_tail;
    // The built-in engine that won leaves nothing; a game without a fault neither.
    EXPECT_FALSE(black->fault_evidence());
}

}  // namespace
}  // namespace sparring::match
