#include "coordinator/storage/pgn_codec.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "common/pgn_movetext.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/pgn_codec_samples.h"
#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring::coordinator {

namespace {

// The compact form is the format byte and a range-coded stream (the binary range coder of
// LZMA, adaptive bit probabilities) of the game taken apart:
//   the tags: their count; each tag's name (an index of kTagNames, 0 then a string for
//     another name) and its value (a ValueKind and what it holds: a number, a date, an index
//     of kValues, a FEN as the squares that differ from the start position and its fields);
//   the movetext: its number of elements, then for each one its kind (a move, a move and
//     its comment, or a comment alone) and what it holds: a move's index in the legal-move
//     list of its position, a comment's numbers (centipawns against the mover's previous
//     score, mate distance, depth, time in ms) or text; then the result.
// Every model of a field has probabilities of its own, so that what is usual costs little.
constexpr std::array<std::string_view, 18> kTagNames = {
    "",          "Event",       "Site",
    "Date",      "Round",       "White",
    "Black",     "Result",      "SetUp",
    "FEN",       "TimeControl", "Termination",
    "PlyCount",  "ClockFactor", "ReferenceTimeControl",
    "WorkerNps", "WhiteBuild",  "BlackBuild"};
// Tag values common enough to be one index.
constexpr std::array<std::string_view, 19> kValues = {"normal",
                                                      "adjudication",
                                                      "time forfeit",
                                                      "rules infraction",
                                                      "abandoned",
                                                      "unterminated",
                                                      "-",
                                                      "?",
                                                      "Sparring match",
                                                      "test",
                                                      "base",
                                                      "portable",
                                                      "x86-64-v2",
                                                      "x86-64-v3",
                                                      "x86-64-v4",
                                                      "????.??.??",
                                                      "1-0",
                                                      "0-1",
                                                      "1/2-1/2"};
constexpr std::string_view kRunEvent = "Sparring run ";

enum ValueKind : uint8_t {
    String,
    Number,
    Date,
    PlyCount,
    SameAsResult,
    Known,
    RunEvent,
    Fen,
    ValueKinds
};
enum CommentKind : uint8_t { None, Book, Centipawns, Mate, TimeOnly, Text, CommentKinds };
constexpr std::array<std::string_view, 4> kResults = {"1-0", "0-1", "1/2-1/2", "*"};
constexpr std::string_view kPieces = " PNBRQKpnbrqk";

// ---- The range coder ----

constexpr int kProbBits = 11;
constexpr uint16_t kProbInit = 1 << (kProbBits - 1);
constexpr int kMoveBits = 5;

class RangeEncoder {
  public:
    explicit RangeEncoder(std::string* out) : out_(out) {}
    void bit(uint16_t& p, bool b) {
        const uint32_t bound = (range_ >> kProbBits) * p;
        if (!b) {
            range_ = bound;
            p = uint16_t(p + (((1 << kProbBits) - p) >> kMoveBits));
        } else {
            low_ += bound;
            range_ -= bound;
            p = uint16_t(p - (p >> kMoveBits));
        }
        while (range_ < (1u << 24)) {
            range_ <<= 8;
            shift_low();
        }
    }
    void finish() {
        for (int i = 0; i < 5; ++i) shift_low();
    }

  private:
    void shift_low() {
        if (uint32_t(low_) < 0xFF000000u || (low_ >> 32) != 0) {
            const uint8_t carry = uint8_t(low_ >> 32);
            uint8_t temp = cache_;
            do {
                *out_ += char(uint8_t(temp + carry));
                temp = 0xFF;
            } while (--cache_size_ != 0);
            cache_ = uint8_t(low_ >> 24);
        }
        ++cache_size_;
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    std::string* out_;
    uint64_t low_ = 0;
    uint32_t range_ = 0xFFFFFFFFu;
    uint8_t cache_ = 0;
    uint64_t cache_size_ = 1;
};

// Reads what RangeEncoder wrote; past the end of its input it reads zeros, and counts them,
// so that a forged stream ends instead of reading on.
class RangeDecoder {
  public:
    explicit RangeDecoder(std::string_view in) : in_(in) {
        for (int i = 0; i < 5; ++i) code_ = (code_ << 8) | next();
    }
    bool bit(uint16_t& p) {
        const uint32_t bound = (range_ >> kProbBits) * p;
        bool b;
        if (code_ < bound) {
            range_ = bound;
            p = uint16_t(p + (((1 << kProbBits) - p) >> kMoveBits));
            b = false;
        } else {
            code_ -= bound;
            range_ -= bound;
            p = uint16_t(p - (p >> kMoveBits));
            b = true;
        }
        while (range_ < (1u << 24)) {
            range_ <<= 8;
            code_ = (code_ << 8) | next();
        }
        return b;
    }
    // Whether it read more than a few bytes past its input: a damaged stream.
    bool overrun() const { return past_end_ > 16; }

