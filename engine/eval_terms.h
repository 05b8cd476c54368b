// The evaluation's terms as data: one list, grouped under headings, from which both the
// parameter registry (params.cpp) and the evaluation (evaluate.cpp) are derived. Every term
// is a row of middle-game/end-game pairs; each pair becomes two parameters, NameMg and NameEg.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace sparring::eval_terms {

// A middle-game/end-game pair of default values.
struct MgEg {
    int mg;
    int eg;
};

// How the elements of a term are told apart in parameter names.
enum class Label : std::uint8_t {
    None,      // one element: "BishopPairMg"
    Number,    // first, first + 1, ...: "PassedPawnRank4Mg", "KnightMobility3Eg"
    FilePair,  // files folded onto one half: "RookFileAHMg" (a or h file) ... "RookFileDEMg"
    Piece,     // knight, bishop, rook, queen: "KingAttackQueenMg"
};

inline constexpr std::size_t MAX_ELEMENTS = 28;  // the longest row: queen mobility 0..27

struct Term {
    // Declares a term whose element count is the length of its default list.
    constexpr Term(std::string_view group_, std::string_view name_, Label label_, int first_,
                   int min_, int max_, std::string_view description_,
                   std::initializer_list<MgEg> defaults_)
        : group(group_),
          name(name_),
          label(label_),
          first(first_),
          min(min_),
          max(max_),
          description(description_),
          count(static_cast<int>(defaults_.size())) {
        std::size_t i = 0;
        for (const MgEg& d : defaults_) defaults.at(i++) = d;
    }

    std::string_view group;
    std::string_view name;
    Label label;
    int first;  // the number of the first element (Label::Number)
    int min;    // bounds of every element, middle and end game
    int max;
    std::string_view description;
    int count;
    std::array<MgEg, MAX_ELEMENTS> defaults{};
};

