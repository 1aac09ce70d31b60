#!/usr/bin/env bash
# A dataset (source manifest): three recordings of different lengths, one at another sample rate.
# Each recording's folder holds the bytes a run of that recording alone writes; recordings.h5 holds
# every result array stacked along `recordings`, equal to the per-recording arrays. With MPIRUN, the
# same over 2 and 3 ranks, byte for byte. Bad tables, a missing file and recordings that cannot be
# stacked are refused with exit code 2, naming the table's line or the recording.
#   tests/mpi/dataset.sh PIPELINE_CLI [MPIRUN]
set -euo pipefail
cli=$(realpath "$1") mpirun=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3  # Debian's, with h5py and NumPy (tools/debian-packages.lock)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir raw
# [epochs][channels][samples] float32 noise with 6 Hz phase driving 80 Hz amplitude.
"$python" - <<'PY'
import numpy as np
def recording(path, channels, samples, fs, seed, epochs=4):
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / fs
    x = rng.standard_normal((epochs, channels, samples)) + (1 + np.sin(2 * np.pi * 6 * t)) * np.sin(2 * np.pi * 80 * t)
    np.save(path, x.astype(np.float32))
recording("raw/sub-01.npy", 3, 2048, 512, 1)
recording("raw/sub-02.npy", 3, 3072, 512, 2)
recording("raw/sub-03.npy", 3, 4000, 1000, 3)
recording("raw/sub-04.npy", 2, 2048, 512, 4)  # two channels: not stackable with the others
recording("raw/sub-05.npy", 3, 2048, 512, 5, epochs=6)  # more epochs: per-epoch arrays kept per recording
PY
printf '# id\tpath\tfs\nid\tpath\tfs\nsub-01\traw/sub-01.npy\t512\nsub-02\traw/sub-02.npy\t512\n\nsub-03\traw/sub-03.npy\t1000\n' > subjects.tsv
stages='stage bandpass pha=4:12:3 amp=60:100:3
stage hilbert
stage mi
stage surrogates n=40'
printf 'source manifest path=subjects.tsv\n%s\nsink npy dir=out\nsink png path=out/comodulogram.png\n' "$stages" > ds.pipe

"$cli" validate ds.pipe -n 2 > validated
grep -q 'sub-03 (subjects.tsv:6): input shape \[4,3,4000\] at 1000 Hz' validated &&
  grep -q 'a dataset of 3 recordings' validated && grep -q 'each of 2 runs at most 2 whole recordings' validated ||
  { cat validated; echo "validate does not describe the dataset" >&2; exit 1; }
