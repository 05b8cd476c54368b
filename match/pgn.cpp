#include "match/pgn.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "common/pgn_movetext.h"
#include "engine/board.h"
#include "engine/notation.h"

namespace sparring::match {

namespace {

// Returns whether c is an ASCII control character, which PGN text may not hold.
bool is_control(char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// Escapes quotes and backslashes for a PGN tag value; control characters (a newline would end
// the tag) become spaces.
std::string escape_tag(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        out += is_control(c) ? ' ' : c;
    }
    return out;
}

// Returns text as a {comment}: a '}' in it (an engine's reply quoted in a reason) would end the
// comment early, so it becomes ')', and control characters become spaces.
std::string comment(std::string_view text) {
    std::string out = "{";
    for (char c : text) out += c == '}' ? ')' : is_control(c) ? ' ' : c;
    return out + "}";
}

// Returns "{+0.25/9 12ms}", "{-M3/20 5ms}" or "{12ms}" for an engine move.
std::string move_comment(const PlayedMove& move) {
    std::string text = "{";
    if (move.score) {
        char buffer[48];
        if (move.score->mate)
            std::snprintf(buffer, sizeof buffer, "%sM%d/%d ", move.score->value > 0 ? "+" : "-",
                          std::abs(move.score->value), move.depth);
        else
            std::snprintf(buffer, sizeof buffer, "%+.2f/%d ", move.score->value / 100.0,
                          move.depth);
        text += buffer;
    }
    text += std::to_string(move.time_ms);
    text += "ms}";
    return text;
}

// Returns whether a token is a game result.
bool is_result(std::string_view token) {
    return token == "1-0" || token == "0-1" || token == "1/2-1/2" || token == "*";
}

// Returns whether a character ends a movetext token.
bool is_delimiter(int c) {
    return std::isspace(c) || c == '{' || c == '}' || c == '(' || c == ')' || c == '[' ||
           c == ']' || c == ';' || c == '$';
}

}  // namespace

// Writes the tags, then the movetext with move numbers, comments and result.
std::string write_pgn(const GameResult& game, const PgnContext& context) {
    std::string result(pgn_result(game.outcome));
    bool from_start = game.start_fen == START_FEN;
    std::string out;
    auto tag = [&](std::string_view name, std::string_view value) {
        out += '[';
        out += name;
        out += " \"" + escape_tag(value) + "\"]\n";
    };
    tag("Event", context.event);
    tag("Site", context.site);
    tag("Date", context.date);
    tag("Round", context.round);
    tag("White", game.white);
    tag("Black", game.black);
    tag("Result", result);
    if (!from_start) {
        tag("SetUp", "1");
        tag("FEN", game.start_fen);
    }
    tag("TimeControl", context.time_control);
    for (const auto& [name, value] : context.extra_tags) tag(name, value);
    tag("Termination", pgn_termination(game.termination));
    tag("PlyCount", std::to_string(game.moves.size()));
    out += '\n';

    Board board;
    board.set_fen(game.start_fen);
    MovetextLayout writer(&out);
    bool need_number = true;
    for (const PlayedMove& played : game.moves) {
        int number = board.fullmove_number();
        if (board.side() == WHITE)
            writer.token(std::to_string(number) + ".");
        else if (need_number)
            writer.token(std::to_string(number) + "...");
        writer.token(to_san(board, played.move));
        board.do_move(played.move);
        need_number = context.comments;
        if (context.comments)
            writer.token(played.book ? std::string("{book}") : move_comment(played));
    }
    if (!game.reason.empty()) writer.token(comment(game.reason));
    writer.token(result);
    out += "\n\n";
    return out;
}

// Formats the current UTC date.
std::string pgn_date_today() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%04d.%02d.%02d", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday);
    return buffer;
}

// Looks the tag up by name.
std::string PgnGame::tag(std::string_view name) const {
    for (const auto& [key, value] : tags)
        if (key == name) return value;
    return {};
}

// Keeps a reference to the input.
PgnReader::PgnReader(std::istream& in, std::string_view source) : in_(in), source_(source) {}

// Takes one character, counting lines.
int PgnReader::get() {
    int c = in_.get();
    if (c == '\n') ++line_;
    return c;
}

// Returns the next character without taking it.
int PgnReader::peek() {
    return in_.peek();
}

// Skips the rest of the line, its newline included.
void PgnReader::skip_line() {
    for (int c = get(); c != EOF && c != '\n'; c = get()) {
    }
}

