"""The group-level test: its arithmetic against MNE's cluster and max-T permutation tests on the same
values, and a dataset of subjects run from a manifest, whose stacked group arrays Dataset.group()
gives again."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import pacflow
from pacflow.group import group_test

DIMS = ("channels", "phase_bands", "amplitude_bands")


def planted(subjects: int, seed: int) -> np.ndarray:
    """(subjects, 1, 6, 7) standard-normal values, a block of cells raised in every subject."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((subjects, 1, 6, 7))
    values[:, 0, 1:4, 2:5] += 1.2
    values[:, 0, 5, 0] += 0.8  # a lone cell
    return values


@pytest.mark.parametrize("subjects", [7, 9])
def test_clusters_equal_mnes_and_max_t_every_flips(subjects: int) -> None:
    stats = pytest.importorskip("mne.stats")
    from scipy import stats as scipy_stats

    values = planted(subjects, subjects)
    ours = group_test(values, DIMS, n_flips=10000)
    assert ours.report["group"]["exact"] and ours.report["group"]["flips"] == 2 ** subjects
    threshold = scipy_stats.t.ppf(0.95, subjects - 1)
    assert ours.report["group"]["cluster_threshold_t"] == pytest.approx(threshold, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_obs, clusters, cluster_p, _ = stats.permutation_cluster_1samp_test(
            values[:, 0], threshold=threshold, n_permutations=2 ** subjects, tail=1, out_type="mask", verbose=False)
    np.testing.assert_allclose(ours["group_t"][0], t_obs, rtol=1e-10)
    assert len(ours.report["group"]["clusters"]) == len(clusters)
    # MNE's exact test lists the unflipped data among its flips in place of the flip of every subject,
    # then adds the unflipped data again, whose second copy counts or not as its arithmetic rounds:
    # its count is ours, less the every-subject flip's, plus 0 or 1 (docs/methods.md).
    all_flipped = max([0.0] + [c["mass"] for c in group_test(-values, DIMS).report["group"]["clusters"]])
    for mask, p in zip(clusters, cluster_p):
        mass = float(t_obs[mask].sum())
        ours_count = ours["group_cluster_pvalues"][0][mask] * 2 ** subjects
        mne_count = p * 2 ** subjects
        assert np.allclose(ours_count, ours_count[0])
        assert round(mne_count - ours_count[0] + (all_flipped >= mass)) in (0, 1), (mne_count, ours_count[0])
    assert (ours["group_cluster_pvalues"][0][~np.any(clusters, axis=0)] == 1).all()
    # Max-T against every flip, counted here.
    signs = 1 - 2 * ((np.arange(2 ** subjects)[:, None] >> np.arange(subjects)) & 1)
    flipped = np.einsum("ks,sc->kc", signs, values.reshape(subjects, -1))
    squares = (values.reshape(subjects, -1) ** 2).sum(0)
    mean = flipped / subjects
    t = mean / np.sqrt((squares - subjects * mean ** 2) / (subjects - 1) / subjects)
    maxima = t.max(axis=1)
    expected = (maxima[:, None] >= t[0][None, :] - 1e-12).mean(axis=0)
    np.testing.assert_allclose(ours["group_pvalues"].ravel(), expected, rtol=1e-12)



def test_clusters_run_over_time_for_erpac_as_mnes_lattice() -> None:
    """ERPAC's statistic has a time axis after the bands: clusters join cells one time step apart, as
    MNE's lattice adjacency over (phase, amplitude, time) does."""
    stats = pytest.importorskip("mne.stats")
    from scipy import stats as scipy_stats

    subjects = 8
    rng = np.random.default_rng(3)
    values = rng.standard_normal((subjects, 1, 2, 3, 10))
    values[:, 0, 1, 0:2, 3:7] += 1.5  # an effect lasting four samples in two amplitude bands
    dims = ("channels", "phase_bands", "amplitude_bands", "times")
    ours = group_test(values, dims)
    threshold = scipy_stats.t.ppf(0.95, subjects - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_obs, clusters, _, _ = stats.permutation_cluster_1samp_test(
            values[:, 0], threshold=threshold, n_permutations=2 ** subjects, tail=1, out_type="mask", verbose=False)
    np.testing.assert_allclose(ours["group_t"][0], t_obs, rtol=1e-10)
    ids = ours["group_clusters"][0]
    ours_masks = sorted(tuple(np.flatnonzero(ids == k)) for k in range(len(ours.report["group"]["clusters"])))
    mne_masks = sorted(tuple(np.flatnonzero(mask)) for mask in clusters)
    assert ours_masks == mne_masks
    lasting = ids[1, 0, 3]
    assert lasting >= 0 and (ids[1, 0:2, 3:7] == lasting).all()

def test_effect_sizes_and_their_interval() -> None:
    from scipy import stats as scipy_stats

    values = planted(10, 3)
    ours = group_test(values, DIMS)
    mean, sd = values.mean(axis=0), values.std(axis=0, ddof=1)
    np.testing.assert_allclose(ours["group_dz"], mean / sd, rtol=1e-10)
    t = ours["group_t"].ravel()
    low, high = ours["group_dz_low"].ravel() * np.sqrt(10), ours["group_dz_high"].ravel() * np.sqrt(10)
    np.testing.assert_allclose(scipy_stats.nct.cdf(t, 9, low), 0.975, atol=1e-7)
    np.testing.assert_allclose(scipy_stats.nct.cdf(t, 9, high), 0.025, atol=1e-7)


def test_two_conditions_add_a_paired_two_sided_contrast() -> None:
    rng = np.random.default_rng(5)
    values = rng.standard_normal((8, 2, 1, 3, 3))
    values[:, 0, 0, 1, 1] += 4.0  # the first condition couples more in one cell
    result = group_test(values, ("conditions", *DIMS))
    assert result.dims["group_contrast_t"] == DIMS and result["group_contrast_t"].shape == (1, 3, 3)
    difference = values[:, 0] - values[:, 1]
    t = difference.mean(0) / (difference.std(0, ddof=1) / np.sqrt(8))
    np.testing.assert_allclose(result["group_contrast_t"], t, rtol=1e-10)
    assert result.report["group_contrast"]["tail"] == "two-sided"
    assert result["group_contrast_pvalues"][0, 1, 1] <= 0.05
    assert result.report["group_contrast"]["p_floor"] == 2 / 256  # a flip and its mirror image give one |t|
    assert result.report["group"]["tail"] == "greater"


def test_too_few_subjects_warn_with_the_number_that_would_do() -> None:
    result = group_test(planted(4, 1), DIMS)
    assert result.report["group"]["p_floor"] == 1 / 16
    assert any("5 subjects or more can reach 0.05" in w for w in result.warnings), result.warnings
    with pytest.raises(ValueError, match="subjects axis"):
        group_test(np.zeros((4, 3, 3)), ("phase_bands", "amplitude_bands", "x"))


def coupled(rng: np.random.Generator, epochs: int, channels: int, times: int, fs: float, strength: float) -> np.ndarray:
    """White noise; channel 0 carries an 80 Hz rhythm whose amplitude follows the phase of a slow
    rhythm around 6 Hz. Its frequency wanders (a smoothed random walk), so another epoch's or a
    shifted amplitude does not follow it: a pure sine would keep its coupling under any shift."""
    t = np.arange(times) / fs
    x = rng.standard_normal((epochs, channels, times))
    kernel = np.hanning(int(fs // 2))
    for e in range(epochs):
        wander = np.convolve(rng.standard_normal(times), kernel / kernel.sum(), mode="same")
        frequency = 6 + 1.5 * wander / wander.std()
        phase = 2 * np.pi * np.cumsum(frequency) / fs + rng.uniform(0, 2 * np.pi)
        x[e, 0] += np.sin(phase) + strength * (1 + np.cos(phase)) * np.sin(2 * np.pi * 80 * t)
    return x.astype(np.float32)


def write_subjects(folder: Path, seed: int, epochs: int, times: int, strength: float) -> None:
    """Six subjects' npy files, each coupled on channel 0, and their table subjects.tsv."""
    rng = np.random.default_rng(seed)
    rows = ["id\tpath\tfs"]
    for k in range(6):
        np.save(folder / f"sub-{k}.npy", coupled(rng, epochs, 2, times, 256.0, strength))
        rows.append(f"sub-{k}\tsub-{k}.npy\t256")
    (folder / "subjects.tsv").write_text("\n".join(rows) + "\n")


def test_a_dataset_of_subjects_gets_its_group_test(tmp_path: Path) -> None:
    write_subjects(tmp_path, 11, 8, 1024, 0.6)
    (tmp_path / "study.pipe").write_text(
        "source manifest path=subjects.tsv group_n=5000\n"
        "stage bandpass pha=5:7:2 amp=60:100:3\nstage hilbert\nstage mi\nstage surrogates n=100 min_shift=0.5s\n"
        "sink npy dir=out\n")
    dataset = pacflow.run(tmp_path / "study.pipe", progress=False)
    assert dataset.report["group"]["group"]["subjects"] == 6
    assert dataset.report["group"]["settings"]["group_n"] == 5000
    group = dataset.group()
    assert group.report["group"] == dataset.report["group"]["group"]  # the run's own test, again
    assert group.dims["group_pvalues"] == ("channels", "phase_bands", "amplitude_bands")
    p = group["group_pvalues"]
    assert p[0].min() <= 1 / 64 + 1e-12  # the coupled channel, at the floor of 2^6 flips
    assert p[1].min() > 0.05  # the other is noise
    assert (tmp_path / "out" / "recordings.h5").exists()


def test_a_dataset_of_erpac_subjects_is_tested_over_time(tmp_path: Path) -> None:
    write_subjects(tmp_path, 12, 12, 512, 0.8)
    (tmp_path / "erpac.pipe").write_text(
        "source manifest path=subjects.tsv\nstage bandpass pha=[[5,7]] amp=[[70,90]]\nstage hilbert\n"
        "stage erpac n=99\nsink npy dir=out\n")
    dataset = pacflow.run(tmp_path / "erpac.pipe", progress=False)
    assert dataset.report["group"]["statistic"] == "erpac_rank_z"
    group = dataset.group()
    assert group.report["group"] == dataset.report["group"]["group"]  # the run's own test, again
    assert group.dims["group_t"] == ("channels", "phase_bands", "amplitude_bands", "times")
    p = group["group_cluster_pvalues"]
    assert p[0].min() <= 1 / 64 + 1e-12  # the coupled channel, at the floor of 2^6 flips
    assert (group["group_clusters"][0] >= 0).sum() > 1  # a cluster over time samples

def test_a_study_of_mne_epochs_in_two_conditions_with_unequal_epoch_counts() -> None:
    mne = pytest.importorskip("mne")
    rng = np.random.default_rng(21)
    info = mne.create_info(["Fz", "Cz"], 256.0, "eeg")
    subjects = {}
    for k, epochs in enumerate((8, 10, 9, 12, 8, 11)):
        x = coupled(rng, epochs, 2, 1024, 256.0, 0.6).astype(np.float64)
        codes = np.tile([1, 2], epochs)[:epochs]
        x[codes == 2, 0] = rng.standard_normal((int((codes == 2).sum()), 1024))  # "nogo": no coupling
        events = np.column_stack([np.arange(epochs) * 1024, np.zeros(epochs, int), codes])
        subjects[f"sub-{k}"] = mne.EpochsArray(x, info, events=events, event_id={"go": 1, "nogo": 2}, verbose=False)
    result = pacflow.study(subjects, conditions=True, f_pha="5:7:2", f_amp="60:100:3", n_perm=100,
                           surrogates__min_shift="0.5s")
    assert list(result.results) == [f"sub-{k}" for k in range(6)]
    assert result.results["sub-3"].pac.shape[0] == 12  # each subject its own epochs
    group = result.group
    assert group.dims["group_t"] == ("conditions", "channels", "phase_bands", "amplitude_bands")
    assert group.dims["group_contrast_t"] == ("channels", "phase_bands", "amplitude_bands")
    # go couples on Fz; nogo does not: the contrast finds it at the floor of 2^6 flips, two-sided.
    assert group["group_contrast_pvalues"][0].min() <= 2 / 64 + 1e-12
    assert group["group_pvalues"][0, 0].min() <= 1 / 64 + 1e-12 and group["group_pvalues"][1, 0].min() > 0.05
    assert np.isfinite(group["group_dz"]).any()
    stacked = np.stack([r["trial_rank_z"] for r in result.results.values()])
    again = group_test(stacked, group.dims["group_t"])
    np.testing.assert_array_equal(again["group_cluster_pvalues"], group["group_cluster_pvalues"])
    with pytest.raises(ValueError, match="at least 2 subjects"):
        pacflow.study({"sub-0": subjects["sub-0"]})