  private:
    uint32_t next() {
        if (pos_ < in_.size()) return uint8_t(in_[pos_++]);
        ++past_end_;
        return 0;
    }
    std::string_view in_;
    std::size_t pos_ = 0;
    uint32_t code_ = 0;
    uint32_t range_ = 0xFFFFFFFFu;
    std::size_t past_end_ = 0;
};

// A symbol of `Bits` bits, most significant first, each bit's probability given the bits
// above it.
template <int Bits>
struct TreeModel {
    std::array<uint16_t, std::size_t(1) << Bits> p;
    TreeModel() { p.fill(kProbInit); }
};

// An unsigned number: its bit width (a tree), then its bits below the top one, the first
// three with probabilities per width, the rest with one per position.
struct NumberModel {
    TreeModel<7> width;
    std::array<std::array<uint16_t, 8>, 65> high;
    std::array<uint16_t, 64> low;
    NumberModel() {
        for (auto& h : high) h.fill(kProbInit);
        low.fill(kProbInit);
    }
};

// Every model of the layout, as writer and reader use them.
struct Models {
    NumberModel count, tag_name, tag_kind, tag_number, known, text_length, fen_number, ep;
    TreeModel<8> text_byte;
    std::array<uint16_t, 64> fen_changed;
    TreeModel<4> fen_piece;
    std::array<uint16_t, 5> fen_flags;
    std::array<TreeModel<4>, 16> kind;  // by the previous element's kind
    TreeModel<8> move;
    NumberModel score, mate, depth, time, result;
    Models() {
        fen_changed.fill(kProbInit);
        fen_flags.fill(kProbInit);
    }
};

// Writes the layout's fields: Writer::number(model, v) and friends; Reader the same, reading.
class Writer {
  public:
    explicit Writer(std::string* out) : rc_(out) {}
    void bit(uint16_t& p, bool b) { rc_.bit(p, b); }
    template <int Bits>
    void tree(TreeModel<Bits>& m, uint32_t v) {
        uint32_t node = 1;
        for (int i = Bits - 1; i >= 0; --i) {
            const bool b = (v >> i) & 1;
            rc_.bit(m.p[node], b);
            node = (node << 1) | uint32_t(b);
        }
    }
    void number(NumberModel& m, uint64_t v) {
        const int width = int(std::bit_width(v));
        tree(m.width, uint32_t(width));
        for (int i = width - 2, k = 1; i >= 0; --i, ++k) {
            uint16_t& p =
                k < 8 ? m.high[std::size_t(width)][std::size_t(k)] : m.low[std::size_t(i)];
            rc_.bit(p, (v >> i) & 1);
        }
    }
    void string(Models& m, std::string_view s) {
        number(m.text_length, s.size());
        for (char c : s) tree(m.text_byte, uint8_t(c));
    }
    void finish() { rc_.finish(); }

