#include "match/output_checks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <utility>

#include "common/printable.h"
#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "match/child_process.h"

namespace sparring::match {

namespace {

struct CheckNames {
    OutputCheck check;
    std::string_view name;
    std::string_view text;
};

constexpr std::array<CheckNames, 7> kNames = {{
    {OutputCheck::BestmoveNone, "bestmove_none", "answers `bestmove (none)`"},
    {OutputCheck::BestmoveNull, "bestmove_null", "answers `bestmove 0000`"},
    {OutputCheck::BestmoveUnparsable, "bestmove_unparsable", "answers a bestmove that is no move"},
    {OutputCheck::PvIllegal, "pv_illegal", "sends a PV with an illegal move"},
    {OutputCheck::MatePv, "mate_pv", "sends a mate score its PV contradicts"},
    {OutputCheck::AfterBestmove, "after_bestmove", "writes output after its bestmove"},
    {OutputCheck::InfoUnparsable, "info_unparsable", "sends info lines that cannot be parsed"},
}};

// Splits a line at blanks (spaces and tabs).
std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        size_t end = i;
        while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
        if (end > i) out.push_back(line.substr(i, end - i));
        i = end;
    }
    return out;
}

// Returns whether text has the form of a UCI move: from and to squares and an optional
// promotion piece, in either case (as the game reads bestmove).
bool is_move_form(std::string_view text) {
    if (text.size() != 4 && text.size() != 5) return false;
    const auto lower = [&](size_t i) {
        return char(std::tolower(static_cast<unsigned char>(text[i])));
    };
    for (size_t i : {size_t(0), size_t(2)})
        if (lower(i) < 'a' || lower(i) > 'h' || text[i + 1] < '1' || text[i + 1] > '8')
            return false;
    return text.size() == 4 || std::string_view("qrbn").find(lower(4)) != std::string_view::npos;
}

// Returns the integer text holds (an optional minus and at most 18 digits), if it is one.
std::optional<std::int64_t> integer(std::string_view text) {
    const bool minus = !text.empty() && text[0] == '-';
    const std::string_view digits = text.substr(minus ? 1 : 0);
    if (digits.empty() || digits.size() > 18) return std::nullopt;
    std::int64_t value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return minus ? -value : value;
}

// An info line as read: whether it parsed, and its PV and exact mate score if any.
struct ParsedInfo {
    bool ok = true;
    std::vector<std::string_view> pv;
    std::optional<std::int64_t> mate;  // `score mate N` without a bound
};

// Reads an info line by UCI's grammar (and Stockfish's `wdl`); see docs/engines.md.
ParsedInfo parse_info(std::string_view line) {
    static constexpr std::string_view kOneNumber[] = {
        "depth",    "seldepth", "time",   "nodes",  "multipv", "currmovenumber",
        "hashfull", "nps",      "tbhits", "sbhits", "cpuload"};
    ParsedInfo info;
    const std::vector<std::string_view> w = words(line);
    size_t i = 1;  // past "info"
    const auto number_at = [&](size_t at) { return at < w.size() && integer(w[at]); };
    const auto moves_from = [&](size_t at, std::vector<std::string_view>* into) {
        while (at < w.size() && is_move_form(w[at])) {
            if (into) into->push_back(w[at]);
            ++at;
        }
        return at;
    };
    while (i < w.size()) {
        const std::string_view key = w[i];
        if (key == "string") return info;
        if (std::find(std::begin(kOneNumber), std::end(kOneNumber), key) != std::end(kOneNumber)) {
            if (!number_at(i + 1)) return {false, {}, {}};
            i += 2;
        } else if (key == "score") {
            if (i + 2 >= w.size() || (w[i + 1] != "cp" && w[i + 1] != "mate") || !number_at(i + 2))
                return {false, {}, {}};
            const bool mate = w[i + 1] == "mate";
            const std::int64_t value = *integer(w[i + 2]);
            i += 3;
            const bool bound = i < w.size() && (w[i] == "lowerbound" || w[i] == "upperbound");
            if (bound) ++i;
            info.mate = mate && !bound ? std::optional(value) : std::nullopt;
        } else if (key == "wdl") {
            if (!number_at(i + 1) || !number_at(i + 2) || !number_at(i + 3)) return {false, {}, {}};
            i += 4;
        } else if (key == "currmove") {
            if (i + 1 >= w.size() || !is_move_form(w[i + 1])) return {false, {}, {}};
            i += 2;
        } else if (key == "pv") {
            info.pv.clear();
            i = moves_from(i + 1, &info.pv);
        } else if (key == "refutation") {
            i = moves_from(i + 1, nullptr);
        } else if (key == "currline") {
            i = moves_from(i + 1 + (number_at(i + 1) ? 1 : 0), nullptr);
        } else {
            return {false, {}, {}};
        }
    }
    return info;
}

}  // namespace

