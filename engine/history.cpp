#include "engine/history.h"

#include <cstring>

namespace sparring {

void SearchHistory::clear() {
    std::memset(butterfly, 0, sizeof(butterfly));
    std::memset(capture, 0, sizeof(capture));
    std::memset(continuation, 0, sizeof(continuation));
    for (auto& row : counter_moves)
        for (Move& m : row) m = Move::none();
    for (auto& pair : killers) pair[0] = pair[1] = Move::none();
}

}  // namespace sparring