// Returns "SOURCE:LINE: " for error messages.
std::string PgnReader::where() const {
    return source_ + ":" + std::to_string(line_) + ": ";
}

// Skips a {comment}; false with *error when it never closes.
bool PgnReader::skip_braced_comment(std::string* error) {
    int start = line_;
    get();
    for (int c = get(); c != '}'; c = get()) {
        if (c == EOF) {
            if (error)
                *error = source_ + ":" + std::to_string(start) + ": comment '{' never closed";
            return false;
        }
    }
    return true;
}

// Skips a (variation), nested ones and comments inside included.
bool PgnReader::skip_variation(std::string* error) {
    int start = line_;
    int depth = 0;
    while (true) {
        int c = peek();
        if (c == EOF) {
            if (error)
                *error = source_ + ":" + std::to_string(start) + ": variation '(' never closed";
            return false;
        }
        if (c == '{') {
            if (!skip_braced_comment(error)) return false;
            continue;
        }
        if (c == ';') {
            skip_line();
            continue;
        }
        get();
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) return true;
    }
}

// Reads [Name "value"] into the game's tags.
bool PgnReader::read_tag(PgnGame* game, std::string* error) {
    auto fail = [&](const char* why) {
        if (error) *error = where() + why;
        return false;
    };
    get();
    while (peek() == ' ' || peek() == '\t') get();
    std::string name;
    while (std::isalnum(peek()) || peek() == '_') name += static_cast<char>(get());
    if (name.empty()) return fail("tag without a name");
    while (peek() == ' ' || peek() == '\t') get();
    if (get() != '"') return fail("tag value must be in double quotes");
    std::string value;
    for (int c = get(); c != '"'; c = get()) {
        if (c == EOF || c == '\n') return fail("tag value never closed");
        if (c == '\\') c = get();
        value += static_cast<char>(c);
    }
    while (peek() == ' ' || peek() == '\t') get();
    if (get() != ']') return fail("tag must end with ']'");
    game->tags.emplace_back(std::move(name), std::move(value));
    return true;
}

// Reads characters up to the next delimiter.
std::string PgnReader::read_token() {
    std::string token;
    while (peek() != EOF && !is_delimiter(peek())) token += static_cast<char>(get());
    return token;
}

// Reads tags, then movetext up to a result, the next game's tags or the end.
PgnReader::Status PgnReader::next(PgnGame* game, std::string* error, int max_plies) {
    *game = PgnGame{};
    bool in_movetext = false;
    bool seen_anything = false;
    Board board;
    auto fail = [&](const std::string& why) {
        if (error) *error = where() + why;
        return Status::Error;
    };
    while (true) {
        int c = peek();
        if (c == EOF) break;
        if (std::isspace(c)) {
            get();
            continue;
        }
        if (c == '%' || c == ';') {
            skip_line();
            continue;
        }
        if (c == '{') {
            if (!skip_braced_comment(error)) return Status::Error;
            continue;
        }
        seen_anything = true;
        if (c == '[') {
            if (in_movetext) break;
            if (!read_tag(game, error)) return Status::Error;
            continue;
        }
        if (!in_movetext) {
            in_movetext = true;
            std::string fen = game->tag("FEN");
            game->start_fen = fen.empty() ? std::string(START_FEN) : fen;
            std::string why;
            if (!board.set_fen(game->start_fen, &why)) return fail("bad FEN tag: " + why);
            game->start_fen = board.fen();
        }
        if (c == '(') {
            if (!skip_variation(error)) return Status::Error;
            continue;
        }
        if (c == ')' || c == '}' || c == ']')
            return fail(std::string("unexpected '") + static_cast<char>(c) + "'");
        if (c == '$') {
            get();
            while (std::isdigit(peek())) get();
            continue;
        }
        std::string token = read_token();
        if (is_result(token)) {
            game->result = token;
            return Status::Game;
        }
        std::size_t digits = 0;
        while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits])))
            ++digits;
        std::size_t dots = digits;
        while (dots < token.size() && token[dots] == '.') ++dots;
        if (digits > 0 && dots > digits) token.erase(0, dots);
        if (token.empty()) continue;
        if (max_plies > 0 && static_cast<int>(game->moves.size()) >= max_plies) continue;
        Move m = parse_san(board, token);
        if (m.is_none())
            return fail("illegal or unreadable move '" + token + "' in position " + board.fen());
        board.do_move(m);
        game->moves.push_back(m);
    }
    if (!seen_anything) return Status::End;
    if (!in_movetext) return fail("tags without movetext");
    return Status::Game;
}

}  // namespace sparring::match