std::string_view output_check_name(OutputCheck check) {
    for (const CheckNames& n : kNames)
        if (n.check == check) return n.name;
    return "unknown";
}

std::optional<OutputCheck> parse_output_check(std::string_view name) {
    for (const CheckNames& n : kNames)
        if (n.name == name) return n.check;
    return std::nullopt;
}

std::string_view output_check_text(OutputCheck check) {
    for (const CheckNames& n : kNames)
        if (n.check == check) return n.text;
    return "fails an unknown check";
}

std::string output_warning_line(std::string_view version, OutputCheck check, std::string_view go,
                                std::uint64_t games) {
    std::string line = std::string(version) + " " + std::string(output_check_text(check));
    const std::vector<std::string_view> w = words(go);
    if (!w.empty()) {
        line += " under `" + std::string(w[0]);
        if (w.size() > 1) line += " " + std::string(w[1]);
        line += "`";
    }
    return line + ": " + std::to_string(games) + (games == 1 ? " game" : " games");
}

std::optional<OutputCheck> check_bestmove(std::string_view line) {
    const std::vector<std::string_view> w = words(line);
    if (w.size() < 2) return OutputCheck::BestmoveUnparsable;
    if (w[1] == "(none)") return OutputCheck::BestmoveNone;
    if (w[1] == "0000") return OutputCheck::BestmoveNull;
    if (!is_move_form(w[1])) return OutputCheck::BestmoveUnparsable;
    return std::nullopt;
}

std::optional<OutputCheck> check_info(const Board& board, std::string_view line) {
    const ParsedInfo info = parse_info(line);
    if (!info.ok) return OutputCheck::InfoUnparsable;
    if (info.pv.empty()) return std::nullopt;
    Board after = board;
    for (std::string_view text : info.pv) {
        const Move m = parse_uci(after, text);
        if (m.is_none()) return OutputCheck::PvIllegal;
        after.do_move(m);
    }
    if (!info.mate) return std::nullopt;
    const std::int64_t n = *info.mate;
    // The ply of the mating move: the mover's n-th (n > 0) or the opponent's -n-th (n < 0).
    // `mate 0` is no mate of a position the engine was asked to move in.
    const std::int64_t mating_ply = n > 0 ? 2 * n - 1 : -2 * n;
    const auto plies = std::int64_t(info.pv.size());
    const bool ended = MoveList<>(after).size() == 0;
    const bool consistent =
        n != 0 && (ended ? after.in_check() && plies == mating_ply : plies < mating_ply);
    return consistent ? std::nullopt : std::optional(OutputCheck::MatePv);
}

void OutputChecks::start_game(ChildProcess* process) {
    warnings_.clear();
    read_late_lines(process);
}

void OutputChecks::go(ChildProcess* process, std::string_view command) {
    read_late_lines(process);
    go_ = std::string(utf8_prefix(command, kMaxOutputExampleBytes));
    answered_ = false;
}

void OutputChecks::info(const Board& board, std::string_view line) {
    if (std::optional<OutputCheck> check = check_info(board, line)) add(*check, line);
}

void OutputChecks::bestmove(std::string_view line) {
    if (std::optional<OutputCheck> check = check_bestmove(line)) add(*check, line);
    answered_ = true;
}

void OutputChecks::read_late_lines(ChildProcess* process) {
    if (!process) return;
    for (std::string line; process->read_ready_line(&line);)
        if (answered_) add(OutputCheck::AfterBestmove, line);
}

std::vector<OutputWarning> OutputChecks::take() {
    std::sort(warnings_.begin(), warnings_.end(),
              [](const OutputWarning& a, const OutputWarning& b) { return a.check < b.check; });
    return std::exchange(warnings_, {});
}

void OutputChecks::add(OutputCheck check, std::string_view line) {
    auto it = std::find_if(warnings_.begin(), warnings_.end(),
                           [&](const OutputWarning& w) { return w.check == check; });
    if (it == warnings_.end()) {
        warnings_.push_back({check, 1, valid_utf8(utf8_prefix(line, kMaxOutputExampleBytes)), go_});
        return;
    }
    it->count = std::min(it->count + 1, kMaxOutputCount);
}

}  // namespace sparring::match
