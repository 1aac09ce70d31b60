#!/usr/bin/env bash
# Whether folder ACTUAL holds what folder EXPECTED (one process's run) holds: every file byte for
# byte, except result.json, compared without `run` (timings, batches, ranks), `provenance` (the
# machine, the time) and `host_memory_estimate` (each process's own, with its threads), and an .h5
# file, compared by its datasets' bytes and its attributes (the stored report's timings apart).
# With `other_batches` (a resumed run; rings between pinned stages over ranks, where every segment
# takes one batch size), result.json's `segments` (the batches the run carried) is left out too.
# Exits 1 naming the first difference.
#   tests/mpi/same_outputs.sh EXPECTED ACTUAL [other_batches]
set -euo pipefail
expected=$1 actual=$2 other_batches=${3:-}
python=/usr/bin/python3  # Debian's, with h5py (tools/debian-packages.lock)
[[ -x $python ]] || python=python3
[[ -n $(ls -A "$expected") ]] || { echo "$expected holds nothing to compare" >&2; exit 1; }
for file in "$expected"/*; do
  name=$(basename "$file")
  if [[ $name == *.h5 ]]; then
    "$python" - "$file" "$actual/$name" <<'PY'
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
            data = item[()]  # text (a dimension scale's labels) by value: object arrays hold pointers
            into[(item.name, "data")] = (item.dtype.str, item.shape, data.tolist() if data.dtype == object else data.tobytes())
        elif key not in volatile:
            walk(item, into)
    return into
a, b = (walk(h5py.File(p, "r"), {}) for p in sys.argv[1:])
sys.exit(0 if a == b else f"{sys.argv[2]}: differs in {sorted(str(k) for k in a.keys() | b.keys() if a.get(k) != b.get(k))[:5]}")
PY
  elif [[ $name == result.json ]]; then
    "$python" - "$file" "$actual/$name" "$other_batches" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    for key in ("run", "provenance", "host_memory_estimate") + (("segments",) if sys.argv[3] else ()):
        r.pop(key, None)
sys.exit(0 if a == b else f"{sys.argv[2]} differs in {sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))}")
PY
  else
    cmp -s "$file" "$actual/$name" || { echo "$actual/$name: other bytes than $file" >&2; exit 1; }
  fi
done
