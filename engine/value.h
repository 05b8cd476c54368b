// Search scores: the centipawn range, mate scores that carry their distance, and their
// conversion to the hash table's ply-independent form and to the UCI "mate N" form.
#pragma once

namespace sparring {

inline constexpr int MAX_PLY = 128;

inline constexpr int VALUE_DRAW = 0;
inline constexpr int VALUE_MATE = 32000;
inline constexpr int VALUE_INFINITE = 32001;
inline constexpr int VALUE_NONE = 32002;
inline constexpr int VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY;
inline constexpr int VALUE_MATED_IN_MAX_PLY = -VALUE_MATE_IN_MAX_PLY;

// Returns the score of mating the opponent ply half-moves from the root.
constexpr int mate_in(int ply) {
    return VALUE_MATE - ply;
}
// Returns the score of being mated ply half-moves from the root.
constexpr int mated_in(int ply) {
    return -VALUE_MATE + ply;
}
// Returns whether a score announces a forced mate for either side.
constexpr bool is_mate_score(int v) {
    return v >= VALUE_MATE_IN_MAX_PLY || v <= VALUE_MATED_IN_MAX_PLY;
}

// Converts a mate score relative to the root into one relative to the current node.
constexpr int value_to_tt(int v, int ply) {
    return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= VALUE_MATED_IN_MAX_PLY ? v - ply : v;
}
// Converts a mate score stored in the hash table back to one relative to the root.
constexpr int value_from_tt(int v, int ply) {
    if (v == VALUE_NONE) return v;
    return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= VALUE_MATED_IN_MAX_PLY ? v + ply : v;
}
// Returns the number of moves (not plies) to mate of a mate score, negative when mated.
constexpr int mate_distance_moves(int v) {
    return v > 0 ? (VALUE_MATE - v + 1) / 2 : -(VALUE_MATE + v) / 2;
}

}  // namespace sparring
