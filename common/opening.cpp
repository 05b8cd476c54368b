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

}  // namespace sparring
