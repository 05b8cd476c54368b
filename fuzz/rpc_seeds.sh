#!/usr/bin/env bash
# Encodes the readable requests in fuzz/rpc_seeds/ (METHOD[.variant].txtpb, protobuf text
# format) into fuzz_rpc's seed corpus: the method's index in the order fuzz_rpc lists them
# (WorkerService's methods, then UserService's, as the .proto files declare them), a
# credential byte of 0 (the right token), then the request in binary. Rerun it after adding
# a seed or an RPC.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
proto=$root/proto
out=$root/fuzz/corpus/rpc
mkdir -p "$out"
rm -f "$out"/*
mapfile -t rpcs < <(cat "$proto"/sparring/v1/worker.proto "$proto"/sparring/v1/user.proto |
                    sed -n 's/^ *rpc \([A-Za-z]*\)(\([A-Za-z]*\)).*/\1 \2/p')
for seed in "$root"/fuzz/rpc_seeds/*.txtpb; do
    file=$(basename "$seed" .txtpb)
    method=${file%%.*}
    index=-1
    for i in "${!rpcs[@]}"; do
        [ "${rpcs[$i]%% *}" = "$method" ] && index=$i && type=${rpcs[$i]#* }
    done
    [ "$index" -ge 0 ] || { echo "rpc_seeds: no RPC $method (from $seed)" >&2; exit 1; }
    { printf "\\$(printf '%03o' "$index")\\000"
      protoc -I "$proto" --encode="sparring.v1.$type" sparring/v1/worker.proto sparring/v1/user.proto \
          < "$seed"; } > "$out/$file"
done
echo "rpc_seeds: $(ls "$out" | wc -l) seeds in $out"
