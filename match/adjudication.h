// Draw and resign adjudication from the engines' scores, and the maximum game length, with
// fastchess-like rules ("movenumber=40 movecount=8 score=10", "movecount=3 score=600").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/types.h"

namespace sparring::match {

// A draw once both engines' scores stayed within +-score_cp for move_count consecutive
// moves each, from move number move_number on.
struct DrawRule {
    int move_number = 0;
    int move_count = 0;
    int score_cp = 0;
};

// A loss for the engine whose own score stayed at or below -score_cp for move_count
// consecutive moves; two_sided also needs its opponent's score at or above +score_cp.
struct ResignRule {
    int move_count = 0;
    int score_cp = 0;
    bool two_sided = false;
};

struct Adjudication {
    std::optional<DrawRule> draw;
    std::optional<ResignRule> resign;
    int max_plies = 0;  // 0: no limit; a game reaching it is a draw
};

// An engine's evaluation of its own move, from its own point of view.
struct EngineScore {
    int value = 0;      // centipawns, or moves to mate when mate is set
    bool mate = false;  // value > 0: the engine mates, value < 0: it is mated

    // Returns the score in centipawns, mates mapped beyond any centipawn score.
    int centipawns() const;
};

// Parses "movenumber=N movecount=N score=CP" (spaces or commas between the keys).
std::optional<DrawRule> parse_draw_rule(std::string_view text, std::string* error = nullptr);
// Parses "movecount=N score=CP [twosided=true|false]" (spaces or commas between the keys).
std::optional<ResignRule> parse_resign_rule(std::string_view text, std::string* error = nullptr);
// Writes a rule in the form its parser reads ("movenumber=34 movecount=8 score=20").
std::string draw_rule_text(const DrawRule& rule);
// Writes a rule in the form its parser reads ("movecount=3 score=400 twosided=true").
std::string resign_rule_text(const ResignRule& rule);

// Returns one line saying which rules are in force, from their texts ("" for a rule that is
// off): "draw movenumber=34 movecount=8 score=20; resign off; at most 400 plies".
std::string adjudication_summary(std::string_view draw, std::string_view resign, int max_plies);

// Follows the scores of one game and says when a rule ends it.
class Adjudicator {
  public:
    enum class Verdict { None, Draw, WhiteWins, BlackWins };

    // Starts following a game under the given rules.
    explicit Adjudicator(const Adjudication& rules) : rules_(rules) {}

    // Records the score the engine of colour mover gave with the move that led to a position
    // with the given fullmove number, and returns the verdict of the draw and resign rules.
    Verdict update(Color mover, std::optional<EngineScore> score, int fullmove_number);

  private:
    Adjudication rules_;
    int draw_streak_ = 0;                    // consecutive plies within the draw score
    int losing_streak_[COLOR_NB] = {0, 0};   // consecutive own moves at or below -score
    int winning_streak_[COLOR_NB] = {0, 0};  // consecutive own moves at or above +score
};

}  // namespace sparring::match
