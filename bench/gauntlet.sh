#!/bin/bash
# Strength gauntlet: the built-in engine (default parameters, in-process) against Debian's
# engines at 5 s + 0.05 s with `sparring match`, one match per opponent, openings from the
# shipped book (match/books/default.epd), every opening played twice with colours reversed.
#
# Usage: bench/gauntlet.sh BUILD_DIR [GAMES_PER_OPPONENT] [CONCURRENCY]
#   GAMES_PER_OPPONENT  even number of games against each opponent (default 100)
#   CONCURRENCY         games at once (default 2; use 1 if time losses are frequent)
# Environment:
#   OPPONENTS  which opponents to play, in this order (default all, in the order below):
#              sf1500 glaurung toga2 sf2000 sf2500
#   OUT_DIR    where PGN, reports and the summary go (default BUILD_DIR/gauntlet)
#   TC         time control (default 5+0.05); SEED book-order seed (default 1)
#
# Per opponent it writes OUT_DIR/NAME.pgn (every game), OUT_DIR/NAME.txt (the runner's
# report) and OUT_DIR/NAME.progress (the progress lines), prints the report, and at the end
# prints a summary table of every NAME.txt in OUT_DIR. Runs with different OPPONENTS and game
# counts can share one OUT_DIR (e.g. more games against sf1500 than against the others): each
# run replaces only the files of the opponents it plays. Time losses are counted from the
# PGN (Termination "time forfeit"), split by who lost on time.
#
# Opponents (options checked against each engine's `uci` answer):
#   sf1500/2000/2500  Stockfish 15.1, Threads=1, Hash=16, UCI_LimitStrength=true, UCI_Elo=N,
#                     Move Overhead=100 (default 10: under load, limited-strength Stockfish
#                     ran its clock down and overran it by 1-100 ms in 9 of 100 games)
#   glaurung          Glaurung 2.2, Threads=1 (its default is 2), Hash=16, OwnBook=false,
#                     Ponder=false, a 300 ms time margin (it overruns its clock otherwise)
#   toga2             Toga II 3.0, "Number of Threads"=1, Hash=16 (default 128), OwnBook=false
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$(realpath "$1")
games=${2:-100}
concurrency=${3:-2}
tc=${TC:-5+0.05}
seed=${SEED:-1}
opponents=${OPPONENTS:-sf1500 glaurung toga2 sf2000 sf2500}
out=${OUT_DIR:-$build/gauntlet}
sparring=$build/cli/sparring
book=$root/match/books/default.epd
all_opponents="sf1500 glaurung toga2 sf2000 sf2500"

[ -x "$sparring" ] || { echo "missing $sparring: build first" >&2; exit 1; }
if [ $((games % 2)) -ne 0 ] || [ "$games" -lt 2 ]; then
    echo "GAMES_PER_OPPONENT must be an even number >= 2, got $games" >&2
    exit 1
fi
mkdir -p "$out"

# Prints the engine argument of an opponent.
spec() {
    local sf=/usr/games/stockfish
    case $1 in
        sf1500 | sf2000 | sf2500)
            echo "name=$1,cmd=$sf,option.Threads=1,option.Hash=16,option.Move Overhead=100,option.UCI_LimitStrength=true,option.UCI_Elo=${1#sf}"
            ;;
        glaurung)
            echo "name=glaurung,cmd=/usr/games/glaurung,option.Threads=1,option.Hash=16,option.OwnBook=false,option.Ponder=false,margin=300"
            ;;
        toga2)
            echo "name=toga2,cmd=/usr/games/toga2,option.Number of Threads=1,option.Hash=16,option.OwnBook=false"
            ;;
        *)
            echo "unknown opponent '$1' (known: $all_opponents)" >&2
            return 1
            ;;
    esac
}

for name in $opponents; do spec "$name" > /dev/null; done

echo "gauntlet: builtin (default parameters) vs [$opponents], $games games each, tc $tc," \
     "concurrency $concurrency, book $book, seed $seed"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "output: $out"

for name in $opponents; do
    rm -f "$out/$name.pgn" "$out/$name.txt" "$out/$name.progress"
    echo
    echo "== $name: $(spec "$name")  (start $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    # A failed or interrupted match (Ctrl-C reports the finished pairs) does not stop the rest.
    status=0
    "$sparring" match --tc "$tc" --games "$games" --concurrency "$concurrency" \
        --book "$book" --seed "$seed" --event "Sparring gauntlet $tc" \
        --pgn-out "$out/$name.pgn" builtin "$(spec "$name")" \
        > "$out/$name.txt" 2> "$out/$name.progress" || status=$?
    cat "$out/$name.txt"
    [ "$status" -eq 0 ] || echo "   (sparring match exited with status $status; see $out/$name.progress)"
done

# Prints "OURS THEIRS": games each side lost on time in a PGN file, the built-in engine being
# the player whose name starts with "builtin".
time_losses() {
    [ -s "$1" ] || { echo "0 0"; return; }
    awk '
        function flush() {
            if (term == "time forfeit") {
                loser = (result == "1-0") ? black : (result == "0-1") ? white : ""
                if (loser ~ /^builtin/) ours++; else if (loser != "") theirs++
            }
            white = black = result = term = ""
        }
        /^\[White "/ { white = $0; sub(/^\[White "/, "", white); sub(/"\]$/, "", white) }
        /^\[Black "/ { black = $0; sub(/^\[Black "/, "", black); sub(/"\]$/, "", black) }
        /^\[Result "/ { result = $0; sub(/^\[Result "/, "", result); sub(/"\]$/, "", result) }
        /^\[Termination "/ { term = $0; sub(/^\[Termination "/, "", term); sub(/"\]$/, "", term) }
        /^\[Event "/ { flush() }
        END { flush(); print ours + 0, theirs + 0 }
    ' "$1"
}

echo
echo "summary (Elo from the built-in engine's side, 95% CI from the pentanomial pair counts)"
printf '%-10s %6s  %-14s %7s  %-16s %-18s %s\n' opponent games W/D/L score "Elo +- CI" \
    "95% CI" "time losses (builtin/opp)"
for name in $all_opponents; do
    report=$out/$name.txt
    [ -s "$report" ] || continue
    header=$(head -n1 "$report")
    n=$(echo "$header" | sed -n 's/.*: \([0-9]*\) games.*/\1/p')
    wdl=$(sed -n 's/^  W\/D\/L *\([0-9]*\) \/ \([0-9]*\) \/ \([0-9]*\).*/\1\/\2\/\3/p' "$report")
    score=$(sed -n 's/^  W\/D\/L.*(score \(.*\))/\1/p' "$report")
    elo=$(sed -n 's/^  Elo *\([-+0-9.]*\) +- \([0-9.]*\).*/\1 +- \2/p' "$report")
    ci=$(sed -n 's/^  Elo.*(95% CI \(.*\))/\1/p' "$report")
    read -r ours theirs < <(time_losses "$out/$name.pgn")
    printf '%-10s %6s  %-14s %7s  %-16s %-18s %s / %s\n' "$name" "${n:-0}" "${wdl:--}" \
        "${score:--}" "${elo:--}" "${ci:--}" "$ours" "$theirs"
done
