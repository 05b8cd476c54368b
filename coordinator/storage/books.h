// Opening books stored once each (schema 21): a run's book is a row of `books`, keyed by the
// SHA-256 of its openings' lines, that every run of the same book shares (runs.book_id). A
// book of 10,000 openings is about 150 KB compressed; stored per run it would be that again
// for every run submitted with it.
#pragma once

#include <cstdint>
#include <string_view>

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

// Returns the id of the book of these lines ("FEN<TAB>moves" a line, as format_openings writes
// them) holding `openings` openings, storing it compressed unless it is stored already.
int64_t store_book(Database& db, std::string_view lines, uint64_t openings);

}  // namespace sparring::coordinator