  private:
    RangeEncoder rc_;
};

class Reader {
  public:
    explicit Reader(std::string_view in) : rc_(in), text_budget_(8 * in.size() + 64) {}
    bool bit(uint16_t& p) { return rc_.bit(p); }
    template <int Bits>
    uint32_t tree(TreeModel<Bits>& m) {
        uint32_t node = 1;
        for (int i = 0; i < Bits; ++i) node = (node << 1) | uint32_t(rc_.bit(m.p[node]));
        return node - (uint32_t(1) << Bits);
    }
    uint64_t number(NumberModel& m) {
        const uint32_t width = tree(m.width);
        if (width == 0) return 0;
        if (width > 64) return fail(), 0;
        uint64_t v = 1;
        for (int i = int(width) - 2, k = 1; i >= 0; --i, ++k) {
            uint16_t& p = k < 8 ? m.high[width][std::size_t(k)] : m.low[std::size_t(i)];
            v = (v << 1) | uint64_t(rc_.bit(p));
        }
        return v;
    }
    // A string; all of them together at most 8 bytes per byte of the input (real text costs
    // far more), so that a forged blob cannot make the reader allocate more.
    std::string string(Models& m) {
        const uint64_t size = number(m.text_length);
        if (size > text_budget_) return fail(), std::string();
        text_budget_ -= std::size_t(size);
        std::string s(std::size_t(size), '\0');
        for (char& c : s) c = char(tree(m.text_byte));
        return s;
    }
    void fail() { failed_ = true; }
    bool ok() const { return !failed_ && !rc_.overrun(); }

  private:
    RangeDecoder rc_;
    std::size_t text_budget_;
    bool failed_ = false;
};

// ---- The parts of a game ----

uint64_t zigzag(int64_t v) {
    return (uint64_t(v) << 1) ^ uint64_t(v >> 63);
}
int64_t unzigzag(uint64_t v) {
    return int64_t(v >> 1) ^ -int64_t(v & 1);
}

// Returns the decimal number of digits (no sign, no leading zero), or nullopt.
std::optional<uint64_t> canonical_number(std::string_view s) {
    if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    return v;
}

std::string centipawns_text(int64_t cp) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%+.2f", double(cp) / 100.0);
    return buffer;
}

std::string date_text(uint64_t v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%04u.%02u.%02u", unsigned(v / 10000 % 10000),
                  unsigned(v / 100 % 100), unsigned(v % 100));
    return buffer;
}

// Returns YYYY.MM.DD as the number YYYYMMDD when date_text gives it back, or nullopt.
std::optional<uint64_t> date_number(std::string_view value) {
    if (value.size() != 10 || value[4] != '.' || value[7] != '.') return std::nullopt;
    const std::string digits = std::string(value.substr(0, 4)) + std::string(value.substr(5, 2)) +
                               std::string(value.substr(8, 2));
    std::optional<uint64_t> v = canonical_number(digits);
    if (!v || date_text(*v) != value) return std::nullopt;
    return v;
}

// A FEN's fields; text() writes it as Board::fen() does.
struct FenFields {
    std::array<uint8_t, 64> squares{};  // index of kPieces, rank 8 first
    bool black = false;
    uint8_t castling = 0;  // KQkq as bits 0..3
    uint64_t ep = 0;       // 0: none, else 1 + the square's index (a1 = 0)
    uint64_t halfmove = 0, fullmove = 1;

    std::string text() const {
        std::string out;
        for (int rank = 0; rank < 8; ++rank) {
            int empty = 0;
            for (int file = 0; file < 8; ++file) {
                const uint8_t piece = squares[std::size_t(rank * 8 + file)];
                if (piece == 0) {
                    ++empty;
                    continue;
                }
                if (empty) out += char('0' + empty);
                empty = 0;
                out += kPieces[piece];
            }
            if (empty) out += char('0' + empty);
            if (rank < 7) out += '/';
        }
        out += black ? " b " : " w ";
        for (int i = 0; i < 4; ++i)
            if (castling & (1 << i)) out += "KQkq"[i];
        if (!castling) out += '-';
        out += ' ';
        if (ep == 0) {
            out += '-';
        } else {
            out += char('a' + (ep - 1) % 8);
            out += char('1' + (ep - 1) / 8 % 8);
        }
        return out + " " + std::to_string(halfmove) + " " + std::to_string(fullmove);
    }
};