// clang-format off
inline constexpr Term TERMS[] = {
    // Material
    {"Material", "PawnValue",   Label::None, 0, 40, 300,  "value of a pawn",   {{100, 120}}},
    {"Material", "KnightValue", Label::None, 0, 150, 900, "value of a knight", {{315, 290}}},
    {"Material", "BishopValue", Label::None, 0, 150, 900, "value of a bishop", {{330, 315}}},
    {"Material", "RookValue",   Label::None, 0, 250, 1300, "value of a rook",  {{460, 540}}},
    {"Material", "QueenValue",  Label::None, 0, 500, 1600, "value of a queen", {{960, 1010}}},

    // Piece-square: a piece's square is worth its rank bonus (counted from its own side)
    // plus its file bonus (files mirrored: a = h, b = g, c = f, d = e)
    {"PieceSquare", "PawnRank", Label::Number, 2, -150, 150, "pawn on this relative rank",
     {{-6, -10}, {-4, -8}, {2, -2}, {10, 10}, {22, 30}, {30, 55}}},
    {"PieceSquare", "PawnFile", Label::FilePair, 0, -150, 150, "pawn on this file",
     {{-6, 6}, {0, 2}, {4, -2}, {10, -6}}},
    {"PieceSquare", "KnightRank", Label::Number, 1, -150, 150, "knight on this relative rank",
     {{-24, -22}, {-8, -10}, {0, 0}, {8, 8}, {16, 12}, {22, 10}, {10, 0}, {-24, -18}}},
    {"PieceSquare", "KnightFile", Label::FilePair, 0, -150, 150, "knight on this file",
     {{-22, -18}, {-6, -6}, {4, 4}, {10, 8}}},
    {"PieceSquare", "BishopRank", Label::Number, 1, -150, 150, "bishop on this relative rank",
     {{-8, -8}, {4, -2}, {4, 2}, {4, 4}, {6, 4}, {6, 2}, {0, 0}, {-10, -6}}},
    {"PieceSquare", "BishopFile", Label::FilePair, 0, -150, 150, "bishop on this file",
     {{-6, -6}, {2, -2}, {0, 2}, {4, 4}}},
    {"PieceSquare", "RookRank", Label::Number, 1, -150, 150, "rook on this relative rank",
     {{-2, -4}, {-6, -4}, {-6, -2}, {-4, 0}, {0, 2}, {4, 4}, {16, 10}, {8, 8}}},
    {"PieceSquare", "RookFile", Label::FilePair, 0, -150, 150, "rook on this file",
     {{-6, 2}, {-2, 0}, {4, 0}, {8, -2}}},
    {"PieceSquare", "QueenRank", Label::Number, 1, -150, 150, "queen on this relative rank",
     {{-4, -24}, {2, -12}, {2, 0}, {0, 10}, {0, 18}, {0, 18}, {-4, 12}, {-6, 4}}},
    {"PieceSquare", "QueenFile", Label::FilePair, 0, -150, 150, "queen on this file",
     {{-6, -10}, {-2, -2}, {2, 4}, {4, 8}}},
    {"PieceSquare", "KingRank", Label::Number, 1, -150, 150, "king on this relative rank",
     {{12, -36}, {-12, -12}, {-30, 6}, {-45, 16}, {-55, 22}, {-60, 20}, {-60, 10}, {-60, -10}}},
    {"PieceSquare", "KingFile", Label::FilePair, 0, -150, 150, "king on this file",
     {{12, -28}, {20, -8}, {-6, 6}, {-22, 14}}},

    // Mobility: squares a piece attacks that hold no own pawn or king and no enemy pawn attacks
    {"Mobility", "KnightMobility", Label::Number, 0, -150, 150, "knight with this many moves",
     {{-40, -50}, {-25, -30}, {-10, -12}, {-3, -4}, {3, 4}, {8, 10}, {13, 14}, {17, 17},
      {20, 19}}},
    {"Mobility", "BishopMobility", Label::Number, 0, -150, 150, "bishop with this many moves",
     {{-35, -50}, {-22, -32}, {-10, -16}, {-2, -6}, {4, 2}, {9, 9}, {14, 15}, {18, 20},
      {21, 24}, {24, 27}, {26, 29}, {28, 31}, {30, 33}, {32, 34}}},
    {"Mobility", "RookMobility", Label::Number, 0, -150, 150, "rook with this many moves",
     {{-30, -50}, {-20, -30}, {-12, -15}, {-6, -4}, {-2, 4}, {2, 12}, {5, 18}, {8, 24},
      {11, 29}, {13, 33}, {15, 37}, {17, 40}, {18, 42}, {19, 44}, {20, 45}}},
    {"Mobility", "QueenMobility", Label::Number, 0, -150, 150, "queen with this many moves",
     {{-20, -40}, {-15, -30}, {-10, -20}, {-6, -14}, {-3, -9}, {0, -5}, {2, -1}, {4, 2},
      {6, 5}, {8, 8}, {9, 11}, {10, 14}, {11, 16}, {12, 18}, {13, 20}, {14, 22}, {15, 24},
      {16, 25}, {17, 26}, {17, 27}, {18, 28}, {18, 29}, {19, 30}, {19, 30}, {20, 31},
      {20, 31}, {21, 32}, {21, 32}}},

    // Pawn structure
    {"PawnStructure", "PassedPawnRank", Label::Number, 2, -100, 300,
     "passed pawn on this relative rank", {{0, 8}, {2, 12}, {8, 24}, {20, 42}, {45, 75}, {80, 115}}},
    {"PawnStructure", "PassedOwnKingDistance", Label::None, 0, -50, 50,
     "per square between a passed pawn's stop square and its own king", {{0, -5}}},
    {"PawnStructure", "PassedEnemyKingDistance", Label::None, 0, -50, 50,
     "per square between a passed pawn's stop square and the enemy king", {{0, 9}}},
    {"PawnStructure", "IsolatedPawn", Label::None, 0, -100, 50,
     "pawn with no own pawn on a neighbouring file", {{-8, -14}}},
    {"PawnStructure", "DoubledPawn", Label::None, 0, -100, 50,
     "pawn with an own pawn in front of it", {{-6, -20}}},
    {"PawnStructure", "BackwardPawn", Label::None, 0, -100, 50,
     "pawn that no neighbour can support and whose stop square an enemy pawn attacks",
     {{-8, -6}}},
    {"PawnStructure", "PawnPhalanx", Label::None, 0, -50, 100,
     "pawn with an own pawn beside it", {{6, 5}}},
    {"PawnStructure", "PawnSupported", Label::None, 0, -50, 100,
     "pawn defended by an own pawn", {{8, 6}}},

    // King safety: shield and files count for the king's side, attacks for the attacker
    {"KingSafety", "KingShieldClose", Label::None, 0, -50, 100,
     "own pawn one rank in front of the king, on its file or a neighbouring one", {{14, 0}}},
    {"KingSafety", "KingShieldFar", Label::None, 0, -50, 100,
     "own pawn two ranks in front of the king, on its file or a neighbouring one", {{7, 0}}},
    {"KingSafety", "KingOpenFile", Label::None, 0, -100, 50,
     "file without pawns next to or at the king", {{-22, 0}}},
    {"KingSafety", "KingSemiOpenFile", Label::None, 0, -100, 50,
     "file without own pawns (but with enemy ones) next to or at the king", {{-12, 0}}},
    {"KingSafety", "KingAttack", Label::Piece, 0, -50, 100,
     "per square of the enemy king's zone this piece kind attacks",
     {{8, 0}, {6, 0}, {7, 1}, {9, 3}}},
    {"KingSafety", "KingAttackers", Label::Number, 1, -100, 300,
     "this many pieces attack the enemy king's zone", {{0, 0}, {12, 2}, {35, 6}, {60, 10}, {90, 14}}},
    {"KingSafety", "SafeCheck", Label::Piece, 0, -50, 150,
     "per undefended square from which this piece kind can check", {{35, 5}, {25, 5}, {35, 5}, {25, 5}}},

    // Pieces
    {"Pieces", "BishopPair", Label::None, 0, -50, 150, "two bishops or more", {{28, 52}}},
    {"Pieces", "RookOpenFile", Label::None, 0, -50, 150, "rook on a file without pawns", {{32, 10}}},
    {"Pieces", "RookSemiOpenFile", Label::None, 0, -50, 150,
     "rook on a file without own pawns", {{14, 8}}},
    {"Pieces", "KnightOutpost", Label::None, 0, -50, 150,
     "knight on relative rank 4-6, pawn-defended, out of enemy pawns' reach", {{22, 12}}},
    {"Pieces", "BishopOutpost", Label::None, 0, -50, 150,
     "bishop on relative rank 4-6, pawn-defended, out of enemy pawns' reach", {{14, 6}}},
    {"Pieces", "ThreatByPawn", Label::None, 0, -50, 200,
     "enemy knight, bishop, rook or queen attacked by a pawn", {{55, 40}}},

    // Tempo
    {"Tempo", "Tempo", Label::None, 0, -50, 100, "bonus for the side to move", {{18, 10}}},
};
// clang-format on

