// The evaluation parameter registry, its JSON form and presets, and the evaluation built on
// it: symmetry, material sanity, the incremental piece-square score, the traced (linear)
// form the Texel tuner uses, and the isolation of two evaluators on two threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/board.h"
#include "engine/eval_trace.h"
#include "engine/evaluate.h"
#include "engine/movegen.h"
#include "engine/params.h"

namespace sparring {
namespace {

constexpr std::string_view START_POSITIONS[] = {
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
};

// Returns the FENs of every position reached in random legal games from each start position.
std::vector<std::string> random_positions(unsigned seed, int games, int max_plies) {
    std::mt19937 rng(seed);
    std::vector<std::string> fens;
    for (std::string_view start : START_POSITIONS) {
        for (int g = 0; g < games; ++g) {
            Board board;
            EXPECT_TRUE(board.set_fen(start));
            for (int ply = 0; ply < max_plies; ++ply) {
                const MoveList<> moves(board);
                if (moves.size() == 0) break;
                board.do_move(*(moves.begin() + rng() % moves.size()));
                fens.push_back(board.fen());
            }
        }
    }
    return fens;
}

// Returns the FEN of the colour-flipped mirror image: ranks reversed, colours swapped.
std::string mirror_fen(const std::string& fen) {
    std::istringstream in(fen);
    std::string placement, side, castling, ep, halfmove, fullmove;
    in >> placement >> side >> castling >> ep >> halfmove >> fullmove;
    std::vector<std::string> ranks;
    std::istringstream rows(placement);
    for (std::string row; std::getline(rows, row, '/');) ranks.push_back(row);
    std::reverse(ranks.begin(), ranks.end());
    std::string flipped;
    for (const std::string& row : ranks) {
        if (!flipped.empty()) flipped += '/';
        for (char ch : row)
            flipped += std::isupper(static_cast<unsigned char>(ch))
                           ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch)))
                           : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    std::string rights;
    for (char right : {'k', 'q', 'K', 'Q'})
        if (castling.find(right) != std::string::npos)
            rights += right == 'k' ? 'K' : right == 'q' ? 'Q' : right == 'K' ? 'k' : 'q';
    if (rights.empty()) rights = "-";
    if (ep != "-") ep[1] = ep[1] == '3' ? '6' : '3';
    return flipped + " " + (side == "w" ? "b" : "w") + " " + rights + " " + ep + " " + halfmove +
           " " + fullmove;
}

// Returns a board set to fen with the evaluator's piece-square table attached.
Board board_for(const std::string& fen, const Evaluator& evaluator) {
    Board board;
    std::string error;
    EXPECT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
    board.set_psq_table(&evaluator.psq_table());
    return board;
}

// Returns a parameter set with every value drawn uniformly from its bounds.
ParamSet random_params(unsigned seed) {
    std::mt19937 rng(seed);
    ParamSet set;
    for (const ParamSpec& spec : param_registry())
        EXPECT_TRUE(
            set.set(spec.name, std::uniform_int_distribution<int>(spec.min, spec.max)(rng)));
    return set;
}

TEST(ParamRegistry, NamesAreUniqueUciSafeAndPairedMgEg) {
    const auto specs = param_registry();
    ASSERT_FALSE(specs.empty());
    ASSERT_EQ(specs.size() % 2, 0u);
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const ParamSpec& spec = specs[i];
        EXPECT_TRUE(names.insert(spec.name).second) << "duplicate " << spec.name;
        EXPECT_TRUE(std::all_of(spec.name.begin(), spec.name.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch));
        })) << spec.name;
        EXPECT_LE(spec.min, spec.default_value) << spec.name;
        EXPECT_LE(spec.default_value, spec.max) << spec.name;
        EXPECT_FALSE(spec.description.empty()) << spec.name;
        EXPECT_FALSE(spec.group.empty()) << spec.name;
        EXPECT_EQ(param_index(spec.name), i);
        const std::string_view stem = spec.name.substr(0, spec.name.size() - 2);
        const std::string_view phase = spec.name.substr(spec.name.size() - 2);
        EXPECT_EQ(phase, i % 2 == 0 ? "Mg" : "Eg") << spec.name;
        if (i % 2 == 1) {
            EXPECT_EQ(std::string(stem) + "Mg", specs[i - 1].name);
        }
    }
    EXPECT_EQ(param_index("NoSuchParameter"), std::nullopt);
    EXPECT_EQ(param_index("pawnvaluemg"), std::nullopt);
}

