#!/usr/bin/env bash
# Issue 20, item 10: one run over MPI ranks, measured on this machine.
#   1. W2 on the CPU over 1-4 ranks against one plain process: whole-job wall time (median of
#      REPEATS), and MPI's share: rank 0's time receiving the other ranks' batches (MPI_Recv and
#      decoding, result.json's run.rank_transfers) per batch, against a batch's compute time.
#   2. The modelled case: W2's chain on 8 sim devices per rank (bench/sim_models/h100_measured.json:
#      the H100's measured stage rates) over 1, 2 and 4 ranks, i.e. 8 to 32 modelled GPUs (and 32 as
#      2 x 16 and as one process's 32, beside them), on W2's
#      channels and length with 4x its epochs (8192 series, batches of 16, read from an .npy file),
#      with 200 and with 1000 surrogates: rank 0's run time (run.wall_s, median) against the ideal
#      (the model's device time over the devices), and MPI's share of a batch's modelled time.
#   bench/ranks_scaling.sh [REPEATS]     (writes its inputs and outputs under out/ranks_scaling)
set -euo pipefail
repeats=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=$root/build/bin/pipeline_cli
model=$root/bench/sim_models/h100_measured.json
work=$root/out/ranks_scaling
mkdir -p "$work"
launch=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { python3 -c "print(round($1, $2))"; }  # EXPRESSION DIGITS
field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["run"]; print(eval(sys.argv[2]))' "$work/out/result.json" "$1"; }

echo "## W2 on the CPU over ranks ($(nproc) cores; median of $repeats)"
echo
echo "| processes | whole job | speed-up | rank 0 receiving, per batch received | share of a batch's compute |"
echo "| --- | --- | --- | --- | --- |"
for n in 0 1 2 3 4; do  # 0: one plain process, without mpirun
  walls=() receiving=()
  for _ in $(seq "$repeats"); do
    rm -rf "$work/out"
    start=$(date +%s.%N)
    if ((n == 0)); then "$cli" run -q "$root/pipelines/bench/w2.pipe" --out "$work/out"
    else "${launch[@]}" -n "$n" "$cli" run -q "$root/pipelines/bench/w2.pipe" --out "$work/out"; fi
    walls+=("$(calc "$(date +%s.%N) - $start" 3)")
    receiving+=("$(field 'r["rank_transfers"]["receiving_s"] / max(r["rank_transfers"]["batches"], 1) if "rank_transfers" in r else 0')")
  done
  wall=$(printf '%s\n' "${walls[@]}" | median)
  [[ $n == 0 ]] && { single=$wall; batches=$(field 'r["batches"]'); }
  per_batch=$(printf '%s\n' "${receiving[@]}" | median)
  echo "| $([[ $n == 0 ]] && echo "1, no mpirun" || echo "mpirun -n $n") | ${wall} s | $(calc "$single / $wall" 2) | $(calc "$per_batch * 1000" 2) ms | $(calc "100 * $per_batch * $batches / $single" 3) % |"
done

echo
echo "## The modelled case: 8 sim devices per rank (median of $repeats)"
echo
/usr/bin/python3 -c "import numpy as np; np.save('$work/w2x4.npy', np.random.default_rng(1).standard_normal((128, 64, 4096)).astype(np.float32))"
echo "| surrogates | ranks x sim devices | rank 0's run time | ideal (model's device time / devices) | efficiency | MPI receiving per batch | share of a batch's modelled time |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for surrogates in 200 1000; do
  printf 'source npy path=w2x4.npy fs=512\nstage bandpass pha=2:20:10 amp=60:160:10\nstage hilbert\nstage mi bins=18\nstage surrogates n=%s trials=none\nsink npy dir=out\n' \
    "$surrogates" > "$work/w2x4.pipe"
  device_s=$("$cli" validate --json --devices sim:0 --sim-model "$model" --batch 16 "$work/w2x4.pipe" |
    python3 -c 'import json, sys; print(sum(t["seconds"] for t in json.load(sys.stdin)["run_time_estimate"]["terms"] if "stage" in t))')
  for config in 1x8 2x8 4x8 2x16 1x32; do
    n=${config%x*} per_rank=${config#*x}
    walls=() receiving=()
    for _ in $(seq "$repeats"); do
      rm -rf "$work/out"
      options=(run -q "$work/w2x4.pipe" --devices "sim:0-$((per_rank - 1))" --sim-model "$model" --batch 16
               --out "$work/out")
      if ((n == 1)); then "$cli" "${options[@]}" 2> /dev/null; else "${launch[@]}" -n "$n" "$cli" "${options[@]}" 2> /dev/null; fi
      walls+=("$(field 'r["wall_s"]')")
      receiving+=("$(field 'r["rank_transfers"]["receiving_s"] / max(r["rank_transfers"]["batches"], 1) if "rank_transfers" in r else 0')")
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    ideal=$(calc "$device_s / ($per_rank * $n)" 4)
    per_batch=$(printf '%s\n' "${receiving[@]}" | median)
    batch_s=$(calc "$device_s * 16 / 8192" 6)
    echo "| $surrogates | $n x $per_rank | $(calc "$wall" 3) s | $(calc "$ideal" 3) s | $(calc "100 * $ideal / $wall" 1) % | $(calc "$per_batch * 1000" 3) ms | $(calc "100 * $per_batch / $batch_s" 2) % |"
  done
done
