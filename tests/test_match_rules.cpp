// Time control strings, adjudication rules and their verdicts, and the engine syntax.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/time_control.h"
#include "match/adjudication.h"
#include "match/engine_spec.h"

namespace sparring::match {
namespace {

TEST(TimeControl, ParsesEveryKind) {
    auto nodes = parse_time_control("nodes=1500");
    ASSERT_TRUE(nodes);
    EXPECT_EQ(nodes->kind, TimeControl::Kind::Nodes);
    EXPECT_EQ(nodes->nodes, 1500u);
    auto depth = parse_time_control("depth=6");
    ASSERT_TRUE(depth);
    EXPECT_EQ(depth->kind, TimeControl::Kind::Depth);
    EXPECT_EQ(depth->depth, 6);
    auto movetime = parse_time_control("movetime=250");
    ASSERT_TRUE(movetime);
    EXPECT_EQ(movetime->kind, TimeControl::Kind::MoveTime);
    EXPECT_EQ(movetime->movetime_ms, 250);
    auto clock = parse_time_control("10+0.1");
    ASSERT_TRUE(clock);
    EXPECT_EQ(clock->kind, TimeControl::Kind::Clock);
    EXPECT_EQ(clock->base_ms, 10000);
    EXPECT_EQ(clock->inc_ms, 100);
    auto sudden = parse_time_control("2.5");
    ASSERT_TRUE(sudden);
    EXPECT_EQ(sudden->base_ms, 2500);
    EXPECT_EQ(sudden->inc_ms, 0);
}

TEST(TimeControl, WritesWhatItReadsAndThePgnTag) {
    for (const char* text : {"nodes=1000", "depth=12", "movetime=100", "10+0.1", "5+0.05", "60+0"})
        EXPECT_EQ(parse_time_control(text)->to_string(), text);
    EXPECT_EQ(parse_time_control("10+0.1")->pgn_tag(), "10+0.1");
    EXPECT_EQ(parse_time_control("60")->pgn_tag(), "60");
    EXPECT_EQ(parse_time_control("movetime=100")->pgn_tag(), "0.1/move");
    EXPECT_EQ(parse_time_control("nodes=10")->pgn_tag(), "-");
}

TEST(TimeControl, RejectsBadStrings) {
    for (const char* text :
         {"", "nodes=", "nodes=0", "nodes=-5", "nodes=1k", "depth=300", "movetime=abc", "speed=3",
          "10+", "+1", "abc", "0+1", "-10+1", "10+-1", "10+0.1+2", "1e99"}) {
        std::string error;
        EXPECT_FALSE(parse_time_control(text, &error)) << text;
        EXPECT_NE(error.find("bad time control"), std::string::npos) << text;
    }
}

TEST(AdjudicationRules, ParseFastchessStyleKeys) {
    auto draw = parse_draw_rule("movenumber=40 movecount=8,score=10");
    ASSERT_TRUE(draw);
    EXPECT_EQ(draw->move_number, 40);
    EXPECT_EQ(draw->move_count, 8);
    EXPECT_EQ(draw->score_cp, 10);
    auto resign = parse_resign_rule("movecount=3,score=600,twosided=true");
    ASSERT_TRUE(resign);
    EXPECT_EQ(resign->move_count, 3);
    EXPECT_EQ(resign->score_cp, 600);
    EXPECT_TRUE(resign->two_sided);
    std::string error;
    EXPECT_FALSE(parse_draw_rule("movenumber=40,score=10", &error));
    EXPECT_NE(error.find("missing movecount"), std::string::npos) << error;
    EXPECT_FALSE(parse_draw_rule("movecount=4,score=10,speed=2", &error));
    EXPECT_NE(error.find("unknown key 'speed'"), std::string::npos) << error;
    EXPECT_FALSE(parse_draw_rule("movecount=x,score=10", &error));
    EXPECT_FALSE(parse_draw_rule("movecount=4,movecount=5,score=1", &error));
    EXPECT_FALSE(parse_resign_rule("movecount=3,score=600,twosided=maybe", &error));
    EXPECT_NE(error.find("twosided"), std::string::npos) << error;
    EXPECT_FALSE(parse_resign_rule("movecount=0,score=600", &error));
    EXPECT_FALSE(parse_resign_rule("movecount 3", &error));
}

// Feeds alternating white/black scores starting at the given move number; returns the ply
// (0-based) at which a verdict other than None came, with the verdict.
std::pair<int, Adjudicator::Verdict> feed(const Adjudication& rules,
                                          const std::vector<std::optional<int>>& scores,
                                          int first_move = 1) {
    Adjudicator adjudicator(rules);
    for (std::size_t ply = 0; ply < scores.size(); ++ply) {
        Color mover = ply % 2 == 0 ? WHITE : BLACK;
        std::optional<EngineScore> score;
        if (scores[ply]) score = EngineScore{*scores[ply], false};
        int fullmove_after = first_move + static_cast<int>(ply + 1) / 2;
        auto verdict = adjudicator.update(mover, score, fullmove_after);
        if (verdict != Adjudicator::Verdict::None) return {static_cast<int>(ply), verdict};
    }
    return {-1, Adjudicator::Verdict::None};
}

TEST(Adjudicator, DrawsAfterConsecutiveQuietScoresFromTheMoveNumber) {
    Adjudication rules;
    rules.draw = DrawRule{10, 2, 10};
    // Four quiet plies (two moves each), but only from move 10 on.
    auto early = feed(rules, {5, -5, 0, 10, 3, -3}, 1);
    EXPECT_EQ(early.second, Adjudicator::Verdict::None);
    auto late = feed(rules, {5, -5, 0, 10, 3}, 12);
    EXPECT_EQ(late, std::make_pair(3, Adjudicator::Verdict::Draw));
    // A loud score or a missing one restarts the count.
    auto reset = feed(rules, {5, -5, 11, 0, 0, std::nullopt, 0, 0, 0, 0}, 20);
    EXPECT_EQ(reset, std::make_pair(9, Adjudicator::Verdict::Draw));
}

TEST(Adjudicator, ResignsAfterConsecutiveLosingScoresOfOneSide) {
    Adjudication rules;
    rules.resign = ResignRule{3, 500, false};
    // Black's own scores: -600, -700, -800 on plies 1, 3, 5.
    auto black_lost = feed(rules, {20, -600, 30, -700, 10, -800});
    EXPECT_EQ(black_lost, std::make_pair(5, Adjudicator::Verdict::WhiteWins));
    // White's own scores reach -500 three times in a row.
    auto white_lost = feed(rules, {-500, 500, -510, 0, -900});
    EXPECT_EQ(white_lost, std::make_pair(4, Adjudicator::Verdict::BlackWins));
    // An interruption resets the count.
    auto none = feed(rules, {0, -600, 0, -700, 0, -400, 0, -800, 0, -900});
    EXPECT_EQ(none.second, Adjudicator::Verdict::None);
}

TEST(Adjudicator, TwoSidedResignNeedsTheWinnerToAgree) {
    Adjudication rules;
    rules.resign = ResignRule{2, 500, true};
    auto disagree = feed(rules, {100, -600, 100, -700, 100, -800});
    EXPECT_EQ(disagree.second, Adjudicator::Verdict::None);
    auto agree = feed(rules, {600, -600, 700, -700});
    EXPECT_EQ(agree, std::make_pair(3, Adjudicator::Verdict::WhiteWins));
}

TEST(Adjudicator, CountsMateScoresAsDecisive) {
    Adjudication rules;
    rules.resign = ResignRule{1, 1000, false};
    rules.draw = DrawRule{0, 1, 50};
    Adjudicator adjudicator(rules);
    EXPECT_EQ(adjudicator.update(WHITE, EngineScore{-3, true}, 30),
              Adjudicator::Verdict::BlackWins);
    EXPECT_GT((EngineScore{5, true}.centipawns()), 30000);
    EXPECT_LT((EngineScore{-5, true}.centipawns()), -30000);
    EXPECT_EQ((EngineScore{-42, false}.centipawns()), -42);
}

TEST(EngineSpec, ReadsShorthands) {
    auto builtin = parse_player_spec("builtin");
    ASSERT_TRUE(builtin);
    EXPECT_EQ(builtin->name, "builtin-default");
    ASSERT_TRUE(std::holds_alternative<BuiltinSpec>(builtin->engine));
    EXPECT_EQ(std::get<BuiltinSpec>(builtin->engine).params, *ParamSet::preset("default"));
    auto seed = parse_player_spec("builtin:seed");
    ASSERT_TRUE(seed);
    EXPECT_EQ(std::get<BuiltinSpec>(seed->engine).params, *ParamSet::preset("seed"));
    auto uci = parse_player_spec("/usr/games/stockfish");
    ASSERT_TRUE(uci);
    EXPECT_EQ(uci->name, "stockfish");
    EXPECT_EQ(std::get<UciSpec>(uci->engine).command, "/usr/games/stockfish");
}

TEST(EngineSpec, ReadsKeys) {
    auto uci = parse_player_spec(
        "name=sf1500,cmd=/usr/games/stockfish,arg=--x,dir=/tmp,option.UCI_LimitStrength=true,"
        "option.UCI_Elo=1500,margin=300");
    ASSERT_TRUE(uci);
    EXPECT_EQ(uci->name, "sf1500");
    EXPECT_EQ(uci->time_margin_ms, 300);
    const auto& spec = std::get<UciSpec>(uci->engine);
    EXPECT_EQ(spec.args, std::vector<std::string>{"--x"});
    EXPECT_EQ(spec.working_dir, "/tmp");
    using Option = std::pair<std::string, std::string>;
    EXPECT_EQ(spec.options,
              (std::vector<Option>{{"UCI_LimitStrength", "true"}, {"UCI_Elo", "1500"}}));

    auto builtin = parse_player_spec("builtin=seed,param.KnightValueMg=400,hash=4,name=n");
    ASSERT_TRUE(builtin);
    const auto& b = std::get<BuiltinSpec>(builtin->engine);
    EXPECT_EQ(b.params.get("KnightValueMg"), 400);
    EXPECT_EQ(b.hash_mb, 4);
    EXPECT_EQ(builtin->name, "n");
}

TEST(EngineSpec, ReadsAParameterFile) {
    // The engine takes its name from the file's stem; the directory keeps parallel runs apart.
    const std::string dir = testing::TempDir() + "/engine_spec_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/knight.json";
    std::ofstream(path) << "{\"KnightValueMg\": 333}";
    auto spec = parse_player_spec("builtin:" + path);
    ASSERT_TRUE(spec);
    EXPECT_EQ(spec->name, "knight");
    EXPECT_EQ(std::get<BuiltinSpec>(spec->engine).params.get("KnightValueMg"), 333);
    const std::string bad = dir + "/bad.json";
    std::ofstream(bad) << "{\"NoSuchParam\": 1}";
    std::string error;
    EXPECT_FALSE(parse_player_spec("builtin:" + bad, &error));
    EXPECT_NE(error.find("parameter file"), std::string::npos) << error;
}

TEST(EngineSpec, RejectsMalformedSpecs) {
    const std::pair<const char*, const char*> cases[] = {
        {"", "empty engine"},
        {"builtin:nosuchpreset", "neither a preset"},
        {"name=x", "needs builtin or cmd"},
        {"builtin,cmd=/bin/true", "expected KEY=VALUE"},
        {"builtin=default,cmd=/bin/true", "not both"},
        {"cmd=/bin/true,param.KnightValueMg=300", "belong to the built-in engine"},
        {"option.Hash=16", "need cmd"},
        {"builtin=default,param.NoSuchParam=3", "NoSuchParam"},
        {"builtin=default,param.KnightValueMg=x", "needs an integer"},
        {"builtin=default,hash=0", "hash must be"},
        {"cmd=/bin/true,margin=-1", "margin must be"},
        {"cmd=/bin/true,colour=red", "unknown key 'colour'"},
        {"cmd=", "needs a value"},
    };
    for (const auto& [text, message] : cases) {
        std::string error;
        EXPECT_FALSE(parse_player_spec(text, &error)) << text;
        EXPECT_NE(error.find(message), std::string::npos) << text << " -> " << error;
    }
}

}  // namespace
}  // namespace sparring::match
