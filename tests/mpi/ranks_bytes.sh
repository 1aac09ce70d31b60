#!/usr/bin/env bash
# One pipeline run by mpirun over 1, 2, 3 and 4 ranks writes the bytes a single process writes:
# every output file identical, and result.json too apart from `run` (timings, batches, ranks),
# `provenance` (the machine, the time) and `host_memory_estimate` (each process's own, with its threads).
#   tests/mpi/ranks_bytes.sh PIPELINE_CLI MPIRUN PIPE [RUN OPTIONS...]
set -euo pipefail
cli=$1 mpirun=$2 pipe=$3
shift 3
options=("$@")
work=$(mktemp -d)
python=/usr/bin/python3  # Debian's, with h5py (tools/debian-packages.lock)
[[ -x $python ]] || python=python3
trap 'rm -rf "$work"' EXIT
# As root (CI), Open MPI wants --allow-run-as-root; --oversubscribe: more ranks than these 2 cores.
# --bind-to none: each rank may use every core, as one process does (Open MPI binds one rank per core
# by default when there are no more ranks than cores).
launch=("$mpirun" --allow-run-as-root --oversubscribe --bind-to none)
# Every run writes into the same folder (result.json names it), moved aside to be compared.
"$cli" run -q --out "$work/out" "${options[@]}" "$pipe"
mv "$work/out" "$work/single"
for n in 1 2 3 4; do
  "${launch[@]}" -n "$n" "$cli" run -q --out "$work/out" "${options[@]}" "$pipe"
  for file in "$work/single"/*; do
    name=$(basename "$file")
    if [[ $name == *.h5 ]]; then
      # The hdf5 sink stores the report too (its timings differ from run to run): every dataset's
      # bytes, and every attribute but the report's timings and machine.
      "$python" - "$file" "$work/out/$name" <<'PY'
import json, sys
import h5py
volatile = ("run", "provenance", "host_memory_estimate")
def walk(group, into):
    for key, value in group.attrs.items():
        if key == "result_json":
            value = {k: v for k, v in json.loads(value).items() if k not in volatile}
        into[(group.name, "attr", key)] = repr(value)
    for key, item in group.items():
        if isinstance(item, h5py.Dataset):
            into[(item.name, "data")] = (item.dtype.str, item.shape, item[()].tobytes())
        elif key not in volatile:
            walk(item, into)
    return into
a, b = (walk(h5py.File(p, "r"), {}) for p in sys.argv[1:])
sys.exit(0 if a == b else f"{sys.argv[2]}: differs in {sorted(str(k) for k in a.keys() | b.keys() if a.get(k) != b.get(k))[:5]}")
PY
    elif [[ $name == result.json ]]; then
      "$python" - "$file" "$work/out/$name" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for r in (a, b):
    r.pop("run"), r.pop("provenance", None), r.pop("host_memory_estimate", None)
sys.exit(0 if a == b else f"result.json differs: {sorted(k for k in a if a[k] != b.get(k))}")
PY
    else
      cmp -s "$file" "$work/out/$name" || { echo "$name: $n ranks wrote other bytes than one process" >&2; exit 1; }
    fi
  done
  echo "$(basename "$pipe") over $n ranks: $(ls "$work/single" | wc -l) files identical"
  rm -rf "$work/out"
done
