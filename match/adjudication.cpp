#include "match/adjudication.h"

#include <charconv>
#include <cstdlib>
#include <map>

namespace sparring::match {

namespace {

constexpr int MateCentipawns = 32000;

// Splits "a=1 b=2,c=3" into a key-value map; false with *error on a malformed or repeated key.
bool split_keys(std::string_view text, std::map<std::string, std::string>* keys,
                std::string* error) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find_first_of(" ,", pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view item = text.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
            if (error) *error = "expected key=value, got '" + std::string(item) + "'";
            return false;
        }
        if (!keys->emplace(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)))
                 .second) {
            if (error) *error = "key '" + std::string(item.substr(0, eq)) + "' given twice";
            return false;
        }
    }
    return true;
}

// Takes keys[name] out of the map as an integer in [min, max]; a missing key leaves *value.
bool take_int(std::map<std::string, std::string>& keys, const std::string& name, int min, int max,
              bool required, int* value, std::string* error) {
    auto it = keys.find(name);
    if (it == keys.end()) {
        if (required && error) *error = "missing " + name + "=N";
        return !required;
    }
    const std::string& text = it->second;
    int parsed = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec != std::errc() || end != text.data() + text.size() || parsed < min || parsed > max) {
        if (error)
            *error = name + " must be an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + text + "'";
        return false;
    }
    *value = parsed;
    keys.erase(it);
    return true;
}

// Fails with *error naming the first key nobody took.
bool no_keys_left(const std::map<std::string, std::string>& keys, std::string* error) {
    if (keys.empty()) return true;
    if (error) *error = "unknown key '" + keys.begin()->first + "'";
    return false;
}

}  // namespace

// Maps mate scores beyond every centipawn score, nearer mates further out.
int EngineScore::centipawns() const {
    if (!mate) return value;
    return value > 0 ? MateCentipawns - value : -MateCentipawns - value;
}

// Reads the draw rule keys, movecount and score required.
std::optional<DrawRule> parse_draw_rule(std::string_view text, std::string* error) {
    std::map<std::string, std::string> keys;
    DrawRule rule;
    std::string why;
    if (split_keys(text, &keys, &why) &&
        take_int(keys, "movenumber", 0, 10000, false, &rule.move_number, &why) &&
        take_int(keys, "movecount", 1, 10000, true, &rule.move_count, &why) &&
        take_int(keys, "score", 0, 100000, true, &rule.score_cp, &why) && no_keys_left(keys, &why))
        return rule;
    if (error) *error = "bad draw adjudication '" + std::string(text) + "': " + why;
    return std::nullopt;
}

// Reads the resign rule keys, movecount and score required.
std::optional<ResignRule> parse_resign_rule(std::string_view text, std::string* error) {
    std::map<std::string, std::string> keys;
    ResignRule rule;
    std::string why;
    bool ok = split_keys(text, &keys, &why) &&
              take_int(keys, "movecount", 1, 10000, true, &rule.move_count, &why) &&
              take_int(keys, "score", 1, 100000, true, &rule.score_cp, &why);
    if (ok) {
        if (auto it = keys.find("twosided"); it != keys.end()) {
            if (it->second != "true" && it->second != "false") {
                why = "twosided must be true or false, got '" + it->second + "'";
                ok = false;
            }
            rule.two_sided = it->second == "true";
            keys.erase(it);
        }
    }
    if (ok && no_keys_left(keys, &why)) return rule;
    if (error) *error = "bad resign adjudication '" + std::string(text) + "': " + why;
    return std::nullopt;
}

std::string draw_rule_text(const DrawRule& rule) {
    return "movenumber=" + std::to_string(rule.move_number) +
           " movecount=" + std::to_string(rule.move_count) +
           " score=" + std::to_string(rule.score_cp);
}

std::string resign_rule_text(const ResignRule& rule) {
    return "movecount=" + std::to_string(rule.move_count) +
           " score=" + std::to_string(rule.score_cp) +
           " twosided=" + (rule.two_sided ? "true" : "false");
}

std::string adjudication_summary(std::string_view draw, std::string_view resign, int max_plies) {
    return "draw " + std::string(draw.empty() ? "off" : draw) + "; resign " +
           std::string(resign.empty() ? "off" : resign) + "; " +
           (max_plies > 0 ? "at most " + std::to_string(max_plies) + " plies" : "no length limit");
}

// Extends or resets the streaks with this score and checks both rules.
Adjudicator::Verdict Adjudicator::update(Color mover, std::optional<EngineScore> score,
                                         int fullmove_number) {
    if (rules_.draw) {
        const DrawRule& draw = *rules_.draw;
        bool quiet = score && !score->mate && std::abs(score->value) <= draw.score_cp;
        draw_streak_ = quiet ? draw_streak_ + 1 : 0;
        if (draw_streak_ >= 2 * draw.move_count && fullmove_number >= draw.move_number)
            return Verdict::Draw;
    }
    if (rules_.resign) {
        const ResignRule& resign = *rules_.resign;
        int cp = score ? score->centipawns() : 0;
        losing_streak_[mover] = score && cp <= -resign.score_cp ? losing_streak_[mover] + 1 : 0;
        winning_streak_[mover] = score && cp >= resign.score_cp ? winning_streak_[mover] + 1 : 0;
        for (Color c : {WHITE, BLACK}) {
            bool lost = losing_streak_[c] >= resign.move_count &&
                        (!resign.two_sided || winning_streak_[~c] >= resign.move_count);
            if (lost) return c == WHITE ? Verdict::BlackWins : Verdict::WhiteWins;
        }
    }
    return Verdict::None;
}

}  // namespace sparring::match
