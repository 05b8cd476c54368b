// Games and matches with the built-in engine in-process: the rules that end a game, the
// maximum length, a short match with consistent counts, PGN recording and stopping.
#include <gtest/gtest.h>
#include <sched.h>

#include <array>
#include <atomic>
#include <set>
#include <sstream>
#include <thread>

#include "match/game.h"
#include "match/pgn.h"
#include "match/report.h"
#include "match/runner.h"

namespace sparring::match {
namespace {

PlayerSpec builtin(const std::string& name, const char* preset = "default") {
    return PlayerSpec{name, BuiltinSpec{*ParamSet::preset(preset), 1}, 0};
}

GameSettings nodes_settings(std::uint64_t nodes) {
    GameSettings settings;
    settings.time_control.kind = TimeControl::Kind::Nodes;
    settings.time_control.nodes = nodes;
    return settings;
}

// Plays one game between two default built-in engines.
GameResult play(const Opening& opening, const GameSettings& settings) {
    auto white = make_player(builtin("w"));
    auto black = make_player(builtin("b"));
    std::atomic<bool> stop{false};
    auto game = play_game(*white, *black, opening, settings, stop);
    EXPECT_TRUE(game);
    return game ? *game : GameResult{};
}

TEST(Game, EndsAtOnceInAFinishedPosition) {
    struct Case {
        Opening opening;
        Outcome outcome;
        Termination termination;
    };
    const Case cases[] = {
        {{std::string(START_FEN), {"f2f3", "e7e5", "g2g4", "d8h4"}},
         Outcome::Loss,
         Termination::Checkmate},
        {{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", {}}, Outcome::Draw, Termination::Stalemate},
        {{"8/8/4k3/8/8/3NK3/8/8 w - - 0 1", {}}, Outcome::Draw, Termination::InsufficientMaterial},
        {{"8/8/4k3/8/8/4K3/8/R7 w - - 100 90", {}}, Outcome::Draw, Termination::FiftyMoves},
        {{std::string(START_FEN), {"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}},
         Outcome::Draw,
         Termination::ThreefoldRepetition},
    };
    for (const Case& c : cases) {
        GameResult game = play(c.opening, nodes_settings(100));
        EXPECT_EQ(game.outcome, c.outcome) << c.opening.fen;
        EXPECT_EQ(game.termination, c.termination) << c.opening.fen;
        EXPECT_EQ(game.moves.size(), c.opening.moves.size());
    }
}

TEST(Game, TheEngineFindsAMateInOne) {
    GameResult game = play({"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", {}}, nodes_settings(500));
    EXPECT_EQ(game.outcome, Outcome::Win);
    EXPECT_EQ(game.termination, Termination::Checkmate);
    EXPECT_EQ(game.reason, "White mates");
    ASSERT_EQ(game.moves.size(), 1u);
    EXPECT_FALSE(game.moves[0].book);
    ASSERT_TRUE(game.moves[0].score);
    EXPECT_TRUE(game.moves[0].score->mate);
}

TEST(Game, StopsAtTheMaximumLengthCountingBookMoves) {
    GameSettings settings = nodes_settings(200);
    settings.adjudication.max_plies = 10;
    GameResult game = play({std::string(START_FEN), {"e2e4", "e7e5"}}, settings);
    EXPECT_EQ(game.termination, Termination::MaxPlies);
    EXPECT_EQ(game.outcome, Outcome::Draw);
    EXPECT_EQ(game.moves.size(), 10u);
    EXPECT_TRUE(game.moves[1].book);
    EXPECT_FALSE(game.moves[2].book);
}

TEST(Game, AdjudicatesALopsidedPositionAsResign) {
    GameSettings settings = nodes_settings(300);
    settings.adjudication.resign = ResignRule{2, 600, false};
    GameResult game = play({"r2qk3/8/8/8/8/8/8/4K3 w - - 0 1", {}}, settings);
    EXPECT_EQ(game.termination, Termination::ResignAdjudication);
    EXPECT_EQ(game.outcome, Outcome::Loss);
    EXPECT_EQ(game.reason, "Black wins by adjudication");
}

TEST(Game, RejectsABadOpening) {
    EXPECT_THROW(play({"not a fen", {}}, nodes_settings(100)), std::invalid_argument);
    EXPECT_THROW(play({std::string(START_FEN), {"e2e5"}}, nodes_settings(100)),
                 std::invalid_argument);
}

TEST(Game, ReturnsNothingWhenStopped) {
    auto white = make_player(builtin("w"));
    auto black = make_player(builtin("b"));
    std::atomic<bool> stop{true};
    EXPECT_FALSE(
        play_game(*white, *black, {std::string(START_FEN), {}}, nodes_settings(100), stop));
}

MatchConfig short_match(int concurrency) {
    MatchConfig config;
    config.first = builtin("default");
    config.second = builtin("seed", "seed");
    config.time_control.kind = TimeControl::Kind::Nodes;
    config.time_control.nodes = 500;
    config.concurrency = concurrency;
    config.adjudication.max_plies = 300;
    config.pgn.record = true;
    return config;
}

std::vector<Opening> small_book() {
    return {{std::string(START_FEN), {"e2e4", "c7c5"}},
            {std::string(START_FEN), {"d2d4", "g8f6", "c2c4"}},
            {"rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", {}}};
}

TEST(MatchRunner, PlaysPairsWithConsistentCounts) {
    MatchRunner runner(short_match(2));
    const std::vector<Opening> book = small_book();
    const std::vector<PairJob> jobs =
        make_pair_jobs(book, opening_order(book.size(), BookOrder::Sequential, 0), 10, 4);
    ASSERT_EQ(jobs.size(), 4u);
    EXPECT_EQ(jobs[0].index, 10u);
    EXPECT_EQ(jobs[3].opening, book[(13) % 3]);

    int games = 0;
    std::vector<PairResult> pairs;
    MatchRunner::Callbacks callbacks;
    callbacks.on_game_done = [&](const GameResult&) { ++games; };
    callbacks.on_pair_done = [&](const PairResult& pair) { pairs.push_back(pair); };
    std::atomic<bool> stop{false};
    EXPECT_EQ(runner.play(jobs, callbacks, stop), 4u);
    EXPECT_EQ(games, 8);
    ASSERT_EQ(pairs.size(), 4u);

    std::array<int, 5> pentanomial{};
    int wins = 0, draws = 0, losses = 0;
    std::set<std::uint64_t> indices;
    for (const PairResult& pair : pairs) {
        indices.insert(pair.index);
        const Opening& opening = jobs[pair.index - 10].opening;
        EXPECT_EQ(pair.games[0].white, "default");
        EXPECT_EQ(pair.games[1].white, "seed");
        for (int g = 0; g < 2; ++g) {
            const GameResult& game = pair.games[g];
            ASSERT_GE(game.moves.size(), opening.moves.size());
            for (std::size_t i = 0; i < opening.moves.size(); ++i) EXPECT_TRUE(game.moves[i].book);
            int points = pair.first_half_points(g);
            (points == 2 ? wins : points == 1 ? draws : losses)++;
            std::istringstream in(game.pgn);
            PgnReader reader(in, "game");
            PgnGame read;
            std::string error;
            ASSERT_EQ(reader.next(&read, &error), PgnReader::Status::Game) << error;
            EXPECT_EQ(read.tag("Round"), std::to_string(2 * pair.index + g + 1));
            EXPECT_EQ(read.tag("Result"), pgn_result(game.outcome));
            EXPECT_EQ(read.moves.size(), game.moves.size());
        }
        EXPECT_EQ(pair.pentanomial_index(), pair.first_half_points(0) + pair.first_half_points(1));
        ++pentanomial[pair.pentanomial_index()];
    }
    EXPECT_EQ(indices, (std::set<std::uint64_t>{10, 11, 12, 13}));
    EXPECT_EQ(pentanomial[0] + pentanomial[1] + pentanomial[2] + pentanomial[3] + pentanomial[4],
              4);
    EXPECT_EQ(wins + draws + losses, 8);
    EXPECT_EQ(2 * wins + draws,
              pentanomial[1] + 2 * pentanomial[2] + 3 * pentanomial[3] + 4 * pentanomial[4]);
}

TEST(MatchRunner, IsRepeatableAtFixedNodes) {
    MatchRunner runner(short_match(1));
    const std::vector<Opening> book = small_book();
    const auto jobs = make_pair_jobs(book, opening_order(3, BookOrder::Sequential, 0), 0, 1);
    std::vector<std::string> first_run, second_run;
    for (auto* out : {&first_run, &second_run}) {
        MatchRunner::Callbacks callbacks;
        callbacks.on_pair_done = [&](const PairResult& pair) {
            for (const GameResult& game : pair.games) {
                std::string moves;
                for (const PlayedMove& m : game.moves) moves += std::to_string(m.move.raw()) + " ";
                out->push_back(moves);
            }
        };
        std::atomic<bool> stop{false};
        runner.play(jobs, callbacks, stop);
    }
    EXPECT_EQ(first_run, second_run);
    ASSERT_EQ(first_run.size(), 2u);
}

// The runner keeps each thread's two engines (hash table, histories, pawn cache) from game to
// game, as fastchess keeps its engine processes: what an engine learnt in one game must not
// reach the next. With the default 16 MB table at 1,000 nodes, three openings played in a row
// by one pair of players, colours alternating as in a pair, give the very games that new
// players give, move for move, score for score.
TEST(Game, PlayersKeptFromGameToGamePlayAsNewOnes) {
    const auto player = [](const std::string& name) {
        return make_player(PlayerSpec{name, BuiltinSpec{}, 0});
    };
    GameSettings settings = nodes_settings(1000);
    settings.adjudication.max_plies = 60;
    const std::vector<Opening> openings = {
        {std::string(START_FEN), {"e2e4", "c7c5"}},
        {std::string(START_FEN), {"d2d4", "g8f6", "c2c4", "e7e6"}},
        {"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", {}},
    };
    const auto moves_of = [](const GameResult& game) {
        std::string text;
        for (const PlayedMove& m : game.moves)
            text += std::to_string(m.move.raw()) + ":" +
                    (m.score ? std::to_string(m.score->value) : "-") + " ";
        return text;
    };
    std::atomic<bool> stop{false};
    auto kept_a = player("a");
    auto kept_b = player("b");
    for (std::size_t i = 0; i < 2 * openings.size(); ++i) {
        const Opening& opening = openings[i / 2];
        const bool a_white = i % 2 == 0;
        auto kept = play_game(a_white ? *kept_a : *kept_b, a_white ? *kept_b : *kept_a, opening,
                              settings, stop);
        auto new_a = player("a");
        auto new_b = player("b");
        auto fresh = play_game(a_white ? *new_a : *new_b, a_white ? *new_b : *new_a, opening,
                               settings, stop);
        ASSERT_TRUE(kept && fresh);
        EXPECT_GT(kept->moves.size(), opening.moves.size() + 10) << "game " << i;
        EXPECT_EQ(moves_of(*kept), moves_of(*fresh)) << "game " << i;
        EXPECT_EQ(kept->outcome, fresh->outcome) << "game " << i;
    }
}

TEST(MatchRunner, StopsTakingGamesWhenAsked) {
    MatchRunner runner(short_match(1));
    const std::vector<Opening> book = small_book();
    const auto jobs = make_pair_jobs(book, opening_order(3, BookOrder::Sequential, 0), 0, 5);
    std::atomic<bool> stop{false};
    MatchRunner::Callbacks callbacks;
    callbacks.on_pair_done = [&](const PairResult&) { stop = true; };
    EXPECT_EQ(runner.play(jobs, callbacks, stop), 1u);
}

TEST(MatchRunner, RejectsBadJobsAndSettings) {
    MatchRunner runner(short_match(1));
    std::vector<PairJob> jobs = {{0, {std::string(START_FEN), {"e2e4", "e2e4"}}}};
    std::atomic<bool> stop{false};
    EXPECT_THROW(runner.play(jobs, {}, stop), std::invalid_argument);
    MatchConfig config = short_match(0);
    EXPECT_THROW(MatchRunner{config}, std::invalid_argument);
}

// Returns a finished game with the given outcome and termination.
GameResult finished(Outcome outcome, Termination termination) {
    GameResult game;
    game.outcome = outcome;
    game.termination = termination;
    return game;
}

TEST(MatchTally, CountsGamesAndPairsFromTheFirstPlayersSide) {
    MatchTally tally;
    // A wins with white, then draws with black: WD.
    tally.add(PairResult{0,
                         {finished(Outcome::Win, Termination::Checkmate),
                          finished(Outcome::Draw, Termination::Stalemate)}});
    // A loses with white and wins with black (White wins game 2 means B won): LL.
    tally.add(PairResult{1,
                         {finished(Outcome::Loss, Termination::TimeForfeit),
                          finished(Outcome::Win, Termination::Checkmate)}});
    // A wins with black after losing with white: WL.
    tally.add(PairResult{2,
                         {finished(Outcome::Loss, Termination::Crash),
                          finished(Outcome::Loss, Termination::IllegalMove)}});
    EXPECT_EQ(tally.wins, 2);
    EXPECT_EQ(tally.draws, 1);
    EXPECT_EQ(tally.losses, 3);
    EXPECT_EQ(tally.pentanomial.counts, (std::array<std::int64_t, 5>{1, 0, 1, 1, 0}));
    EXPECT_EQ(tally.terminations[Termination::Checkmate], 2);
    EXPECT_EQ(tally.terminations[Termination::TimeForfeit], 1);
    const std::string report = final_report("A", "B", tally, std::nullopt);
    EXPECT_NE(report.find("A vs B: 6 games, 3 pairs"), std::string::npos) << report;
    EXPECT_NE(report.find("W/D/L        2 / 1 / 3"), std::string::npos) << report;
    EXPECT_NE(report.find("[1, 0, 1, 1, 0]"), std::string::npos) << report;
    EXPECT_NE(report.find("2 checkmate"), std::string::npos) << report;
    EXPECT_EQ(report.find("SPRT"), std::string::npos);
    stats::SprtParams sprt;
    EXPECT_NE(final_report("A", "B", tally, sprt).find("SPRT         normalized elo0=0 elo1=5"),
              std::string::npos);
}

// Issue 49: games at once are pinned to the cores their threads count, in order, and only
// where the machine has that many cores.
TEST(Pinning, CoresAreSplitPerGameInOrderOrNotAtAll) {
    EXPECT_EQ(split_cores({0, 1, 2, 3}, 2, 2), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
    EXPECT_EQ(split_cores({4, 6, 7}, 3, 1), (std::vector<std::vector<int>>{{4}, {6}, {7}}));
    EXPECT_EQ(split_cores({0, 1, 2, 3, 4}, 2, 2), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
    EXPECT_TRUE(split_cores({0, 1}, 2, 2).empty());
    EXPECT_TRUE(split_cores({0, 1}, 3, 1).empty());
    EXPECT_TRUE(split_cores({}, 1, 1).empty());
    EXPECT_TRUE(split_cores({0, 1}, 0, 1).empty());
    const std::vector<int> allowed = allowed_cores();
    ASSERT_FALSE(allowed.empty());
    std::vector<int> seen;
    std::thread pinned([&] {
        EXPECT_TRUE(pin_thread({allowed.back()}));
        cpu_set_t set;
        CPU_ZERO(&set);
        ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
        for (int core = 0; core < CPU_SETSIZE; ++core)
            if (CPU_ISSET(core, &set)) seen.push_back(core);
    });
    pinned.join();
    EXPECT_EQ(seen, std::vector<int>{allowed.back()});
    EXPECT_FALSE(pin_thread({}));
    EXPECT_EQ(allowed_cores(), allowed);  // the calling thread is left as it was
}

}  // namespace
}  // namespace sparring::match