// Reads the fields of a FEN that text() gives back exactly, or nullopt.
std::optional<FenFields> fen_fields(std::string_view fen) {
    FenFields f;
    std::size_t i = 0;
    int square = 0;
    for (; i < fen.size() && fen[i] != ' '; ++i) {
        const char c = fen[i];
        if (c == '/') continue;
        if (c >= '1' && c <= '8') {
            square += c - '0';
        } else {
            const std::size_t piece = kPieces.find(c);
            if (piece == std::string_view::npos || piece == 0 || square >= 64) return std::nullopt;
            f.squares[std::size_t(square++)] = uint8_t(piece);
        }
        if (square > 64) return std::nullopt;
    }
    std::vector<std::string_view> fields;
    while (i < fen.size()) {
        const std::size_t start = ++i;
        i = fen.find(' ', start);
        if (i == std::string_view::npos) i = fen.size();
        fields.push_back(fen.substr(start, i - start));
    }
    if (fields.size() != 5 || fields[3].empty() || fields[4].empty()) return std::nullopt;
    f.black = fields[0] == "b";
    for (char c : fields[1]) {
        const std::size_t k = std::string_view("KQkq").find(c);
        if (k != std::string_view::npos) f.castling = uint8_t(f.castling | (1 << k));
    }
    if (fields[2].size() == 2 && fields[2][0] >= 'a' && fields[2][0] <= 'h' &&
        fields[2][1] >= '1' && fields[2][1] <= '8')
        f.ep = 1 + uint64_t(fields[2][0] - 'a') + 8 * uint64_t(fields[2][1] - '1');
    const auto half = canonical_number(fields[3]);
    const auto full = canonical_number(fields[4]);
    if (!half || !full) return std::nullopt;
    f.halfmove = *half;
    f.fullmove = *full;
    if (f.text() != fen) return std::nullopt;
    return f;
}

const FenFields& start_fields() {
    static const FenFields fields = *fen_fields(START_FEN);
    return fields;
}

// One comment taken apart; render() gives its text back (between the braces).
struct Comment {
    CommentKind kind = None;
    int64_t score = 0;  // centipawns, or the signed mate distance
    uint64_t depth = 0, time_ms = 0;
    std::string text;

    std::string render() const {
        switch (kind) {
            case Book:
                return "book";
            case Centipawns:
                return centipawns_text(score) + "/" + std::to_string(depth) + " " +
                       std::to_string(time_ms) + "ms";
            case Mate:
                return std::string(score > 0 ? "+M" : "-M") +
                       std::to_string(score > 0 ? uint64_t(score) : uint64_t(0) - uint64_t(score)) +
                       "/" + std::to_string(depth) + " " + std::to_string(time_ms) + "ms";
            case TimeOnly:
                return std::to_string(time_ms) + "ms";
            default:
                return text;
        }
    }
};

// Takes a comment's text apart as write_pgn's move comments are made, or keeps it as text.
Comment parse_comment(std::string_view t) {
    Comment c;
    c.kind = Text;
    c.text = std::string(t);
    Comment parsed;
    if (t == "book") {
        parsed.kind = Book;
    } else if (t.size() > 2 && t.substr(t.size() - 2) == "ms") {
        std::string_view body = t.substr(0, t.size() - 2);
        const std::size_t space = body.rfind(' ');
        auto time =
            canonical_number(space == std::string_view::npos ? body : body.substr(space + 1));
        if (!time) return c;
        parsed.time_ms = *time;
        if (space == std::string_view::npos) {
            parsed.kind = TimeOnly;
        } else {
            std::string_view score = body.substr(0, space);
            const std::size_t slash = score.find('/');
            if (slash == std::string_view::npos) return c;
            auto depth = canonical_number(score.substr(slash + 1));
            if (!depth) return c;
            parsed.depth = *depth;
            score = score.substr(0, slash);
            if (score.size() < 3 || (score[0] != '+' && score[0] != '-')) return c;
            const bool negative = score[0] == '-';
            if (score[1] == 'M') {
                auto n = canonical_number(score.substr(2));
                if (!n || *n == 0) return c;
                parsed.kind = Mate;
                parsed.score = negative ? -int64_t(*n) : int64_t(*n);
            } else {
                const std::size_t dot = score.find('.');
                if (dot == std::string_view::npos || score.size() != dot + 3) return c;
                auto whole = canonical_number(score.substr(1, dot - 1));
                auto cents = score.substr(dot + 1);
                if (!whole || *whole > 1'000'000'000 || cents[0] < '0' || cents[0] > '9' ||
                    cents[1] < '0' || cents[1] > '9')
                    return c;
                const int64_t v = int64_t(*whole) * 100 + (cents[0] - '0') * 10 + (cents[1] - '0');
                parsed.kind = Centipawns;
                parsed.score = negative ? -v : v;
            }
        }
    } else {
        return c;
    }
    return parsed.render() == t ? parsed : c;
}

