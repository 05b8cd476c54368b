#!/bin/bash
# A test-only UCI engine that misbehaves on purpose when asked to move:
#   crash    exits with status 3
#   hang     never answers (not even to stop)
#   illegal  answers "bestmove a1a1"
#   slow     sleeps 0.3 s, then plays a1a8
#   silent   exits before finishing the uci handshake
# Usage: fake_uci_engine.sh MODE [LOG]; every start appends a line to LOG.
mode=$1
log=$2
[ -n "$log" ] && echo "start" >> "$log"
while read -r line; do
    case "$line" in
    uci)
        [ "$mode" = silent ] && exit 0
        echo "id name fake-$mode"
        echo "uciok"
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
