#!/bin/bash
# A test-only UCI engine that misbehaves on purpose when asked to move:
#   crash    exits with status 3
#   hang     never answers (not even to stop)
#   illegal  answers "bestmove a1a1"
#   slow     sleeps 0.3 s, then plays a1a8
#   silent   exits before finishing the uci handshake
# In every mode it declares the spin option Weight (default 100, 0..200), and exits with
# status 4 on a setoption whose value is "refused" (an engine refusing a value).
# Usage: fake_uci_engine.sh MODE [LOG]; every start appends "start" to LOG, and every
# setoption its line.
mode=$1
log=$2
[ -n "$log" ] && echo "start" >> "$log"
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