"$cli" run -q ds.pipe --out single
for id in sub-01 sub-02 sub-03; do  # each recording alone, as its own pipeline
  fs=$(awk -v id=$id '$1 == id { print $3 }' subjects.tsv)
  printf 'source npy path=raw/%s.npy fs=%s\n%s\nsink npy dir=out\nsink png path=out/comodulogram.png\n' \
    "$id" "$fs" "$stages" > alone.pipe
  "$cli" run -q alone.pipe --out "alone/$id"
  for file in alone/$id/*; do
    [[ $(basename "$file") == result.json ]] && continue
    cmp -s "$file" "single/$id/$(basename "$file")" || { echo "single/$id/$(basename "$file") differs from $file" >&2; exit 1; }
  done
done
"$python" - single <<'PY'
import sys
import h5py, numpy as np
out = sys.argv[1]
with h5py.File(f"{out}/recordings.h5", "r") as f:
    ids = list(f.attrs["recordings"])
    assert ids == ["sub-01", "sub-02", "sub-03"], ids
    assert list(f["pac"].attrs["dims"]) == ["recordings", "epochs", "channels", "phase_bands", "amplitude_bands"]
    for name in ("pac", "pac_z", "pvalues", "trial_pac", "trial_pvalues"):
        for i, id in enumerate(ids):
            assert np.array_equal(f[name][i], np.load(f"{out}/{id}/{name}.npy")), (name, id)
    assert list(f.attrs["pha_centres_hz"]) == [4.0, 8.0, 12.0]
    # The group test across the recordings (subjects) of their trial_rank_z: t as the one-sample t.
    z = f["trial_rank_z"][()].astype(np.float64)
    t = z.mean(0) / (z.std(0, ddof=1) / np.sqrt(len(ids)))
    assert list(f["group_t"].attrs["dims"]) == ["channels", "phase_bands", "amplitude_bands"]
    assert np.allclose(f["group_t"][()], t, rtol=1e-5), (f["group_t"][()], t)
    for name in ("group_dz", "group_dz_low", "group_dz_high", "group_pvalues", "group_cluster_pvalues",
                 "group_clusters"):
        assert f[name].shape == t.shape, name
    assert (f["group_pvalues"][()] >= 1 / 8).all()  # three subjects: 8 sign flips
    # Labelled axes as HDF5 dimension scales (netCDF-4, xarray): the ids, the band centres.
    assert [d.label for d in f["pac"].dims] == ["recordings", "", "", "phase_bands", "amplitude_bands"]
    assert list(f["pac"].dims[0][0].asstr()[()]) == ids
    assert list(f["pac_z"].dims[3][0][()]) == [4.0, 8.0, 12.0] and f["pac"].dims[3][0].attrs["unit"] == "Hz"
    assert [d.label for d in f["group_t"].dims] == ["", "phase_bands", "amplitude_bands"]
PY
[[ -s single/group_t.png ]] || { echo "no group_t.png beside the dataset's comodulogram" >&2; exit 1; }
echo "3 recordings: each one's files as a run of it alone writes them; recordings.h5 stacks them, with the group test (drawn)"

same_as_one_process() {  # ONE COPY: every file of COPY is ONE's, byte for byte (recordings.h5 by value)
  local one=$1 copy=$2
  for file in $(cd "$one" && find . -type f ! -name result.json ! -name recordings.h5); do
    cmp -s "$one/$file" "$copy/$file" || { echo "$copy/$file differs from $one/$file" >&2; exit 1; }
  done
  mkdir "stacked_$copy" "stacked_one_$copy"
  cp "$copy/recordings.h5" "stacked_$copy/" && cp "$one/recordings.h5" "stacked_one_$copy/"
  bash "$here/same_outputs.sh" "stacked_one_$copy" "stacked_$copy"
}
if [[ -n $mpirun ]]; then
  for n in 2 3; do
    "$mpirun" --allow-run-as-root --oversubscribe --bind-to none -n "$n" "$cli" run -q ds.pipe --out "ranks$n"
    same_as_one_process single "ranks$n"
    echo "over $n ranks: every recording's files and the stacked arrays as one process writes them"
  done
fi

refused() {  # EXPECTED_MESSAGE, then the command: exit code 2, the message, no recording's output
  local expected=$1
  shift
  set +e
  "$@" > log 2>&1
  local code=$?
  set -e
  [[ $code == 2 ]] || { cat log; echo "exit code $code, not 2: $*" >&2; exit 1; }
  grep -qF -- "$expected" log || { cat log; echo "no \"$expected\" in the message" >&2; exit 1; }
}
printf 'id\tpath\tfs\tcolour\nsub-01\traw/sub-01.npy\t512\tblue\n' > bad.tsv
sed 's/subjects.tsv/bad.tsv/' ds.pipe > bad.pipe
refused 'bad.tsv:2:4: column "colour" is not a parameter of the npy source' "$cli" run -q bad.pipe --out bad
printf 'id\tpath\tfs\nsub-01\traw/sub-01.npy\t512\nsub-01\traw/sub-02.npy\t512\n' > bad.tsv
refused 'bad.tsv:3:1: id "sub-01" is given twice' "$cli" run -q bad.pipe --out bad
printf 'id\tfs\nsub-01\t512\n' > bad.tsv
refused 'a dataset'"'"'s table needs id and path' "$cli" run -q bad.pipe --out bad
printf 'id\tpath\tfs\nsub-01\traw/sub-01.npy\t512\nsub-09\traw/sub-09.npy\t512\n' > bad.tsv
refused 'bad.tsv:3: recording sub-09: ' "$cli" run -q bad.pipe --out bad
[[ ! -e bad ]] || { echo "a missing file must stop the dataset before any recording runs" >&2; exit 1; }
printf 'id\tpath\tfs\nsub-01\traw/sub-01.npy\t512\nsub-04\traw/sub-04.npy\t512\n' > bad.tsv
refused 'cannot stack recording sub-04 with sub-01: pac has shape [4, 2, 3, 3] against [4, 3, 3, 3]' \
  "$cli" run -q bad.pipe --out bad
[[ ! -e bad ]] || { echo "a dataset is one transaction: an unstackable recording writes nothing" >&2; exit 1; }
echo "bad tables, a missing file and unstackable recordings refused with exit code 2"

# Recordings with different numbers of epochs: what is per channel and cell is stacked, each
# per-epoch array kept per recording (a group of datasets named by id).
printf 'id\tpath\tfs\nsub-01\traw/sub-01.npy\t512\nsub-05\traw/sub-05.npy\t512\n' > ragged.tsv
sed 's/subjects.tsv/ragged.tsv/' ds.pipe > ragged.pipe
"$cli" run -q ragged.pipe --out ragged
"$python" - ragged <<'PY'
import sys
import h5py, numpy as np
out = sys.argv[1]
with h5py.File(f"{out}/recordings.h5", "r") as f:
    assert "pac" in f.attrs["ragged_arrays"] and isinstance(f["pac"], h5py.Group), dict(f.attrs)
    assert "different numbers of epochs" in f["pac"].attrs["ragged"]
    for id, epochs in (("sub-01", 4), ("sub-05", 6)):
        assert f["pac"][id].shape == (epochs, 3, 3, 3)
        assert list(f["pac"][id].attrs["dims"]) == ["epochs", "channels", "phase_bands", "amplitude_bands"]
        assert np.array_equal(f["pac"][id][()], np.load(f"{out}/{id}/pac.npy"))
    assert f["trial_pac"].shape == (2, 3, 3, 3)  # per channel and cell: stacked
    assert np.array_equal(f["trial_pac"][1], np.load(f"{out}/sub-05/trial_pac.npy"))
    assert f["group_t"].shape == (3, 3, 3)
    assert f["pac"]["sub-05"].dims[2].label == "phase_bands"
    assert list(f["pac"]["sub-05"].dims[2][0][()]) == [4.0, 8.0, 12.0]
PY
echo "recordings with 4 and 6 epochs: per-epoch arrays per recording, the rest stacked, the group test made"

# Each epoch's condition from the table (the array sources' conditions=): the stacked file names the
# conditions; a recording whose conditions come in another order is refused (stacked by position).
printf 'id\tpath\tfs\tconditions\nsub-01\traw/sub-01.npy\t512\t[a,b,a,b]\nsub-05\traw/sub-05.npy\t512\t[a,b,b,a,a,b]\n' > labelled.tsv
sed 's/subjects.tsv/labelled.tsv/' ds.pipe > labelled.pipe
"$cli" run -q labelled.pipe --out labelled
"$python" - labelled <<'PY'
import sys
import h5py
with h5py.File(f"{sys.argv[1]}/recordings.h5", "r") as f:
    assert list(f.attrs["condition_names"]) == ["a", "b"], dict(f.attrs)
    conditions = [k for k, d in enumerate(f["trial_pvalues"].attrs["dims"]) if d == "conditions"]
    assert conditions and f["trial_pvalues"].dims[conditions[0]].label == "conditions"
    assert list(f["trial_pvalues"].dims[conditions[0]][0].asstr()[()]) == ["a", "b"]
PY
printf 'id\tpath\tfs\tconditions\nsub-01\traw/sub-01.npy\t512\t[a,b,a,b]\nsub-05\traw/sub-05.npy\t512\t[b,a,b,a,a,b]\n' > bad.tsv
refused 'recording sub-05: its conditions ["b","a"] are not sub-01'"'"'s ["a","b"]' "$cli" run -q bad.pipe --out bad
[[ ! -e bad ]] || { echo "conditions in another order must write nothing" >&2; exit 1; }
echo "conditions from the table: named in the stacked file; another order refused"

# A BIDS study (issue 38): four subjects in BrainVision with go and nogo trials from each
# _events.tsv, 10, 8, 10 and 6 of them, as one process, over 2 ranks and as 2 shards and their
# merge: the same bytes everywhere (each recording's files, its BIDS sidecar, the derivative's
# dataset_description.json, recordings.h5 with the group test and the go/nogo contrast).
"$python" - <<'PY'
import json, os
import numpy as np
fs, seconds = 512, 30
t = np.arange(fs * seconds) / fs
os.makedirs("bids")
with open("bids/dataset_description.json", "w") as f:
    json.dump({"Name": "go/nogo", "BIDSVersion": "1.10.0"}, f)
for subject, trials in ((1, 10), (2, 8), (3, 10), (4, 6)):
    folder, base = f"bids/sub-0{subject}/eeg", f"sub-0{subject}_task-gonogo_eeg"
    os.makedirs(folder)
    rng = np.random.default_rng(subject)
    x = 20 * rng.standard_normal((3, t.size)) + 50 * (1 + np.sin(2 * np.pi * 6 * t)) * np.sin(2 * np.pi * 80 * t)
    x.T.astype("<f4").tofile(f"{folder}/{base}.eeg")  # multiplexed: sample by sample
    header = ["Brain Vision Data Exchange Header File Version 1.0", "", "[Common Infos]", "Codepage=UTF-8",
              f"DataFile={base}.eeg", f"MarkerFile={base}.vmrk", "DataFormat=BINARY", "DataOrientation=MULTIPLEXED",
              "NumberOfChannels=3", f"SamplingInterval={1e6 / fs}", "", "[Binary Infos]",
              "BinaryFormat=IEEE_FLOAT_32", "", "[Channel Infos]", "Ch1=Fz,,1,µV", "Ch2=Cz,,1,µV", "Ch3=Pz,,1,µV", ""]
    with open(f"{folder}/{base}.vhdr", "w", newline="") as f:
        f.write("\r\n".join(header))
    with open(f"{folder}/{base}.vmrk", "w", newline="") as f:
        f.write("\r\n".join(["Brain Vision Data Exchange Marker File, Version 1.0", "", "[Common Infos]",
                             "Codepage=UTF-8", f"DataFile={base}.eeg", "", "[Marker Infos]", ""]))
    with open(f"{folder}/sub-0{subject}_task-gonogo_events.tsv", "w") as f:
        f.write("onset\tduration\ttrial_type\n")
        for k in range(trials):
            f.write(f"{1 + 2.5 * k}\t0.1\t{'nogo' if k % 2 else 'go'}\n")
PY
printf 'source bids root=bids task=gonogo events=[go, nogo] window=0s:2s\n%s\nsink npy dir=out\nsink png path=out/comodulogram.png\n' \
  "$stages" > study.pipe
"$cli" run -q study.pipe --out study
"$cli" run -q study.pipe --shard 0/2 --out study_shard0
"$cli" run -q study.pipe --shard 1/2 --out study_shard1
"$cli" merge study_merged study_shard0 study_shard1 > /dev/null
copies=(study_merged)
if [[ -n $mpirun ]]; then
  "$mpirun" --allow-run-as-root --oversubscribe --bind-to none -n 2 "$cli" run -q study.pipe --out study_ranks2
  copies+=(study_ranks2)
fi
for copy in "${copies[@]}"; do same_as_one_process study "$copy"; done
"$python" - study <<'PY'
import json, sys
import h5py
out = sys.argv[1]
description = json.load(open(f"{out}/dataset_description.json"))
assert description["DatasetType"] == "derivative" and description["GeneratedBy"][0]["Name"] == "pacflow", description
sidecar = json.load(open(f"{out}/sub-02_task-gonogo/sub-02_task-gonogo_pac.json"))
assert sidecar["Sources"] == ["bids:raw:sub-02/eeg/sub-02_task-gonogo_eeg.vhdr",
                              "bids:raw:sub-02/eeg/sub-02_task-gonogo_events.tsv"], sidecar["Sources"]
with h5py.File(f"{out}/recordings.h5", "r") as f:
    assert list(f.attrs["recordings"]) == [f"sub-0{s}_task-gonogo" for s in (1, 2, 3, 4)]
    assert [f["pac"][f"sub-0{s}_task-gonogo"].shape[0] for s in (1, 2, 3, 4)] == [10, 8, 10, 6]
    for name in ("group_t", "group_dz", "group_dz_low", "group_cluster_pvalues", "group_contrast_t",
                 "group_contrast_cluster_pvalues", "group_contrast_dz"):
        assert name in f, name
    assert list(f.attrs["condition_names"]) == ["go", "nogo"]
for figure in ("group_t.png", "group_contrast_t.png"):  # the group tests drawn beside the dataset's figure
    assert open(f"{out}/{figure}", "rb").read(8) == b"\x89PNG\r\n\x1a\n", figure
PY
echo "a BIDS study of 4 subjects (10, 8, 10, 6 trials): the same bytes from one process, ${copies[*]}; a BIDS derivative with the group test and the contrast"