TEST(ParamRegistry, PieceValuesAreFirstClassParameters) {
    for (std::string_view piece : {"Pawn", "Knight", "Bishop", "Rook", "Queen"})
        for (std::string_view phase : {"Mg", "Eg"}) {
            const std::string name = std::string(piece) + "Value" + std::string(phase);
            const auto index = param_index(name);
            ASSERT_TRUE(index) << name;
            EXPECT_EQ(param_registry()[*index].group, "Material");
        }
    const ParamSet defaults;
    EXPECT_LT(*defaults.get("PawnValueMg"), *defaults.get("KnightValueMg"));
    EXPECT_LT(*defaults.get("KnightValueMg"), *defaults.get("RookValueMg"));
    EXPECT_LT(*defaults.get("RookValueEg"), *defaults.get("QueenValueEg"));
}

TEST(ParamSet, SetAcceptsValuesInBoundsAndRejectsTheRestUnchanged) {
    ParamSet set;
    const ParamSet before = set;
    const ParamSpec& knight = param_registry()[*param_index("KnightValueMg")];
    std::string error;
    EXPECT_FALSE(set.set("KnightValue", 300, &error));
    EXPECT_NE(error.find("unknown parameter \"KnightValue\""), std::string::npos) << error;
    EXPECT_FALSE(set.set("KnightValueMg", knight.max + 1, &error));
    EXPECT_NE(error.find("outside"), std::string::npos) << error;
    EXPECT_FALSE(set.set("KnightValueMg", knight.min - 1, &error));
    EXPECT_EQ(set, before);
    EXPECT_TRUE(set.set("KnightValueMg", knight.max));
    EXPECT_EQ(set.get("KnightValueMg"), knight.max);
    EXPECT_EQ(set.get("NoSuchParameter"), std::nullopt);
}

TEST(ParamSet, PresetsAreDefaultAndSeed) {
    const ParamSet defaults;
    EXPECT_EQ(ParamSet::preset("default"), defaults);
    EXPECT_EQ(ParamSet::preset("nonsense"), std::nullopt);
    for (std::string_view name : ParamSet::preset_names()) EXPECT_TRUE(ParamSet::preset(name));

    const auto seed = ParamSet::preset("seed");
    ASSERT_TRUE(seed);
    const std::vector<std::pair<std::string, int>> type_codes = {
        {"Pawn", 1}, {"Knight", 3}, {"Bishop", 4}, {"Rook", 5}, {"Queen", 8}};
    std::set<std::string> changed;
    for (const auto& [piece, code] : type_codes)
        for (std::string phase : {"Mg", "Eg"}) {
            EXPECT_EQ(seed->get(piece + "Value" + phase), 100 * code) << piece << phase;
            changed.insert(piece + "Value" + phase);
        }
    for (const ParamSpec& spec : param_registry()) {
        if (!changed.count(std::string(spec.name))) {
            EXPECT_EQ(seed->get(spec.name), spec.default_value) << spec.name;
        }
    }
}

TEST(ParamJson, RoundTripsDefaultAndModifiedSets) {
    for (const ParamSet& set : {ParamSet(), *ParamSet::preset("seed"), random_params(7)}) {
        const std::string json = set.to_json();
        EXPECT_EQ(json.find('\n'), std::string::npos);
        std::string error;
        const auto parsed = ParamSet::from_json(json, ParamSet(), &error);
        ASSERT_TRUE(parsed) << error;
        EXPECT_EQ(*parsed, set);
    }
    EXPECT_NE(random_params(7), ParamSet());
}

TEST(ParamJson, WritesEveryParameterInRegistryOrder) {
    const std::string json = ParamSet().to_json();
    std::size_t from = 0;
    for (const ParamSpec& spec : param_registry()) {
        std::string pair(1, '"');
        pair += spec.name;
        pair += "\": ";
        pair += std::to_string(spec.default_value);
        const std::size_t at = json.find(pair, from);
        ASSERT_NE(at, std::string::npos) << spec.name;
        from = at + pair.size();
        EXPECT_TRUE(json[from] == ',' || json[from] == '}') << spec.name;
    }
    EXPECT_EQ(json.back(), '}');
}

TEST(ParamJson, ParsesASubsetOverABaseWithAnyWhitespace) {
    const ParamSet seed = *ParamSet::preset("seed");
    std::string error;
    const auto parsed = ParamSet::from_json(
        "\n {\t\"KnightValueMg\" :\r\n 350 ,\n  \"Tempo"
        "Eg\":-7 }\n",
        seed, &error);
    ASSERT_TRUE(parsed) << error;
    EXPECT_EQ(parsed->get("KnightValueMg"), 350);
    EXPECT_EQ(parsed->get("TempoEg"), -7);
    EXPECT_EQ(parsed->get("QueenValueMg"), 800);
    EXPECT_EQ(ParamSet::from_json("{}", seed), seed);
}