struct Tag {
    std::string name;
    ValueKind kind = String;
    std::string text;  // String, and the FEN's text
    uint64_t number = 0;
    FenFields fen;
};

struct Element {
    bool move = false;
    uint8_t index = 0;  // in the legal-move list
    Comment comment;
};

struct Game {
    std::vector<Tag> tags;
    std::vector<Element> elements;
    std::string result;
};

// The first FEN tag's text ("" for none), which sets up the board of the movetext.
std::string fen_of(const std::vector<Tag>& tags) {
    for (const Tag& tag : tags)
        if (tag.name == "FEN") return tag.text.empty() ? "-" : tag.text;
    return "";
}

// Takes the text apart, or nullopt when it is not laid out as write_pgn writes.
std::optional<Game> parse(std::string_view pgn) {
    Game game;
    std::size_t pos = 0;
    while (pos < pgn.size() && pgn[pos] == '[') {
        const std::size_t end = pgn.find('\n', pos);
        if (end == std::string_view::npos) return std::nullopt;
        const std::string_view line = pgn.substr(pos, end - pos);
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || line.size() < space + 4 || line[space + 1] != '"' ||
            line.substr(line.size() - 2) != "\"]")
            return std::nullopt;
        Tag& tag = game.tags.emplace_back();
        tag.name = std::string(line.substr(1, space - 1));
        tag.text = std::string(line.substr(space + 2, line.size() - space - 4));
        pos = end + 1;
    }
    if (pos >= pgn.size() || pgn[pos] != '\n' || pgn.size() < pos + 3 ||
        pgn.substr(pgn.size() - 2) != "\n\n")
        return std::nullopt;
    const std::string_view movetext = pgn.substr(pos + 1, pgn.size() - pos - 3);

    Board board;
    const std::string fen = fen_of(game.tags);
    if (!fen.empty() && !board.set_fen(fen)) return std::nullopt;
    std::size_t i = 0;
    while (i < movetext.size()) {
        if (!game.result.empty()) return std::nullopt;  // tokens after the result
        std::size_t end;
        if (movetext[i] == '{') {
            end = movetext.find('}', i);
            if (end == std::string_view::npos) return std::nullopt;
            ++end;
        } else {
            end = movetext.find_first_of(" \n", i);
            if (end == std::string_view::npos) end = movetext.size();
        }
        const std::string_view token = movetext.substr(i, end - i);
        i = end < movetext.size() ? end + 1 : end;
        if (token.empty()) return std::nullopt;
        if (token[0] == '{') {
            const Comment c = parse_comment(token.substr(1, token.size() - 2));
            if (game.elements.empty() || !game.elements.back().move ||
                game.elements.back().comment.kind != None)
                game.elements.emplace_back();
            game.elements.back().comment = c;
            continue;
        }
        if (token.back() == '.' && token[0] >= '0' && token[0] <= '9') continue;  // move number
        if (i >= movetext.size()) {  // the last token: the result
            game.result = std::string(token);
            continue;
        }
        const Move m = parse_san(board, token);
        if (m.is_none()) return std::nullopt;
        const MoveList<> legal(board);
        std::size_t index = 0;
        while (index < legal.size() && legal.begin()[index] != m) ++index;
        if (index >= legal.size()) return std::nullopt;
        board.do_move(m);
        Element& e = game.elements.emplace_back();
        e.move = true;
        e.index = uint8_t(index);
    }
    if (game.result.empty()) return std::nullopt;

    uint64_t moves = 0;
    for (const Element& e : game.elements) moves += e.move;
    for (Tag& tag : game.tags) {
        std::size_t known = 0;
        while (known < kValues.size() && kValues[known] != tag.text) ++known;
        if (tag.name == "PlyCount" && tag.text == std::to_string(moves)) {
            tag.kind = PlyCount;
        } else if (tag.name == "Result" && tag.text == game.result) {
            tag.kind = SameAsResult;
        } else if (const auto number = canonical_number(tag.text)) {
            tag.kind = Number;
            tag.number = *number;
        } else if (const auto date = date_number(tag.text)) {
            tag.kind = Date;
            tag.number = *date;
        } else if (known < kValues.size()) {
            tag.kind = Known;
            tag.number = known;
        } else if (tag.text.starts_with(kRunEvent) &&
                   canonical_number(tag.text.substr(kRunEvent.size()))) {
            tag.kind = RunEvent;
            tag.number = *canonical_number(tag.text.substr(kRunEvent.size()));
        } else if (const auto f = tag.name == "FEN" ? fen_fields(tag.text) : std::nullopt) {
            tag.kind = Fen;
            tag.fen = *f;
        }
    }
    return game;
}

