"""`source bids` on a BIDS dataset as MNE-BIDS writes one (BrainVision through pybv, a bad channel,
go/nogo annotations as events.tsv): pipeline_cli finds the recordings MNE-BIDS wrote, leaves out the
channel it marked bad and cuts the epochs mne.Epochs cuts from read_raw_bids's events, and says
nothing about the dataset's own files (participants.tsv, scans.tsv, sidecars)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

mne = pytest.importorskip("mne")
mne_bids = pytest.importorskip("mne_bids")
pytest.importorskip("pybv")  # MNE-BIDS's BrainVision writer

FS = 512.0
STAGES = "stage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\nstage surrogates n=20 seed=3\n"


def raw_of(seed: int, bads: list[str]) -> mne.io.RawArray:
    """30 s of Fz, Cz, T7, Pz (V) with 6 Hz -> 80 Hz coupling, and ten go/nogo trials every 2.5 s."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(30 * FS)) / FS
    x = 20e-6 * rng.standard_normal((4, t.size)) + 50e-6 * (1 + np.sin(2 * np.pi * 6 * t)) * np.sin(2 * np.pi * 80 * t)
    raw = mne.io.RawArray(x, mne.create_info(["Fz", "Cz", "T7", "Pz"], FS, "eeg"), verbose=False)
    onsets = 1 + 2.5 * np.arange(10)
    raw.set_annotations(mne.Annotations(onsets, 0.1, ["go" if k % 2 == 0 else "nogo" for k in range(10)]))
    raw.info["bads"] = bads
    return raw


@pytest.fixture()
def bids_root(tmp_path: Path) -> Path:
    root = tmp_path / "bids"
    for subject, bads in (("01", []), ("02", ["T7"])):
        path = mne_bids.BIDSPath(subject=subject, task="gonogo", datatype="eeg", root=root)
        mne_bids.write_raw_bids(raw_of(int(subject), bads), path, format="BrainVision", allow_preload=True,
                                verbose=False)
    return root


def test_the_recordings_channels_and_epochs_are_those_mne_bids_reads(bids_root: Path, cli: str) -> None:
    folder = bids_root.parent  # sub-02 has a channel fewer: not stacked with sub-01's
    (folder / "bids.pipe").write_text(
        f"source bids root=bids task=gonogo events=[go, nogo] window=0s:2s stacked=none\n{STAGES}sink npy dir=out\n")
    run = subprocess.run([cli, "run", "bids.pipe", "-q"], cwd=folder, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "participants.tsv" not in run.stderr and "dataset_description" not in run.stderr, run.stderr
    for subject in ("01", "02"):
        path = mne_bids.BIDSPath(subject=subject, task="gonogo", datatype="eeg", root=bids_root)
        raw = mne_bids.read_raw_bids(path, verbose=False)
        events, ids = mne.events_from_annotations(raw, event_id={"go": 1, "nogo": 2}, verbose=False)
        epochs = mne.Epochs(raw, events, ids, tmin=0, tmax=2 - 1 / FS, baseline=None, reject_by_annotation=True,
                            preload=True, verbose=False)
        result = json.loads((folder / "out" / path.basename.removesuffix("_eeg") / "result.json").read_text())
        read = result["input"]
        good = [name for name in raw.ch_names if name not in raw.info["bads"]]
        assert read["channel_labels"] == good
        assert read["source"] == "brainvision"
        conditions = {c["name"]: c["epochs"] for c in read["conditions"]}
        assert conditions == {"go": len(epochs["go"]), "nogo": len(epochs["nogo"])}
        onsets = np.concatenate([epochs["go"].events[:, 0], epochs["nogo"].events[:, 0]]) / FS
        assert np.allclose(read["epoching"]["onsets_s"], onsets - raw.first_time)
