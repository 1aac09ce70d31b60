#!/usr/bin/env bash
# Every output of two builds of pipeline_cli, compared byte for byte (issue 37: a refactoring changes
# no result): each shipped pipeline (gpu.pipe on the CPU; gPAC's scenario left out for its 3 minutes),
# a BDF recording epoched around events with re-referencing and a notch, a BIDS dataset filtered by
# subject, two datasets of three recordings (the second with named channels, conditions and group
# figures), the first also resumed from its checkpoint and over two MPI ranks, and the default
# pipeline as three shards merged and over two MPI ranks (the MPI cases when mpirun is here), each
# run by OLD and by NEW into folders of their own. Every file must be byte-identical but result.json, whose run times and
# command line differ by nature (and the HDF5 files that embed it): of it, the resolved pipeline, the
# warnings, the input and the file list must be equal.
# Usage: bench/compare_outputs.sh OLD_CLI NEW_CLI   (from the repository root; an old build as in
#   bench/compare_builds.sh). Prints one line per case; exit code 1 when any differs.
#   NEW_PARAMS=a,b bench/compare_outputs.sh …: resolved parameters that NEW adds (a stage's new
#   statement in result.json) are left out of the comparison of result.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 2 ]] || { sed -n '2,13p' "$0" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
# A Python with NumPy and h5py (Debian's python3-numpy, python3-h5py; tools/debian-packages.lock).
python=/usr/bin/python3
"$python" -c 'import h5py, numpy' 2> /dev/null || { echo "$python: needs numpy and h5py (python3-h5py)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/bin/make_example_inputs > /dev/null  # out/example_inputs, read by the example pipelines

# OLD's FILE against NEW's: equal bytes, or for result.json and HDF5 files equal contents where they
# must be (a report's resolved pipeline, warnings, input and file list; every HDF5 dataset's dtype,
# shape and values and every attribute but the embedded report), OLD's folder read as NEW's.
same_file() {
  "$python" - "$1" "$2" "$work/old/" "$work/new/" <<'PY'
import json, os, sys
old, new, old_root, new_root = sys.argv[1:]

new_params = [p for p in os.environ.get("NEW_PARAMS", "").split(",") if p]

def stable(text):
    r = json.loads(text.replace(old_root, new_root))
    for element in r.get("pipeline", []):
        if isinstance(element, dict) and isinstance(element.get("params"), dict):
            for p in new_params:
                element["params"].pop(p, None)
    files = [{k: f.get(k) for k in ("path", "bytes", "sha256", "checksum")} for f in r.get("files", [])
             if isinstance(f, dict)]
    return [{k: r.get(k) for k in ("pipeline", "warnings", "input", "trial_family", "dataset")}, files]

if old.endswith(".json"):
    sys.exit(0 if stable(open(old).read()) == stable(open(new).read()) else 1)
if old.endswith((".h5", ".hdf5")):
    import h5py, numpy as np

    def contents(path):
        # The report's copy: its run times (/run) and provenance (/provenance) differ by nature.
        out = {}
        with h5py.File(path, "r") as f:
            def value(v):
                # Object references (dimension scales' DIMENSION_LIST, REFERENCE_LIST) by the name of
                # what they point at; text by value, never by the pointers h5py holds it in.
                if isinstance(v, h5py.Reference):
                    return f[v].name if v else None
                if isinstance(v, (list, tuple)):
                    return [value(x) for x in v]
                if isinstance(v, np.void):
                    return [value(x) for x in v.tolist()]
                v = v.decode() if isinstance(v, bytes) else v
                if isinstance(v, str):
                    return v.replace(old_root, new_root)
                if isinstance(v, np.ndarray) and v.dtype.kind in "OV":
                    return [value(x) for x in v.tolist()]
                return np.asarray(v).tolist()

            def visit(name, obj):
                if name.split("/")[0] in ("run", "provenance"):
                    return
                attrs = {k: stable(value(v)) if k == "result_json" else value(v) for k, v in obj.attrs.items()
                         if not (name.startswith("pipeline/") and k in new_params)}
                data = None
                if isinstance(obj, h5py.Dataset):
                    stored = obj[()]
                    data = (obj.dtype.str, obj.shape,
                            value(stored) if obj.dtype.kind in "OV" else np.asarray(stored).tobytes())
                out[name] = (attrs, data)
            visit("/", f)
            f.visititems(visit)
        return out
    sys.exit(0 if contents(old) == contents(new) else 1)
sys.exit(0 if open(old, "rb").read() == open(new, "rb").read() else 1)
PY
}

status=0
compare() {  # NAME: compares $work/old/NAME with $work/new/NAME
  local name=$1 same=0 differ=()
  while IFS= read -r f; do
    local rel=${f#"$work/old/$name/"}
    if same_file "$f" "$work/new/$name/$rel"; then same=$((same + 1)); else differ+=("$rel"); fi
  done < <(find "$work/old/$name" -type f ! -name '.*' | sort)
  local listed_old listed_new
  listed_old=$(cd "$work/old/$name" && find . -type f ! -name '.*' | sort)
  listed_new=$(cd "$work/new/$name" && find . -type f ! -name '.*' | sort)
  [[ $listed_old == "$listed_new" ]] || differ+=("(the file lists differ)")
  if [[ ${#differ[@]} -gt 0 ]]; then
    echo "| $name | DIFFER: ${differ[*]} |"
    status=1
  else
    echo "| $name | $same files identical |"
  fi
}

both() {  # NAME ARGS...: runs `CLI ARGS... --out DIR` with each build
  local name=$1
  shift
  for side in old new; do
    local cli=$old
    [[ $side == new ]] && cli=$new
    "$cli" "$@" -q --out "$work/$side/$name" > /dev/null 2>> "$work/stderr"
  done
  compare "$name"
}

echo "| case | outputs |"
echo "| --- | --- |"
for pipe in pipelines/*.pipe pipelines/bench/w1.pipe pipelines/bench/w1_branches.pipe pipelines/bench/w2.pipe \
            pipelines/bench/w3.pipe; do
  extra=()
  [[ $(basename "$pipe") == gpu.pipe ]] && extra=(--devices cpu)
  both "$(basename "$pipe" .pipe)" run "$pipe" "${extra[@]}"
done

# A dataset of three recordings, cut from the example HDF5 recording's epochs by the npy reader.
mkdir -p "$work/dataset"
"$python" - "$work/dataset" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
folder = sys.argv[1]
rows = ["id\tpath\tfs"]
for k in range(1, 4):
    np.save(f"{folder}/sub-0{k}.npy", rng.standard_normal((4, 2, 2048)).astype(np.float32))
    rows.append(f"sub-0{k}\tsub-0{k}.npy\t512")
open(f"{folder}/subjects.tsv", "w").write("\n".join(rows) + "\n")
open(f"{folder}/ds.pipe", "w").write(
    "source manifest path=subjects.tsv\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\n"
    "stage surrogates n=50 seed=3\nsink npy dir=out\n")
PY
both dataset run "$work/dataset/ds.pipe"

# Named channels, two conditions and the group figures: three recordings of the example HDF5 file.
mkdir -p "$work/named"
printf 'id\tpath\tdataset\tlayout\tconditions\n' > "$work/named/subjects.tsv"
for k in 1 2 3; do
  printf 'sub-0%s\t%s\t/eeg\tECT\t[go, nogo, go, nogo, go, nogo, go, nogo]\n' "$k" \
    "$(realpath out/example_inputs/recording.h5)" >> "$work/named/subjects.tsv"
done
printf '%b' 'source manifest path=subjects.tsv\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\n' \
  'stage surrogates n=50 seed=3\nsink npy dir=out\nsink png path=out/pac.png\n' > "$work/named/ds.pipe"
both dataset_named run "$work/named/ds.pipe"

# Preprocessing and the spec parameters read into types (issue 37): events, bad annotations, channel
# ranges, bipolar pairs, notch harmonics, cross-channel pairs; and a BIDS tree whose subjects are
# filtered by label and by number.
printf '%b' "source edf path=$(realpath out/example_inputs/recording.bdf) channels=0-4 events=[stim] " \
  'window=-1s:3s reject_by_annotation=[BAD, EDGE]\nstage reref bipolar=[0-1, [2, 3]]\n' \
  'stage notch freq=50 harmonics=2\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\n' \
  'stage mi pairs=[[0,1],[1,0]]\nstage surrogates n=50 seed=3\nsink npy dir=out\n' > "$work/preprocessed.pipe"
both preprocessed run "$work/preprocessed.pipe"
for k in 01 02 03; do
  mkdir -p "$work/bids/sub-$k/eeg"
  cp out/example_inputs/recording.edf "$work/bids/sub-$k/eeg/sub-${k}_task-rest_eeg.edf"
done
echo '{"Name": "compare", "BIDSVersion": "1.8.0"}' > "$work/bids/dataset_description.json"
printf '%b' 'source bids root=. task=rest subjects=[01, 3] channels=Fz,Cz,Pz epoch=4s\n' \
  'stage reref ref=Cz\nstage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\n' \
  'stage surrogates n=50 seed=3\nsink npy dir=out\n' > "$work/bids/ds.pipe"
both dataset_bids run "$work/bids/ds.pipe"

# The first dataset again, resumed from its checkpoint: its third recording fails (a damaged file),
# is mended, and the run again takes the first two from the checkpoint (their arrays through the
# recording codec).
for side in old new; do  # in one folder for both: the reports name the input files
  cli=$old
  [[ $side == new ]] && cli=$new
  rm -rf "$work/resume" && cp -r "$work/dataset" "$work/resume"
  mv "$work/resume/sub-03.npy" "$work/resume/sub-03.keep"
  echo "not an npy file" > "$work/resume/sub-03.npy"
  if "$cli" run "$work/resume/ds.pipe" --checkpoint "$work/resume/ckpt" -q --out "$work/$side/dataset_resumed" \
    > /dev/null 2>> "$work/stderr"; then
    echo "$side: the damaged recording did not fail" >&2
    exit 1
  fi
  mv "$work/resume/sub-03.keep" "$work/resume/sub-03.npy"
  "$cli" run "$work/resume/ds.pipe" --checkpoint "$work/resume/ckpt" -q --out "$work/$side/dataset_resumed" \
    > /dev/null 2>> "$work/stderr"
  [[ -d "$work/resume/ckpt" ]] && { echo "$side: the checkpoint outlived the run" >&2; exit 1; }
done
compare dataset_resumed

# Three shards of the default pipeline, merged; and the same over two MPI ranks.
for side in old new; do
  cli=$old
  [[ $side == new ]] && cli=$new
  for i in 0 1 2; do
    "$cli" run pipelines/pac.pipe --shard "$i/3" --out "$work/shards-$side/$i" --batch 16 \
      --set surrogates.trials=none -q > /dev/null 2>> "$work/stderr"
  done
  "$cli" merge "$work/$side/shards" "$work/shards-$side"/{0,1,2} -q > /dev/null 2>> "$work/stderr"
done
compare shards
if command -v mpirun > /dev/null; then
  for side in old new; do
    cli=$old
    [[ $side == new ]] && cli=$new
    mpirun --allow-run-as-root --oversubscribe -n 2 "$cli" run pipelines/pac.pipe --batch 16 \
      --set surrogates.trials=none -q --out "$work/$side/ranks" > /dev/null 2>> "$work/stderr"
  done
  compare ranks
  for side in old new; do
    cli=$old
    [[ $side == new ]] && cli=$new
    mpirun --allow-run-as-root --oversubscribe -n 2 "$cli" run "$work/dataset/ds.pipe" -q \
      --out "$work/$side/dataset_ranks" > /dev/null 2>> "$work/stderr"
  done
  compare dataset_ranks
fi
exit $status
