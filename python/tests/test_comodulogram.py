"""comodulogram() in the field's words, MNE objects, and Result.plot()."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import pacflow
from pacflow._bands import band_spec
from pacflow.plotting import rows_needed
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
    assert len(panels[0].patches) >= 1  # the coupled channel has outlined cells
    assert len(panels[0].patches) > len(panels[1].patches)


def test_rows_needed_is_the_binomial_threshold() -> None:
    assert rows_needed(1, 0.05) == 1
    assert rows_needed(20, 0.05) == 4  # P[K >= 4] = 0.016, P[K >= 3] = 0.075 for Binomial(20, 0.05)
