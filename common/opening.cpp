#include "common/opening.h"

#include <numeric>
#include <utility>

#include "common/random.h"

namespace sparring {

// Maps an order name to its value.
std::optional<BookOrder> parse_book_order(std::string_view text) {
    if (text == "sequential") return BookOrder::Sequential;
    if (text == "random") return BookOrder::Random;
    return std::nullopt;
}

// Shuffles the indices with Fisher-Yates when the order is random.
std::vector<std::size_t> opening_order(std::size_t size, BookOrder order, std::uint64_t seed) {
    std::vector<std::size_t> indices(size);
    std::iota(indices.begin(), indices.end(), std::size_t(0));
    if (order == BookOrder::Sequential) return indices;
    // The coordinator computes a run's order again after a restart: it must never change.
    SplitMix64 random(seed);
    for (std::size_t i = size; i > 1; --i) std::swap(indices[i - 1], indices[random.next() % i]);
    return indices;
}

std::string replay_warning(std::string_view games, std::uint64_t pairs, std::size_t openings,
                           const TimeControl& tc) {
    const bool deterministic =
        tc.kind == TimeControl::Kind::Nodes || tc.kind == TimeControl::Kind::Depth;
    if (!deterministic || pairs <= openings) return "";
    const std::string need = std::to_string(pairs);
    const bool one = pairs - openings == 1;
    const std::string past =
        one ? "the pair" : "the " + std::to_string(pairs - openings) + " pairs";
    const char* they = one ? "it adds" : "they add";
    const char* them = one ? "it" : "them";
    return std::string(games) + " need " + need + " openings, and the book has " +
           std::to_string(openings) + ". At " + tc.to_string() +
           " a game is decided by its opening and its engines, so " + past +
           " past the book's end would replay games already played: " + they +
           " no information, yet Elo, its interval and the SPRT would count " + them +
           " as new. Use a book of at least " + need +
           " openings (sparring book generate --out FILE --positions " + need + ").";
}

std::string_view first_sentence(std::string_view warning) {
    const size_t end = warning.find(". ");
    return end == std::string_view::npos ? warning : warning.substr(0, end + 1);
}

}  // namespace sparring