// Returns the number of mg/eg pairs of every term together.
consteval int count_pairs() {
    int pairs = 0;
    for (const Term& t : TERMS) pairs += t.count;
    return pairs;
}

inline constexpr int PAIR_NB = count_pairs();
inline constexpr int PARAM_NB = 2 * PAIR_NB;

// Returns the first pair of the named term; a name that is not in TERMS does not compile.
consteval int first_pair(std::string_view name) {
    int pair = 0;
    for (const Term& t : TERMS) {
        if (t.name == name) return pair;
        pair += t.count;
    }
    throw "no evaluation term of that name";
}

// Returns the named term; a name that is not in TERMS does not compile.
consteval const Term& term(std::string_view name) {
    for (const Term& t : TERMS)
        if (t.name == name) return t;
    throw "no evaluation term of that name";
}

// Checks what the types cannot: element counts match labels and defaults lie within bounds.
consteval bool terms_are_consistent() {
    for (const Term& t : TERMS) {
        if (t.count < 1 || t.min > t.max) return false;
        if (t.label == Label::None && t.count != 1) return false;
        if ((t.label == Label::FilePair || t.label == Label::Piece) && t.count != 4) return false;
        for (int i = 0; i < t.count; ++i) {
            const MgEg d = t.defaults[i];
            if (d.mg < t.min || d.mg > t.max || d.eg < t.min || d.eg > t.max) return false;
        }
    }
    return true;
}
static_assert(terms_are_consistent(), "an evaluation term has a bad count or default");

// The parameter index of a pair's middle-game value; the end-game value follows it.
constexpr int mg_param(int pair) {
    return 2 * pair;
}
constexpr int eg_param(int pair) {
    return 2 * pair + 1;
}

}  // namespace sparring::eval_terms