TEST(ParamJson, RejectsBadInputWithAMessage) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"NoSuchParameter": 1})", "unknown parameter \"NoSuchParameter\""},
        {R"({"KnightValueMg": 100000})", "is outside"},
        {R"({"KnightValueMg": -99999999999999999999})", "is outside"},
        {R"({"KnightValueMg": 320.5})", "not an integer"},
        {R"({"KnightValueMg": 3e2})", "not an integer"},
        {R"({"KnightValueMg": "320"})", "must be an integer"},
        {R"({"KnightValueMg": 0320})", "leading zero"},
        {R"({"KnightValueMg": 320, "KnightValueMg": 321})", "appears twice"},
        {R"({"KnightValueMg" 320})", "expected ':'"},
        {R"({"KnightValueMg": 320,})", "expected a parameter name"},
        {R"({"KnightValueMg": 320)", "expected ','"},
        {R"({"KnightValueMg": 320} x)", "after the closing"},
        {R"({"Knight\u0056alueMg": 320})", "escape sequences"},
        {R"({"KnightValueMg)", "unterminated"},
        {R"([1, 2])", "expected '{'"},
        {"", "expected '{', found the end"},
        {"{\n  \"PawnValueMg\": 100,\n  \"Bogus\": 1\n}", "line 3, column 3"},
    };
    const ParamSet base = *ParamSet::preset("seed");
    for (const auto& [text, expected] : cases) {
        std::string error;
        EXPECT_EQ(ParamSet::from_json(text, base, &error), std::nullopt) << text;
        EXPECT_NE(error.find(expected), std::string::npos) << text << " -> " << error;
    }
}

TEST(Evaluation, StartPositionIsWorthTheTempo) {
    for (const ParamSet& params : {ParamSet(), random_params(11)}) {
        const Evaluator evaluator(params);
        const Board board = board_for(std::string(START_FEN), evaluator);
        EXPECT_EQ(evaluator.evaluate(board), *params.get("TempoMg"));
    }
}

TEST(Evaluation, AnExtraQueenIsWorthAboutAQueen) {
    const Evaluator evaluator{ParamSet()};
    const std::string without_black_queen =
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const std::string black_to_move = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1";
    EXPECT_GT(evaluator.evaluate(board_for(without_black_queen, evaluator)), 700);
    EXPECT_LT(evaluator.evaluate(board_for(black_to_move, evaluator)), -700);
    // Black with the extra queen and the move: the side to move is again the richer one.
    EXPECT_GT(evaluator.evaluate(board_for(mirror_fen(without_black_queen), evaluator)), 700);
}

TEST(Evaluation, ColourFlippedMirrorScoresTheSameForTheSideToMove) {
    const Evaluator evaluator{ParamSet()};
    const Evaluator tweaked{random_params(3)};
    for (const std::string& fen : random_positions(1, 6, 120)) {
        const std::string mirrored = mirror_fen(fen);
        for (const Evaluator* e : {&evaluator, &tweaked})
            ASSERT_EQ(e->evaluate(board_for(fen, *e)), e->evaluate(board_for(mirrored, *e)))
                << fen << " vs " << mirrored;
    }
}

TEST(Evaluation, IncrementalPieceSquareScoreMatchesARecount) {
    const Evaluator evaluator{random_params(5)};
    const PsqTable& table = evaluator.psq_table();
    std::mt19937 rng(17);
    for (std::string_view start : START_POSITIONS) {
        Board board = board_for(std::string(start), evaluator);
        int played = 0;
        for (int ply = 0; ply < 200; ++ply) {
            const MoveList<> moves(board);
            if (moves.size() == 0) break;
            if (played > 0 && rng() % 4 == 0) {
                board.undo_move();
                --played;
            } else {
                board.do_move(*(moves.begin() + rng() % moves.size()));
                ++played;
            }
            int mg = 0, eg = 0;
            for (int s = SQ_A1; s <= SQ_H8; ++s)
                if (const Piece p = board.piece_on(Square(s)); p != NO_PIECE) {
                    mg += mg_value(table[p][s]);
                    eg += eg_value(table[p][s]);
                }
            ASSERT_EQ(mg_value(board.psq_score()), mg) << board.fen();
            ASSERT_EQ(eg_value(board.psq_score()), eg) << board.fen();
        }
    }
}

TEST(Evaluation, PawnCacheGivesExactlyTheUncachedEvaluation) {
    // Thousands of positions through one small cache: hits, misses and replaced entries.
    const std::vector<std::string> fens = random_positions(3, 10, 150);
    for (const ParamSet& params : {ParamSet(), random_params(4)}) {
        const Evaluator evaluator(params);
        auto cache = std::make_unique<PawnCache>();
        for (int pass = 0; pass < 2; ++pass)
            for (const std::string& fen : fens) {
                const Board board = board_for(fen, evaluator);
                ASSERT_EQ(evaluator.evaluate(board, *cache), evaluator.evaluate(board)) << fen;
            }
    }
}