// Writes the game with the models, which it adapts.
std::string write(const Game& game, Models& m) {
    std::string out(1, char(kCompactPgnFormat));
    Writer w(&out);
    w.number(m.count, game.tags.size());
    for (const Tag& tag : game.tags) {
        std::size_t code = 1;
        while (code < kTagNames.size() && kTagNames[code] != tag.name) ++code;
        if (code == kTagNames.size()) code = 0;
        w.number(m.tag_name, code);
        if (code == 0) w.string(m, tag.name);
        w.number(m.tag_kind, tag.kind);
        switch (tag.kind) {
            case Number:
            case Date:
            case RunEvent:
                w.number(m.tag_number, tag.number);
                break;
            case Known:
                w.number(m.known, tag.number);
                break;
            case Fen: {
                const FenFields& start = start_fields();
                for (std::size_t s = 0; s < 64; ++s) {
                    const bool changed = tag.fen.squares[s] != start.squares[s];
                    w.bit(m.fen_changed[s], changed);
                    if (changed) w.tree(m.fen_piece, tag.fen.squares[s]);
                }
                w.bit(m.fen_flags[4], tag.fen.black);
                for (int k = 0; k < 4; ++k)
                    w.bit(m.fen_flags[std::size_t(k)], (tag.fen.castling >> k) & 1);
                w.number(m.ep, tag.fen.ep);
                w.number(m.fen_number, tag.fen.halfmove);
                w.number(m.fen_number, tag.fen.fullmove);
                break;
            }
            case String:
                w.string(m, tag.text);
                break;
            default:
                break;
        }
    }
    const std::string fen = fen_of(game.tags);
    bool black = !fen.empty() && fen_fields(fen) ? fen_fields(fen)->black : false;
    if (!fen.empty() && !fen_fields(fen)) black = fen.find(" b ") != std::string::npos;
    std::array<int64_t, 2> last_score{0, 0};
    w.number(m.count, game.elements.size());
    uint32_t previous = 0;
    for (const Element& e : game.elements) {
        const uint32_t kind = uint32_t(e.move) | uint32_t(e.comment.kind) << 1;
        w.tree(m.kind[previous], kind);
        previous = kind;
        bool mover = !black;  // a comment alone: the side that moved last
        if (e.move) {
            w.tree(m.move, e.index);
            mover = black;
            black = !black;
        }
        const Comment& c = e.comment;
        switch (c.kind) {
            case Centipawns:
                w.number(m.score, zigzag(c.score + last_score[!mover]));
                last_score[mover] = c.score;
                w.number(m.depth, c.depth);
                w.number(m.time, c.time_ms);
                break;
            case Mate:
                w.number(m.mate, zigzag(c.score));
                w.number(m.depth, c.depth);
                w.number(m.time, c.time_ms);
                break;
            case TimeOnly:
                w.number(m.time, c.time_ms);
                break;
            case Text:
                w.string(m, c.text);
                break;
            default:
                break;
        }
    }
    std::size_t result = 0;
    while (result < kResults.size() && kResults[result] != game.result) ++result;
    w.number(m.result, result);
    if (result == kResults.size()) w.string(m, game.result);
    w.finish();
    // The reader reads zeros past the end: trailing zeros need not be stored.
    while (out.size() > 1 && out.back() == '\0') out.pop_back();
    return out;
}

