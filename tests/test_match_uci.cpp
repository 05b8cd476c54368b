// External UCI players: the real sparring-engine through the UCI path, and a deliberately
// broken engine that crashes, hangs, plays an illegal move or runs late, whose games are lost
// with the right reason while the match goes on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <vector>

#include "match/game.h"
#include "match/runner.h"
#include "match/speed.h"

namespace sparring::match {
namespace {

const std::string EngineBinary = std::string(SPARRING_BINARY_DIR) + "/engine/sparring-engine";
const std::string FakeEngine = std::string(SPARRING_SOURCE_DIR) + "/tests/match/fake_uci_engine.sh";

PlayerSpec builtin() {
    return PlayerSpec{"builtin", BuiltinSpec{ParamSet(), 1}, 0};
}

// The fake engines' start logs, removed when the test program ends, so that no run leaves
// them in the temporary directory.
class FakeEngineLogs : public testing::Environment {
  public:
    void add(const std::string& path) { paths_.push_back(path); }
    void TearDown() override {
        for (const std::string& path : paths_) std::remove(path.c_str());
    }

  private:
    std::vector<std::string> paths_;
};
FakeEngineLogs* const fake_engine_logs =
    static_cast<FakeEngineLogs*>(testing::AddGlobalTestEnvironment(new FakeEngineLogs));

// Returns a fake engine in the given mode that logs its starts to a fresh file at *log.
PlayerSpec fake(const std::string& mode, std::string* log) {
    *log = testing::TempDir() + "/fake_" + std::to_string(getpid()) + "_" + mode + "_" +
           testing::UnitTest::GetInstance()->current_test_info()->name() + ".log";
    std::remove(log->c_str());
    fake_engine_logs->add(*log);
    return PlayerSpec{"fake", UciSpec{FakeEngine, {mode, *log}, "", {}}, 0};
}

// Counts the lines of a file.
int line_count(const std::string& path) {
    std::ifstream in(path);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
}

MatchConfig config_with(PlayerSpec first, PlayerSpec second, const std::string& tc) {
    MatchConfig config;
    config.first = std::move(first);
    config.second = std::move(second);
    config.time_control = *parse_time_control(tc);
    config.adjudication.max_plies = 200;
    return config;
}

// Plays `pairs` pairs from the start position and returns them in index order.
std::vector<PairResult> play_pairs(const MatchConfig& config, int pairs) {
    const std::vector<Opening> book = {{std::string(START_FEN), {"e2e4", "e7e5"}},
                                       {std::string(START_FEN), {"d2d4", "d7d5"}}};
    auto jobs = make_pair_jobs(book, opening_order(2, BookOrder::Sequential, 0), 0, pairs);
    std::vector<PairResult> results(pairs);
    MatchRunner::Callbacks callbacks;
    callbacks.on_pair_done = [&](const PairResult& pair) { results[pair.index] = pair; };
    std::atomic<bool> stop{false};
    EXPECT_EQ(MatchRunner(config).play(jobs, callbacks, stop), static_cast<std::size_t>(pairs));
    return results;
}

TEST(UciPlayer, PlaysTheRealEngineThroughTheUciPath) {
    PlayerSpec uci{"uci", UciSpec{EngineBinary, {}, "", {{"Hash", "1"}}}, 0};
    MatchConfig config = config_with(uci, builtin(), "nodes=500");
    config.pgn.record = true;
    config.concurrency = 2;
    for (const PairResult& pair : play_pairs(config, 2)) {
        EXPECT_EQ(pair.games[0].white, "uci");
        EXPECT_EQ(pair.games[1].black, "uci");
        for (const GameResult& game : pair.games) {
            EXPECT_TRUE(game.termination != Termination::Crash &&
                        game.termination != Termination::Stalled &&
                        game.termination != Termination::IllegalMove &&
                        game.termination != Termination::TimeForfeit)
                << game.reason;
            EXPECT_GT(game.moves.size(), 10u);
            int scored = 0;
            for (const PlayedMove& m : game.moves) scored += m.score.has_value();
            EXPECT_GT(scored, 0);
            EXPECT_NE(game.pgn.find("[White \"" + game.white + "\"]"), std::string::npos);
        }
    }
}

// Returns the lines of a file.
std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// An SPSA pair's values reach a running engine as setoption lines for what changed, without a
// restart; a spec it cannot become (another engine, an option dropped) is refused unchanged.
TEST(UciPlayer, ReconfiguringSendsTheChangedOptionsToTheRunningEngine) {
    std::string log;
    PlayerSpec spec = fake("illegal", &log);
    std::get<UciSpec>(spec.engine).options = {{"Weight", "90"}, {"Hash", "16"}};
    const std::unique_ptr<Player> player = make_player(spec);
    std::string error;
    ASSERT_TRUE(player->new_game(&error)) << error;
    PlayerSpec next = spec;
    next.name = "fake+";
    std::get<UciSpec>(next.engine).options = {{"Weight", "110"}, {"Hash", "16"}};
    ASSERT_TRUE(player->reconfigure(next, &error)) << error;
    EXPECT_EQ(player->spec().name, "fake+");
    ASSERT_TRUE(player->new_game(&error)) << error;
    EXPECT_EQ(lines_of(log), (std::vector<std::string>{"start", "setoption name Weight value 90",
                                                       "setoption name Hash value 16",
                                                       "setoption name Weight value 110"}));

    PlayerSpec dropped = next;
    std::get<UciSpec>(dropped.engine).options = {{"Weight", "120"}};
    EXPECT_FALSE(player->reconfigure(dropped, &error));
    EXPECT_NE(error.find("'Hash' would go back to its default"), std::string::npos) << error;
    PlayerSpec other = next;
    std::get<UciSpec>(other.engine).command = "/bin/false";
    EXPECT_FALSE(player->reconfigure(other, &error));
    EXPECT_FALSE(player->reconfigure(builtin(), &error));
    PlayerSpec injected = next;
    std::get<UciSpec>(injected.engine).options = {{"Weight", "1\nquit"}, {"Hash", "16"}};
    EXPECT_FALSE(player->reconfigure(injected, &error));
    EXPECT_EQ(player->spec().name, "fake+");
    EXPECT_EQ(std::get<UciSpec>(player->spec().engine).options[0].second, "110");
    EXPECT_EQ(lines_of(log).size(), 4u);
}

// An engine that refuses a value (here: exits on it) fails its next game's start with a clear
// error instead of playing with a value it did not take.
TEST(UciPlayer, AnEngineThatRefusesAnOptionValueFailsItsNextGame) {
    std::string log;
    PlayerSpec spec = fake("illegal", &log);
    std::get<UciSpec>(spec.engine).options = {{"Weight", "90"}};
    const std::unique_ptr<Player> player = make_player(spec);
    std::string error;
    ASSERT_TRUE(player->new_game(&error)) << error;
    std::get<UciSpec>(spec.engine).options = {{"Weight", "refused"}};
    ASSERT_TRUE(player->reconfigure(spec, &error)) << error;
    EXPECT_FALSE(player->new_game(&error));
    EXPECT_NE(error.find("exited (exit status 4)"), std::string::npos) << error;
}

// The built-in player takes another spec's parameters in place; another hash size it cannot.
TEST(BuiltinPlayer, ReconfiguringTakesTheParametersOfTheNewSpec) {
    PlayerSpec spec = builtin();
    const std::unique_ptr<Player> player = make_player(spec);
    PlayerSpec next = spec;
    std::string error;
    ASSERT_TRUE(std::get<BuiltinSpec>(next.engine).params.set("KnightValueMg", 350, &error))
        << error;
    ASSERT_TRUE(player->reconfigure(next, &error)) << error;
    EXPECT_EQ(std::get<BuiltinSpec>(player->spec().engine).params,
              std::get<BuiltinSpec>(next.engine).params);
    std::get<BuiltinSpec>(next.engine).hash_mb = 2;
    EXPECT_FALSE(player->reconfigure(next, &error));
}

TEST(UciPlayer, ACrashingEngineLosesEachGameAndIsRestarted) {
    std::string log;
    MatchConfig config = config_with(builtin(), fake("crash", &log), "nodes=200");
    for (const PairResult& pair : play_pairs(config, 2)) {
        EXPECT_EQ(pair.pentanomial_index(), 4);
        for (const GameResult& game : pair.games) {
            EXPECT_EQ(game.termination, Termination::Crash);
            EXPECT_NE(game.reason.find("engine crashed: exited (exit status 3)"), std::string::npos)
                << game.reason;
        }
    }
    EXPECT_EQ(line_count(log), 4);
}

TEST(UciPlayer, AnEngineThatHangsAtFixedNodesStallsAndIsRestarted) {
    std::string log;
    MatchConfig config = config_with(builtin(), fake("hang", &log), "nodes=200");
    config.stall_timeout_ms = 300;
    for (const PairResult& pair : play_pairs(config, 1)) {
        EXPECT_EQ(pair.pentanomial_index(), 4);
        for (const GameResult& game : pair.games) {
            EXPECT_EQ(game.termination, Termination::Stalled);
            EXPECT_NE(game.reason.find("stalled: no bestmove within 300 ms"), std::string::npos)
                << game.reason;
        }
    }
    EXPECT_EQ(line_count(log), 2);
}

TEST(UciPlayer, AnEngineThatHangsUnderMovetimeLosesOnTime) {
    std::string log;
    MatchConfig config = config_with(fake("hang", &log), builtin(), "movetime=100");
    // The built-in engine may overrun 100 ms on a loaded machine; only the hanging one is
    // under test.
    config.second.time_margin_ms = 10'000;
    for (const PairResult& pair : play_pairs(config, 1)) {
        EXPECT_EQ(pair.pentanomial_index(), 0);
        for (const GameResult& game : pair.games) {
            EXPECT_EQ(game.termination, Termination::TimeForfeit);
            EXPECT_NE(game.reason.find("loses on time"), std::string::npos) << game.reason;
        }
    }
}

TEST(UciPlayer, AnIllegalMoveLosesWithoutARestart) {
    std::string log;
    MatchConfig config = config_with(builtin(), fake("illegal", &log), "nodes=200");
    for (const PairResult& pair : play_pairs(config, 2)) {
        EXPECT_EQ(pair.pentanomial_index(), 4);
        for (const GameResult& game : pair.games) {
            EXPECT_EQ(game.termination, Termination::IllegalMove);
            EXPECT_NE(game.reason.find("illegal move 'a1a1'"), std::string::npos) << game.reason;
        }
    }
    EXPECT_EQ(line_count(log), 1);
}

TEST(UciPlayer, TheTimeMarginLetsALateEngineMove) {
    std::string log;
    const Opening mate_in_one{"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", {}};
    GameSettings settings;
    settings.time_control = *parse_time_control("movetime=50");
    auto black = make_player(builtin());
    std::atomic<bool> stop{false};

    auto strict = make_player(fake("slow", &log));
    auto late = play_game(*strict, *black, mate_in_one, settings, stop);
    ASSERT_TRUE(late);
    EXPECT_EQ(late->termination, Termination::TimeForfeit);
    EXPECT_EQ(late->outcome, Outcome::Loss);

    PlayerSpec lenient_spec = fake("slow", &log);
    lenient_spec.time_margin_ms = 2000;
    auto lenient = make_player(lenient_spec);
    auto in_time = play_game(*lenient, *black, mate_in_one, settings, stop);
    ASSERT_TRUE(in_time);
    EXPECT_EQ(in_time->termination, Termination::Checkmate) << in_time->reason;
    EXPECT_EQ(in_time->outcome, Outcome::Win);
    ASSERT_TRUE(in_time->moves[0].score);
    EXPECT_TRUE(in_time->moves[0].score->mate);
    EXPECT_GE(in_time->moves[0].time_ms, 250);
}

TEST(UciPlayer, CheckPlayersReportsEnginesThatCannotStart) {
    std::string error;
    std::string log;
    MatchRunner missing(
        config_with(builtin(), PlayerSpec{"ghost", UciSpec{"/nonexistent/engine", {}, "", {}}, 0},
                    "nodes=100"));
    EXPECT_FALSE(missing.check_players(&error));
    EXPECT_NE(error.find("engine 'ghost': cannot start '/nonexistent/engine'"), std::string::npos)
        << error;
    MatchRunner silent(config_with(builtin(), fake("silent", &log), "nodes=100"));
    EXPECT_FALSE(silent.check_players(&error));
    EXPECT_NE(error.find("engine 'fake': exited (exit status 0) before 'uciok'"), std::string::npos)
        << error;
    MatchRunner good(config_with(builtin(), PlayerSpec{"uci", UciSpec{EngineBinary, {}, "", {}}, 0},
                                 "nodes=100"));
    EXPECT_TRUE(good.check_players(&error)) << error;
}

// Scaled clocks: the factor is reference over measured speed; a scaled time is rounded to the
// millisecond, stays positive when it was, and is bounded.
TEST(ScaledClock, TheFactorIsReferenceOverMeasuredAndTimesRoundToTheMillisecond) {
    EXPECT_DOUBLE_EQ(clock_factor(1'000'000, 500'000), 2.0);
    EXPECT_DOUBLE_EQ(clock_factor(1'000'000, 4'000'000), 0.25);
    EXPECT_DOUBLE_EQ(clock_factor(0, 500'000), 1.0) << "no reference: the clock as it is";
    EXPECT_DOUBLE_EQ(clock_factor(1'000'000, 0), 1.0) << "no measurement: likewise";
    EXPECT_EQ(scale_ms(10'000, 2.0), 20'000);
    EXPECT_EQ(scale_ms(100, 1.2345), 123);
    EXPECT_EQ(scale_ms(100, 1.2355), 124);
    EXPECT_EQ(scale_ms(10, 0.01), 1) << "a positive time stays at least 1 ms";
    EXPECT_EQ(scale_ms(0, 3.0), 0) << "no increment stays none";
    EXPECT_EQ(scale_ms(2'000'000'000, 1000.0), INT32_MAX);
    EXPECT_EQ(scale_ms(100, std::nan("")), 1);
}

// The speed of the built-in engine and of a real UCI engine (sparring-engine through UCI):
// nodes over wall time of fixed positions, with copies searching at once.
TEST(ScaledClock, SpeedIsMeasuredInProcessAndOverUciWithCopiesAtOnce) {
    SpeedOptions options;
    options.movetime_ms = 50;
    options.positions = 2;
    const Speed inprocess = measure_speed(builtin(), options);
    EXPECT_TRUE(inprocess.error.empty()) << inprocess.error;
    EXPECT_GT(inprocess.nps, 1000u);
    EXPECT_GT(inprocess.seconds, 0.01) << "each search lasts its movetime less the overhead";
    options.copies = 2;
    const Speed uci = measure_speed(
        PlayerSpec{"uci", UciSpec{EngineBinary, {}, "", {{"Hash", "1"}}}, 0}, options);
    EXPECT_TRUE(uci.error.empty()) << uci.error;
    EXPECT_GT(uci.nps, 1000u);
    EXPECT_GT(uci.seconds, 4 * 0.01) << "two copies, two positions each";
    EXPECT_NEAR(double(uci.nodes) / uci.seconds, double(uci.nps), 0.5 * double(uci.nps));
}

// An engine that reports no nodes, or fails, gives no speed but says why.
TEST(ScaledClock, AnEngineThatReportsNoNodesOrCrashesHasNoSpeed) {
    std::string log;
    SpeedOptions options;
    options.movetime_ms = 20;
    options.positions = 1;
    const Speed illegal = measure_speed(fake("illegal", &log), options);
    EXPECT_EQ(illegal.nps, 0u);
    EXPECT_FALSE(illegal.error.empty());
    const Speed crashed = measure_speed(fake("crash", &log), options);
    EXPECT_EQ(crashed.nps, 0u);
    EXPECT_NE(crashed.error.find("fake"), std::string::npos) << crashed.error;
}

}  // namespace
}  // namespace sparring::match
