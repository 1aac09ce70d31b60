"""comodulogram() in the field's words, MNE objects, and Result.plot()."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import pacflow
from pacflow._bands import band_spec
from pacflow.plotting import rows_needed
from conftest import outlined_cells
from conftest import coupled


def test_the_coupled_cell_stands_out(signals: np.ndarray) -> None:
    result = pacflow.comodulogram(signals, 256, f_pha=[[4, 8], [8, 12]], f_amp=[[60, 80], [80, 100]], n_perm=50,
                                  random_state=1, progress=False)
    assert result.pac_z.shape == (6, 3, 2, 2)
    mean_z = result.pac_z.mean(axis=0)
    assert np.unravel_index(np.argmax(mean_z), mean_z.shape) == (0, 0, 0)  # channel 0, 6 Hz x 70 Hz
    assert result.params["surrogates"]["seed"] == 1
    assert result.params["mi"]["method"] == "tort"


def test_methods_by_name_and_tensorpac_number(signals: np.ndarray) -> None:
    for method, expected in [("mvl", "mvl"), (4, "ndpac"), ("plv", "plv"), (6, "gc")]:
        result = pacflow.comodulogram(signals, 256, f_pha=[[4, 8]], f_amp=[[60, 80]], method=method, n_perm=0,
                                      progress=False)
        assert result.params["mi"]["method"] == expected
        assert "pac_z" not in result
    assert "envelope_phase" in pacflow.comodulogram(signals, 256, f_pha=[[4, 8]], f_amp=[[60, 80]], method="plv",
                                                     n_perm=0, progress=False).params
    with pytest.raises(ValueError, match="method='pearson'"):
        pacflow.comodulogram(signals, 256, method="pearson")
    with pytest.raises(TypeError, match="element__param"):
        pacflow.comodulogram(signals, 256, min_shift="1s")
    result = pacflow.comodulogram(signals, 256, f_pha=[[4, 8]], f_amp=[[60, 80]], n_perm=20,
                                  surrogates__min_shift="0.5s", mi__pairs="all", progress=False)
    assert result.dims["pac"][1] == "pairs" and result.pac.shape == (6, 9, 1, 1)
    with pytest.raises(ValueError, match="gain_confound=warn"):  # an epoch's z would follow its power
        pacflow.comodulogram(signals, 256, f_pha=[[4, 8]], f_amp=[[60, 80]], method="mvl", n_perm=20,
                             surrogates="swap_trials", progress=False)


def test_tensorpacs_band_forms() -> None:
    assert band_spec("mres", "f_pha") == "mres"
    assert band_spec((2, 20, 2, 1), "f_pha") == "2:20:2:1"
    assert band_spec([4, 8], "f_pha") == [[4.0, 8.0]]
    assert band_spec([[4, 6, 8], [6, 8, 10]], "f_pha") == [[4.0, 6.0], [6.0, 8.0], [8.0, 10.0]]
    assert band_spec([2, 4, 8], "f_pha") == [[2.0, 4.0], [4.0, 8.0]]
    with pytest.raises(ValueError, match="at least one band"):
        band_spec([5], "f_pha")


def test_an_mne_epochs_object(signals: np.ndarray) -> None:
    mne = pytest.importorskip("mne")
    info = mne.create_info(["Fz", "Cz", "Pz"], 256.0, "eeg")
    epochs = mne.EpochsArray(signals.astype(np.float64), info, verbose=False)
    bands = {"f_pha": [[4, 8]], "f_amp": [[60, 80]], "n_perm": 20, "progress": False}
    result = pacflow.comodulogram(epochs, **bands)
    assert result.channels == ["Fz", "Cz", "Pz"]
    assert result.report["input"]["dtype"] == "float64"  # read in place from MNE's float64 data
    direct = pacflow.comodulogram(signals.astype(np.float64), 256, **bands)
    assert result.pac_z.tobytes() == direct.pac_z.tobytes()
    picked = pacflow.comodulogram(epochs, picks=["Cz"], **bands)
    assert picked.channels == ["Cz"] and picked.pac.shape == (6, 1, 1, 1)
    assert picked.pac.tobytes() == result.pac[:, 1:2].tobytes()
    raw = mne.io.RawArray(np.concatenate(list(signals.astype(np.float64)), axis=-1), info, verbose=False)
    continuous = pacflow.comodulogram(raw, **bands)
    assert continuous.report["input"]["layout"] == "CT" and continuous.pac.shape == (1, 3, 1, 1)


def test_conditions_from_labels_and_from_mne_event_ids() -> None:
    mne = pytest.importorskip("mne")
    from conftest import coupled

    x = coupled(epochs=12, seed=4).astype(np.float64)
    labels = ["go", "nogo"] * 6
    bands = {"f_pha": [[4, 8]], "f_amp": [[60, 80]], "n_perm": 40, "surrogates__min_shift": "0.5s",
             "surrogates__trials": "maxstat", "progress": False}
    by_labels = pacflow.comodulogram(x, 256, conditions=labels, **bands)
    assert by_labels.dims["trial_pvalues"][0] == "conditions" and by_labels.trial_pvalues.shape == (2, 3, 1, 1)
    assert "contrast_pvalues" in by_labels and by_labels.contrast_z.shape == (3, 1, 1)
    assert by_labels.report["input"]["conditions"][1] == {"name": "nogo", "epochs": 6, "first_epoch": 1}
    # The same epochs as MNE epochs with their event_id: the same numbers, bit for bit.
    info = mne.create_info(["Fz", "Cz", "Pz"], 256.0, "eeg")
    events = np.column_stack([np.arange(12) * 1024, np.zeros(12, int), np.tile([1, 2], 6)])
    epochs = mne.EpochsArray(x, info, events=events, event_id={"go": 1, "nogo": 2}, verbose=False)
    by_events = pacflow.comodulogram(epochs, conditions=True, **bands)
    assert by_events.contrast_z.tobytes() == by_labels.contrast_z.tobytes()
    assert by_events.trial_z.tobytes() == by_labels.trial_z.tobytes()
    # A chosen order (the contrast is the first minus the second), and one condition's epochs alone.
    reversed_order = pacflow.comodulogram(epochs, conditions=["nogo", "go"], **bands)
    np.testing.assert_allclose(reversed_order.contrast_z, -by_labels.contrast_z, rtol=1e-5, atol=1e-6)
    only_go = pacflow.comodulogram(epochs, conditions=["go"], **bands)
    assert only_go.pac.shape[0] == 6 and "contrast_pvalues" not in only_go
    with pytest.raises(ValueError, match="'stop' not in the epochs' event_id"):
        pacflow.comodulogram(epochs, conditions=["go", "stop"], **bands)
    with pytest.raises(ValueError, match="2 labels for 12 epochs"):
        pacflow.comodulogram(x, 256, conditions=["go", "nogo"], **bands)


def test_bad_annotations_of_a_raw_recording_are_not_read_silently() -> None:
    mne = pytest.importorskip("mne")
    from conftest import coupled

    info = mne.create_info(["Fz", "Cz", "Pz"], 256.0, "eeg")
    raw = mne.io.RawArray(np.concatenate(list(coupled().astype(np.float64)), axis=-1), info, verbose=False)
    raw.set_annotations(mne.Annotations(onset=[2.0], duration=[1.5], description=["BAD_muscle"]))
    bands = {"f_pha": [[4, 8]], "f_amp": [[60, 80]], "n_perm": 0, "progress": False}
    with pytest.raises(ValueError, match="1 BAD annotation \\(1.5 s\\).*reject_by_annotation=True"):
        pacflow.comodulogram(raw, **bands)
    assert pacflow.comodulogram(raw, reject_by_annotation=False, **bands).pac.shape == (1, 3, 1, 1)
    epochs = mne.make_fixed_length_epochs(raw, duration=4, reject_by_annotation=True, preload=True, verbose=False)
    assert len(epochs) == 5  # 24 s in 4 s epochs, the one that meets the BAD stretch left out
    assert pacflow.comodulogram(epochs, **bands).pac.shape == (5, 3, 1, 1)


def test_plot_draws_the_comodulogram_in_hz_with_significant_cells_outlined() -> None:
    x = coupled(epochs=12, channels=2, n_times=2048)
    result = pacflow.comodulogram(x, 256, f_pha="4:12:4", f_amp="60:100:4", n_perm=100, progress=False)
    figure = result.plot()
    ax = figure.axes[0]
    assert ax.get_xlabel() == "phase frequency (Hz)" and ax.get_ylabel() == "amplitude frequency (Hz)"
    low, high = ax.get_xlim()
    assert low < result.f_pha[0] < result.f_pha[-1] < high
    grid = result.plot(per_channel=True)
    panels = [a for a in grid.axes if a.get_visible() and a.get_title()]
    assert [a.get_title() for a in panels] == ["channel 0", "channel 1"]
    assert outlined_cells(panels[0]) >= 1  # the coupled channel has outlined cells
    assert outlined_cells(panels[0]) > outlined_cells(panels[1])


def test_rows_needed_is_the_binomial_threshold() -> None:
    assert rows_needed(1, 0.05) == 1
    assert rows_needed(20, 0.05) == 4  # P[K >= 4] = 0.016, P[K >= 3] = 0.075 for Binomial(20, 0.05)
