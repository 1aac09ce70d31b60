#!/usr/bin/env bash
# A rank that fails mid-run (a NaN in the batch it reads) stops the whole job: its error names the
# rank, element and batch, mpirun exits with the CLI's code for bad input (2), and no output appears.
#   tests/mpi/rank_failure.sh PIPELINE_CLI MPIRUN
set -euo pipefail
cli=$1 mpirun=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# [32 epochs][4 channels][1024] float32 noise with one NaN at epoch 21, channel 2, sample 100: with
# blocks of 4 epochs and --batch 16, batch 5, which rank 2 of 3 computes.
python3 - "$work/x.npy" <<'PY'
import array, random, sys
random.seed(1)
values = array.array("f", (random.gauss(0, 1) for _ in range(32 * 4 * 1024)))
values[(21 * 4 + 2) * 1024 + 100] = float("nan")
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (32, 4, 1024), }"
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + values.tobytes())
PY
cat > "$work/x.pipe" <<PIPE
source npy path=$work/x.npy fs=256
stage bandpass pha=4:12:3 amp=60:100:3
stage hilbert
stage mi
stage surrogates n=20 trial_block=4 min_shift=0.5s
sink npy dir=$work/out
PIPE
set +e
"$mpirun" --allow-run-as-root --oversubscribe --bind-to none -n 3 "$cli" run -q --batch 16 "$work/x.pipe" 2> "$work/stderr"
code=$?
set -e
cat "$work/stderr"
[[ $code == 2 ]] || { echo "mpirun exited with $code, not 2" >&2; exit 1; }
grep -q 'error: rank 2: source "npy" failed on batch 5: .*NaN at epoch 21, channel 2, sample 100' "$work/stderr" ||
  { echo "the error does not name rank 2, the source and batch 5" >&2; exit 1; }
if [[ -d $work/out ]] && [[ -n $(ls -A "$work/out") ]]; then
  echo "outputs appeared: $(ls -A "$work/out")" >&2
  exit 1
fi
echo "rank 2's failure stopped the job with exit code 2, no output"