// Reads a game written by write() with the same models, bounded by the bytes it came in, or
// nullopt.
std::optional<Game> read(std::string_view packed, std::size_t max_elements, Models& m) {
    if (packed.empty() || uint8_t(packed[0]) != kCompactPgnFormat) return std::nullopt;
    Reader r(packed.substr(1));
    Game game;
    const uint64_t tags = r.number(m.count);
    if (!r.ok() || tags > 8 * packed.size() + 64) return std::nullopt;
    for (uint64_t t = 0; t < tags; ++t) {
        Tag& tag = game.tags.emplace_back();
        const uint64_t code = r.number(m.tag_name);
        if (code >= kTagNames.size()) return std::nullopt;
        tag.name = code == 0 ? r.string(m) : std::string(kTagNames[code]);
        const uint64_t kind = r.number(m.tag_kind);
        if (kind >= ValueKinds) return std::nullopt;
        tag.kind = ValueKind(kind);
        switch (tag.kind) {
            case Number:
            case Date:
            case RunEvent:
                tag.number = r.number(m.tag_number);
                break;
            case Known:
                tag.number = r.number(m.known);
                if (tag.number >= kValues.size()) return std::nullopt;
                break;
            case Fen: {
                const FenFields& start = start_fields();
                for (std::size_t s = 0; s < 64; ++s) {
                    tag.fen.squares[s] = start.squares[s];
                    if (r.bit(m.fen_changed[s])) tag.fen.squares[s] = uint8_t(r.tree(m.fen_piece));
                    if (tag.fen.squares[s] >= kPieces.size()) return std::nullopt;
                }
                tag.fen.black = r.bit(m.fen_flags[4]);
                for (int k = 0; k < 4; ++k)
                    if (r.bit(m.fen_flags[std::size_t(k)]))
                        tag.fen.castling = uint8_t(tag.fen.castling | (1 << k));
                tag.fen.ep = r.number(m.ep);
                tag.fen.halfmove = r.number(m.fen_number);
                tag.fen.fullmove = r.number(m.fen_number);
                if (tag.fen.ep > 64) return std::nullopt;
                tag.text = tag.fen.text();
                break;
            }
            case String:
                tag.text = r.string(m);
                break;
            default:
                break;
        }
        if (!r.ok()) return std::nullopt;
    }
    // The board's side to move, as write() sees it; the board itself is set up when rendered.
    const std::string fen = fen_of(game.tags);
    bool black = !fen.empty() && fen_fields(fen) ? fen_fields(fen)->black : false;
    if (!fen.empty() && !fen_fields(fen)) black = fen.find(" b ") != std::string::npos;
    std::array<int64_t, 2> last_score{0, 0};
    const uint64_t count = r.number(m.count);
    if (!r.ok() || count > max_elements) return std::nullopt;
    uint32_t previous = 0;
    for (uint64_t k = 0; k < count; ++k) {
        const uint32_t kind = r.tree(m.kind[previous]);
        previous = kind;
        Element& e = game.elements.emplace_back();
        e.move = kind & 1;
        if ((kind >> 1) >= CommentKinds || kind == 0) return std::nullopt;
        bool mover = !black;
        if (e.move) {
            e.index = uint8_t(r.tree(m.move));
            mover = black;
            black = !black;
        }
        Comment& c = e.comment;
        c.kind = CommentKind(kind >> 1);
        switch (c.kind) {
            case Centipawns:
                c.score =
                    int64_t(uint64_t(unzigzag(r.number(m.score))) - uint64_t(last_score[!mover]));
                last_score[mover] = c.score;
                c.depth = r.number(m.depth);
                c.time_ms = r.number(m.time);
                break;
            case Mate:
                c.score = unzigzag(r.number(m.mate));
                if (c.score == 0) return std::nullopt;
                c.depth = r.number(m.depth);
                c.time_ms = r.number(m.time);
                break;
            case TimeOnly:
                c.time_ms = r.number(m.time);
                break;
            case Text:
                c.text = r.string(m);
                break;
            default:
                break;
        }
        if (!r.ok()) return std::nullopt;
    }
    const uint64_t result = r.number(m.result);
    if (result > kResults.size()) return std::nullopt;
    game.result = result < kResults.size() ? std::string(kResults[result]) : r.string(m);
    if (!r.ok()) return std::nullopt;
    return game;
}

