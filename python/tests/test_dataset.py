"""A dataset (a manifest source) from Python: each recording's Result as its run alone gives it, the
stack of them, the files the CLI writes, and a bad table's error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pacflow

STAGES = "stage bandpass pha=4:12:3 amp=60:100:3\nstage hilbert\nstage mi\nstage surrogates n=20\n"


def recording(path: Path, samples: int, fs: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / fs
    x = rng.standard_normal((4, 2, samples)) + (1 + np.sin(2 * np.pi * 6 * t)) * np.sin(2 * np.pi * 80 * t)
    np.save(path, x.astype(np.float32))


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    recording(tmp_path / "a.npy", 2048, 512, 1)
    recording(tmp_path / "b.npy", 4000, 1000, 2)  # another length and rate
    (tmp_path / "table.tsv").write_text("id\tpath\tfs\nrec-a\ta.npy\t512\nrec-b\tb.npy\t1000\n")
    (tmp_path / "dataset.pipe").write_text(f"source manifest path=table.tsv\n{STAGES}sink npy dir=out\n")
    return tmp_path


def test_each_recording_is_its_run_alone_and_stacks(dataset: Path) -> None:
    result = pacflow.run(dataset / "dataset.pipe", out=dataset / "out", progress=False)
    assert isinstance(result, pacflow.Dataset)
    assert list(result) == ["rec-a", "rec-b"]
    for id, name, fs in (("rec-a", "a.npy", 512), ("rec-b", "b.npy", 1000)):
        (dataset / f"{id}.pipe").write_text(f"source npy path={name} fs={fs}\n{STAGES}sink npy dir=alone\n")
        alone = pacflow.run(dataset / f"{id}.pipe", out=dataset / "alone" / id, progress=False)
        for array in ("pac", "pac_z", "trial_pvalues"):
            assert result[id][array].tobytes() == alone[array].tobytes(), (id, array)
            assert result[id].dims[array] == alone.dims[array]
        assert np.load(dataset / "out" / id / "pac.npy").tobytes() == alone["pac"].tobytes()
    stacked = result.stack("pac")
    assert stacked.shape == (2, *result["rec-a"]["pac"].shape) and stacked.dtype == np.float32
    assert Path(result.stacked_file) == dataset / "out" / "recordings.h5"
    assert Path(result.stacked_file).is_file()
    with pytest.raises(KeyError, match="no recording 'rec-c'"):
        result["rec-c"]


def test_a_bad_table_raises_naming_its_line(dataset: Path) -> None:
    (dataset / "table.tsv").write_text("id\tpath\tfs\nrec-a\ta.npy\t512\nrec-a\tb.npy\t1000\n")
    with pytest.raises(ValueError, match=r'table.tsv:3:1: id "rec-a" is given twice'):
        pacflow.run(dataset / "dataset.pipe", out=dataset / "out", progress=False)
    (dataset / "table.tsv").write_text("id\tpath\tfs\nrec-a\tmissing.npy\t512\n")
    with pytest.raises(FileNotFoundError, match="recording rec-a"):
        pacflow.run(dataset / "dataset.pipe", out=dataset / "out", progress=False)


def test_progress_counts_the_whole_dataset(dataset: Path) -> None:
    calls: list[tuple[int, int, float]] = []
    pacflow.run(dataset / "dataset.pipe", out=dataset / "out", batch_size=2, progress=lambda *a: calls.append(a))
    assert calls, "no progress reported"
    assert all(total == 1000 for _, total, _ in calls)  # thousandths of the whole dataset
    done = [d for d, _, _ in calls]
    assert done == sorted(done) and done[-1] == 1000, done
    assert [e for _, _, e in calls] == sorted(e for _, _, e in calls)  # from the dataset's start
