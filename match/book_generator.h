// Generates an opening book reproducibly: random legal moves from the start position, kept
// when a short search of the built-in engine finds the position roughly balanced.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "common/opening.h"
#include "engine/params.h"

namespace sparring::match {

struct BookGeneratorOptions {
    int positions = 1200;  // distinct positions wanted
    std::uint64_t seed = 1;
    int min_plies = 6;            // random moves from the start position, at least
    int max_plies = 10;           // and at most
    int max_score_cp = 80;        // keep a position when |score| is at most this
    std::uint64_t nodes = 20000;  // search of each candidate position
    ParamSet params;              // of the engine that judges the positions
    // Positions (the first four FEN fields) never written: another book's (book_positions),
    // so that the two share no opening.
    std::set<std::string> exclude;
};

struct BookPosition {
    std::string epd;   // the first four FEN fields
    int score_cp = 0;  // side to move's point of view
};

// Returns up to options.positions distinct positions (fewer only when too many candidates
// fail the score test), the same ones for the same options and engine; on_found, when given,
// is called with the number found so far.
std::vector<BookPosition> generate_book(const BookGeneratorOptions& options,
                                        const std::function<void(int)>& on_found = {});
// Returns the position each opening hands the engines (after its moves), as the first four
// FEN fields: what BookGeneratorOptions::exclude takes. The openings are a read book's, their
// positions and moves checked when it was read.
std::set<std::string> book_positions(const std::vector<Opening>& book);
// Writes the positions as EPD lines with their score as a "ce" operation.
void write_epd(std::ostream& out, const std::vector<BookPosition>& positions);

}  // namespace sparring::match