TEST(EvaluationTrace, ReproducesEvaluateExactlyForAnyParameters) {
    const std::vector<std::string> fens = random_positions(2, 8, 150);
    for (const ParamSet& params : {ParamSet(), *ParamSet::preset("seed"), random_params(9)}) {
        const Evaluator evaluator(params);
        for (const std::string& fen : fens) {
            const Board board = board_for(fen, evaluator);
            const EvalTrace trace = trace_evaluation(board);
            ASSERT_EQ(trace.mg.size(), param_registry().size());
            ASSERT_EQ(evaluate_trace(trace, params), evaluator.evaluate(board)) << fen;
        }
    }
}

TEST(EvaluationTrace, AbsurdEvaluationsAreClampedBelowMateScores) {
    ParamSet extreme;
    for (const ParamSpec& spec : param_registry()) ASSERT_TRUE(extreme.set(spec.name, spec.max));
    const Evaluator evaluator(extreme);
    const Board board = board_for("6k1/5ppp/8/8/8/QQQQQQQQ/8/RNB1KBNR b - - 0 1", evaluator);
    const EvalTrace trace = trace_evaluation(board);
    long long mg = 0, eg = 0;
    for (std::size_t i = 0; i < trace.mg.size(); ++i) {
        mg += static_cast<long long>(trace.mg[i]) * extreme[i];
        eg += static_cast<long long>(trace.eg[i]) * extreme[i];
    }
    ASSERT_GT(std::min(mg, eg), EVAL_LIMIT);
    EXPECT_EQ(evaluator.evaluate(board), -EVAL_LIMIT);
    EXPECT_EQ(evaluate_trace(trace, extreme), -EVAL_LIMIT);
}

TEST(EvaluationTrace, EveryParameterTakesPartInSomePosition) {
    std::vector<std::string> fens = random_positions(4, 10, 200);
    for (std::string_view fen : {
             "k7/8/8/8/8/8/PP6/QK6 w - - 0 1",       // a queen without moves
             "k7/8/8/8/3Q4/8/8/7K w - - 0 1",        // a queen with 27 moves
             "k7/8/8/8/3R4/8/8/7K w - - 0 1",        // a rook with 14 moves
             "k7/8/8/8/3B4/8/8/7K w - - 0 1",        // a bishop with 13 moves
             "k7/8/8/8/3N4/8/8/7K w - - 0 1",        // a knight with 8 moves
             "7k/4N1pp/8/8/8/8/8/QBK3RR w - - 0 1",  // five pieces at the king
         })
        fens.emplace_back(fen);
    std::vector<bool> used(param_registry().size(), false);
    for (const std::string& fen : fens) {
        Board board;
        ASSERT_TRUE(board.set_fen(fen));
        const EvalTrace trace = trace_evaluation(board);
        for (std::size_t i = 0; i < used.size(); ++i)
            if (trace.mg[i] != 0 || trace.eg[i] != 0) used[i] = true;
    }
    for (std::size_t i = 0; i < used.size(); ++i)
        EXPECT_TRUE(used[i]) << param_registry()[i].name << " never counts";
}

TEST(EvaluatorIsolation, TwoParameterSetsEvaluateConcurrentlyOnTwoThreads) {
    const std::vector<std::string> fens = random_positions(6, 2, 80);
    ParamSet strong_knights;
    ASSERT_TRUE(strong_knights.set("KnightValueMg", 600));
    ASSERT_TRUE(strong_knights.set("KnightValueEg", 600));
    const Evaluator first{ParamSet()};
    const Evaluator second{strong_knights};

    // Returns each position's score under one evaluator, evaluated rounds times over.
    auto scores = [&fens](const Evaluator& evaluator, int rounds) {
        std::vector<int> out(fens.size());
        std::vector<Board> boards;
        for (const std::string& fen : fens) boards.push_back(board_for(fen, evaluator));
        for (int r = 0; r < rounds; ++r)
            for (std::size_t i = 0; i < boards.size(); ++i) {
                const int score = evaluator.evaluate(boards[i]);
                if (r > 0 && score != out[i]) return std::vector<int>{};
                out[i] = score;
            }
        return out;
    };
    const std::vector<int> expected_first = scores(first, 1);
    const std::vector<int> expected_second = scores(second, 1);
    std::vector<int> got_first, got_second;
    std::thread a([&] { got_first = scores(first, 200); });
    std::thread b([&] { got_second = scores(second, 200); });
    a.join();
    b.join();
    EXPECT_EQ(got_first, expected_first);
    EXPECT_EQ(got_second, expected_second);
    EXPECT_NE(expected_first, expected_second);
}

}  // namespace
}  // namespace sparring