// Writes the game as text, as write_pgn lays it out, or nullopt (an illegal move index, a
// FEN the board refuses, text past max_bytes).
std::optional<std::string> render(const Game& game, std::size_t max_bytes) {
    const std::string fen = fen_of(game.tags);
    Board board;
    if (!fen.empty() && !board.set_fen(fen)) return std::nullopt;
    std::string movetext;
    MovetextLayout layout(&movetext);
    uint64_t moves = 0;
    bool after_move = false;
    for (const Element& e : game.elements) {
        if (movetext.size() > max_bytes) return std::nullopt;
        if (e.move) {
            const MoveList<> legal(board);
            if (e.index >= legal.size()) return std::nullopt;
            const Move m = legal.begin()[e.index];
            if (board.side() == WHITE)
                layout.token(std::to_string(board.fullmove_number()) + ".");
            else if (!after_move)
                layout.token(std::to_string(board.fullmove_number()) + "...");
            layout.token(to_san(board, legal, m));
            board.do_move(m);
            ++moves;
            after_move = true;
        }
        if (e.comment.kind != None) {
            layout.token("{" + e.comment.render() + "}");
            after_move = false;
        }
    }
    layout.token(game.result);

    std::string out;
    for (const Tag& tag : game.tags) {
        out += '[';
        out += tag.name;
        out += " \"";
        switch (tag.kind) {
            case Number:
                out += std::to_string(tag.number);
                break;
            case Date:
                out += date_text(tag.number);
                break;
            case PlyCount:
                out += std::to_string(moves);
                break;
            case SameAsResult:
                out += game.result;
                break;
            case Known:
                out += kValues[tag.number];
                break;
            case RunEvent:
                out += std::string(kRunEvent) + std::to_string(tag.number);
                break;
            default:
                out += tag.text;
        }
        out += "\"]\n";
        if (out.size() > max_bytes) return std::nullopt;
    }
    out += '\n';
    out += movetext;
    out += "\n\n";
    if (out.size() > max_bytes) return std::nullopt;
    return out;
}

// At most this many movetext elements per byte of a compact form: a real game's element costs
// a few bits at least, a forged count more than this is refused before any move is generated.
constexpr std::size_t kElementsPerByte = 64;

// The models after writing the sample games (pgn_codec_samples.h), where every game starts.
const Models& primed_models() {
    static const Models primed = [] {
        auto models = std::make_unique<Models>();
        std::string_view samples = kPgnCodecSamples;
        while (!samples.empty()) {
            const std::size_t next = samples.find("\n\n[");
            const std::size_t end = next == std::string_view::npos ? samples.size() : next + 2;
            if (const std::optional<Game> game = parse(samples.substr(0, end)))
                write(*game, *models);
            samples.remove_prefix(end);
        }
        return *models;
    }();
    return primed;
}

}  // namespace

std::optional<std::string> pack_pgn(std::string_view pgn) {
    std::optional<Game> game = parse(pgn);
    if (!game) return std::nullopt;
    auto models = std::make_unique<Models>(primed_models());
    return write(*game, *models);
}

std::optional<std::string> unpack_pgn(std::string_view packed, std::size_t max_text_bytes) {
    auto models = std::make_unique<Models>(primed_models());
    const std::optional<Game> game = read(packed, kElementsPerByte * packed.size() + 64, *models);
    if (!game) return std::nullopt;
    return render(*game, max_text_bytes);
}

constexpr std::size_t kMaxPgnText = 64u << 20;

std::string encode_pgn(std::string_view pgn) {
    if (pgn.size() <= kMaxPgnText) {
        std::optional<std::string> packed = pack_pgn(pgn);
        if (packed && unpack_pgn(*packed, pgn.size()) == pgn) return std::move(*packed);
    }
    return encode_pgn_zlib(pgn);
}

std::optional<std::string> decode_pgn(std::string_view stored) {
    if (!stored.empty() && uint8_t(stored[0]) == kCompactPgnFormat)
        return unpack_pgn(stored, kMaxPgnText);
    return decompress(stored, kMaxPgnText);
}

std::string encode_pgn_zlib(std::string_view pgn) {
    return compress(pgn);
}

}  // namespace sparring::coordinator
