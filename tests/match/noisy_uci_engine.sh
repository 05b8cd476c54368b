#!/bin/bash
# A test-only UCI engine that plays the legal moves of a real one (its first argument, e.g.
# /usr/games/stockfish) while its output fails the engine-output checks (match/output_checks.h):
# before each bestmove it writes an info line whose PV is illegal (`pv a1a1`) and one that
# cannot be parsed (`info depth x`); in the same write as the bestmove, a line after it
# (`info string after bestmove`). With `null` as its second argument, its fifth answer of each
# process is `bestmove 0000` (a game lost by an illegal move).
# Usage: noisy_uci_engine.sh ENGINE [null]
engine=$1
mode=$2
coproc ENGINE { exec "$engine" 2>/dev/null; }
exec 3>&"${ENGINE[1]}" 4<&"${ENGINE[0]}" 5<&0
cat <&5 >&3 &  # what we are told goes to the engine as it is
answers=0
while IFS= read -r line <&4; do
    case "$line" in
    bestmove*)
        answers=$((answers + 1))
        [ "$mode" = null ] && [ "$answers" = 5 ] && line="bestmove 0000"
        # One write (bash's own printf writes line by line): the line after the bestmove is
        # there when the worker reads the bestmove.
        env printf 'info depth 1 score cp 0 pv a1a1\ninfo depth x\n%s\ninfo string after bestmove\n' \
            "$line"
        ;;
    *) printf '%s\n' "$line" ;;
    esac
done
