#!/bin/bash
# A test-only UCI engine that misbehaves on purpose when asked to move:
#   crash    exits with status 3
#   hang     never answers (not even to stop)
#   illegal  answers "bestmove a1a1"
#   slow     sleeps 0.3 s, then plays a1a8
#   silent   exits before finishing the uci handshake
#   crash-after-N  plays Debian's Stockfish's moves (/usr/games/stockfish) for its first N
#            moves of a game (counted from ucinewgame), then at its next go writes
#            "fake-engine: assertion failed ..." to stderr and dies by SIGSEGV
# In every mode it declares the spin option Weight (default 100, 0..200), and exits with
# status 4 on a setoption whose value is "refused" (an engine refusing a value).
# Usage: fake_uci_engine.sh MODE [LOG]; every start appends "start" to LOG, and every
# setoption its line.
mode=$1
log=$2
[ -n "$log" ] && echo "start" >> "$log"
if [ "${mode#crash-after-}" != "$mode" ]; then
    limit=${mode#crash-after-}
    coproc ENGINE { exec /usr/games/stockfish 2>/dev/null; }
    # Passes a command on and Stockfish's answers back, up to the line starting with $1.
    forward() {
        echo "$2" >&"${ENGINE[1]}"
        [ -z "$1" ] && return
        while read -r answer <&"${ENGINE[0]}"; do
            echo "$answer"
            [ "${answer#"$1"}" != "$answer" ] && return
        done
    }
    moves=0
    while read -r line; do
        case "$line" in
        uci) forward uciok uci ;;
        isready) forward readyok isready ;;
        ucinewgame) moves=0; forward "" ucinewgame ;;
        go*)
            if [ "$moves" -ge "$limit" ]; then
                echo "fake-engine: assertion failed: move $((moves + 1)) after '$position'" >&2
                kill -SEGV $$
            fi
            moves=$((moves + 1))
            forward bestmove "$line"
            ;;
        position*) position=$line; forward "" "$line" ;;
        quit) forward "" quit; exit 0 ;;
        *) forward "" "$line" ;;
        esac
    done
    exit 0
fi
while read -r line; do
    case "$line" in
    uci)
        [ "$mode" = silent ] && exit 0
        echo "id name fake-$mode"
        echo "option name Weight type spin default 100 min 0 max 200"
        echo "uciok"
        ;;
    setoption*)
        [ -n "$log" ] && echo "$line" >> "$log"
        [ "${line##* value }" = refused ] && exit 4
        ;;
    isready) echo "readyok" ;;
    go*)
        case "$mode" in
        crash) exit 3 ;;
        hang) sleep 1000 ;;
        illegal)
            echo "info depth 1 score cp 12"
            echo "bestmove a1a1"
            ;;
        slow)
            sleep 0.3
            echo "info depth 3 score mate 1"
            echo "bestmove a1a8"
            ;;
        esac
        ;;
    quit) exit 0 ;;
    esac
done
