#!/bin/bash
# A test-only UCI engine that faults on some openings only: it plays Debian's Stockfish's moves
# (/usr/games/stockfish), except that at a game's first `go` from an opening whose position
# (the `position` line before " moves") has an odd checksum it answers "bestmove (none)", as
# Debian's Glaurung 2.2 does under `go nodes`. Both games of a pair start from the same
# opening: a pair is faulty in both games or clean in both, fixed by the book and its seed.
# It declares the spin option Weight (default 100, 0..200) and otherwise ignores it.
coproc ENGINE { exec /usr/games/stockfish 2>/dev/null; }
# Passes a command on and Stockfish's answers back, up to the line starting with $1 (none: no
# answer awaited); $3 set: the answers are not passed on.
forward() {
    echo "$2" >&"${ENGINE[1]}"
    [ -z "$1" ] && return
    while read -r answer <&"${ENGINE[0]}"; do
        [ -z "$3" ] && echo "$answer"
        [ "${answer#"$1"}" != "$answer" ] && return
    done
}
first=1
while read -r line; do
    case "$line" in
    uci)
        forward uciok uci quiet
        echo "id name fault-by-opening"
        echo "option name Weight type spin default 100 min 0 max 200"
        echo "uciok"
        ;;
    "setoption name Weight "*) ;;
    isready) forward readyok isready ;;
    ucinewgame) first=1; forward "" ucinewgame ;;
    position*) position=$line; forward "" "$line" ;;
    go*)
        sum=$(printf '%s' "${position%% moves*}" | cksum)
        if [ "$first" = 1 ] && [ $(( ${sum%% *} % 2 )) = 1 ]; then
            echo "bestmove (none)"
        else
            forward bestmove "$line"
        fi
        first=0
        ;;
    quit) forward "" quit; exit 0 ;;
    *) forward "" "$line" ;;
    esac
done
exit 0
