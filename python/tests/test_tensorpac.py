"""The TensorPAC drop-in against TensorPAC itself (a test dependency): every idpac measure, the
filters, the layouts, the surrogates and the documented differences, asserted as such."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

tensorpac = pytest.importorskip("tensorpac")
from tensorpac import Pac as TensorpacPac  # noqa: E402
from tensorpac.methods.meth_pac import heights_ratio, modulation_index, phase_locking_value  # noqa: E402
from tensorpac.signals import pac_signals_tort  # noqa: E402
from tensorpac.utils import pac_vec as tensorpac_pac_vec  # noqa: E402

from pacflow.tensorpac import Pac, pac_vec  # noqa: E402

SF = 512.0
BANDS = {"f_pha": (2, 20, 4, 4), "f_amp": (60, 160, 20, 20)}


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    x, _ = pac_signals_tort(f_pha=6, f_amp=90, noise=2, n_epochs=6, dpha=10, damp=10, sf=SF, n_times=2048,
                            rnd_state=0)
    return x


def reference(idpac: tuple[int, int, int], x: np.ndarray, **kw: object) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TensorpacPac(idpac=idpac, **BANDS, verbose=False).filterfit(SF, x, n_perm=0, n_jobs=1, verbose=False,
                                                                           **kw)


def drop_in(idpac: tuple[int, int, int], x: np.ndarray, **kw: object) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Pac(idpac=idpac, **BANDS).filterfit(SF, x, n_perm=0, **kw)


def assert_within_spec(ours: np.ndarray, theirs: np.ndarray) -> None:
    """spec §9: |difference| <= 2e-5 + 1e-3 |reference| per cell."""
    assert ours.shape == theirs.shape
    excess = np.abs(ours - theirs) - (2e-5 + 1e-3 * np.abs(theirs))
    assert excess.max() <= 0, f"worst cell off by {np.abs(ours - theirs).max():.3g}"


@pytest.mark.parametrize("presets", [("lres", "mres"), ([2, 4], [60, 80]), ([[4, 8], [8, 12]], [[60, 90]]),
                                     ((2, 20, 2, 1), (60, 160, 10, 5)), ([2, 4, 8, 16], np.arange(60, 100, 10))])
def test_band_forms_are_tensorpacs(presets: tuple) -> None:
    ours, theirs = pac_vec(*presets), tensorpac_pac_vec(*presets)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("measure", [1, 4, 6])
def test_mvl_ndpac_and_gaussian_copula_match_tensorpac(measure: int, data: np.ndarray) -> None:
    assert_within_spec(drop_in((measure, 0, 0), data), reference((measure, 0, 0), data))


def test_cross_signal_pac_matches_tensorpac(data: np.ndarray) -> None:
    other = np.roll(data, 1, axis=0)  # amplitude of another epoch
    assert_within_spec(drop_in((1, 0, 0), data, x_amp=other), reference((1, 0, 0), data, x_amp=other))


@pytest.mark.parametrize("measure,function", [(2, modulation_index), (3, heights_ratio)])
def test_tort_and_hr_are_tensorpacs_per_series_as_documented(measure: int, function, data: np.ndarray) -> None:
    """TensorPAC's tensor path pools the bin counts over bands and epochs; called one series (one
    band pair, one epoch) at a time it computes pacflow's per-series value."""
    tp = TensorpacPac(idpac=(measure, 0, 0), **BANDS, verbose=False)
    pha, amp = tp.filter(SF, data, "phase", n_jobs=1), tp.filter(SF, data, "amplitude", n_jobs=1)
    per_series = np.array([[[function(pha[i:i + 1, e:e + 1], amp[j:j + 1, e:e + 1], n_bins=18)[0, 0, 0]
                             for e in range(data.shape[0])] for i in range(pha.shape[0])] for j in range(amp.shape[0])])
    ours = drop_in((measure, 0, 0), data)
    assert_within_spec(ours, per_series)
    assert not np.allclose(ours, reference((measure, 0, 0), data), rtol=1e-3), "the documented difference vanished"


def test_plv_takes_the_envelopes_phase_in_the_phase_band_as_documented(data: np.ndarray) -> None:
    tp = TensorpacPac(idpac=(5, 0, 0), **BANDS, verbose=False)
    pha, amp = tp.filter(SF, data, "phase", n_jobs=1), tp.filter(SF, data, "amplitude", n_jobs=1)
    expected = np.empty((amp.shape[0], pha.shape[0], data.shape[0]))
    for j in range(amp.shape[0]):
        envelope_phase = tp.filter(SF, amp[j], "phase", n_jobs=1)  # (n_pha, epochs, times)
        for i in range(pha.shape[0]):
            expected[j, i] = phase_locking_value(pha[i:i + 1], envelope_phase[i:i + 1])[0, 0]
    assert_within_spec(drop_in((5, 0, 0), data), expected)


def test_filter_gives_tensorpacs_phases_amplitudes_and_filtered_signals(data: np.ndarray) -> None:
    ours, theirs = Pac(**BANDS), TensorpacPac(**BANDS, verbose=False)
    for ftype in ("phase", "amplitude"):
        for edges in (None, 64):
            a = ours.filter(SF, data, ftype, edges=edges)
            b = theirs.filter(SF, data, ftype, edges=edges, n_jobs=1)
            assert a.shape == b.shape
            difference = np.angle(np.exp(1j * (a - b))) if ftype == "phase" else a - b
            assert np.abs(difference).max() <= 1e-4 * np.abs(b).max()
    a = ours.filter(SF, data, "phase", keepfilt=True, edges=32)
    b = theirs.filter(SF, data, "phase", keepfilt=True, edges=32, n_jobs=1)
    assert np.abs(a - b).max() <= 1e-4 * np.abs(b).max()


def test_filter_makes_only_the_kind_asked_for_with_the_same_values(data: np.ndarray) -> None:
    """``filter`` runs only the bands of its ftype, with one stand-in band of the other kind filtered at
    the asked kind's cycles (no order cut short for it: 2048 samples hold three orders of a 3-cycle
    4 Hz filter, 3 * 128 taps, not of a 6-cycle one), and gives the values of a pipeline filtering both."""
    import pacflow

    p = Pac(f_pha=[[4, 6], [6, 8]], f_amp=[[60, 80], [90, 110], [120, 140]])
    both = pacflow.Pipeline().source(data, fs=SF, layout="ET").stage(
        "bandpass", pha=p.f_pha.tolist(), amp=p.f_amp.tolist()).stage("hilbert", outputs="phase,amplitude").run(
        progress=False)
    np.testing.assert_array_equal(p.filter(SF, data, "phase"), both["phase"][:, 0].transpose(1, 0, 2))
    np.testing.assert_array_equal(p.filter(SF, data, "amplitude"), both["amplitude"][:, 0].transpose(1, 0, 2))
    for used, kept, stand_in in ((("pha",), "phase", "amplitude"), (("amp",), "amplitude", "phase")):
        run = p._filter_pipeline(SF, data, None, filtered=False, used=used).stage(
            "hilbert", outputs="phase,amplitude").run(progress=False)
        assert run[kept].shape[-2] == (2 if kept == "phase" else 3) and run[stand_in].shape[-2] == 1
        assert run.warnings == [], run.warnings


@pytest.mark.parametrize("idpac", [(2, 2, 4), (1, 3, 1), (6, 1, 2), (2, 2, 3)])
def test_surrogates_layout_and_normalisation(idpac: tuple[int, int, int], data: np.ndarray) -> None:
    p = Pac(idpac=idpac, **BANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        normalised = p.filterfit(SF, data, n_perm=40, random_state=3)
    n_amp, n_pha, n_epochs = len(p.yvec), len(p.xvec), data.shape[0]
    assert normalised.shape == p.pac.shape == (n_amp, n_pha, n_epochs)
    assert p.surrogates.shape == (40, n_amp, n_pha, n_epochs)
    assert p.pvalues.shape == (n_amp, n_pha)
    mean, std = p.surrogates.mean(0, dtype=np.float64), p.surrogates.std(0, dtype=np.float64)
    expected = {1: p.pac - mean, 2: p.pac / mean, 3: (p.pac - mean) / mean, 4: (p.pac - mean) / std}[idpac[2]]
    np.testing.assert_allclose(normalised, expected, rtol=2e-4, atol=2e-5)
    again = Pac(idpac=idpac, **BANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(again.filterfit(SF, data, n_perm=40, random_state=3), normalised)  # seeded


def test_pvalues_follow_tensorpacs_convention(data: np.ndarray) -> None:
    p = Pac(idpac=(2, 2, 4), **BANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p.filterfit(SF, data, n_perm=100, random_state=1)
    values = p.pvalues
    assert values.min() >= 1 / 100 and set(np.unique(values[values >= 0.05])) <= {1.0}
    coupled = np.unravel_index(np.argmax(p.pac.mean(2)), p.pac.shape[:2])
    assert values[coupled] < 0.05  # 6 Hz x 90 Hz
    fdr = p.infer_pvalues(0.05, mcp="fdr")
    assert fdr.shape == values.shape and fdr[coupled] < 0.05
    with pytest.raises(ValueError, match="mcp="):
        p.infer_pvalues(0.05, mcp="holm")


def test_a_tensorpac_script_runs_with_only_the_import_changed() -> None:
    """A script as TensorPAC's documentation writes them, its import line changed."""
    from pacflow.tensorpac import Pac
    from tensorpac.signals import pac_signals_wavelet

    sf = 1024.
    data, time = pac_signals_wavelet(sf=sf, f_pha=10, f_amp=100, noise=.8, n_epochs=20, n_times=3000)
    p = Pac(idpac=(6, 0, 0), f_pha=(2, 30, 1, 1), f_amp=(60, 150, 5, 5))
    xpac = p.filterfit(sf, data, n_jobs=2)
    assert xpac.shape == (len(p.yvec), len(p.xvec), 20)
    p.idpac = (2, 2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xpac = p.filterfit(sf, data, n_perm=20, n_jobs=2, random_state=0)
    assert p.method == "Modulation Index (MI, Tort et al. 2010)" and str(p) == p.method
    assert p.str_surro.startswith("Swap amplitude time blocks")


def test_wavelets_are_tensorpacs(data: np.ndarray) -> None:
    """dcomplex='wavelet': TensorPAC's Morlet decomposition at each band's centre, phases and amplitudes
    as TensorPAC's own, then the measure on them."""
    bands = {"f_pha": [[4, 8], [8, 12]], "f_amp": [[60, 80], [80, 120]]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TensorpacPac(idpac=(1, 0, 0), dcomplex="wavelet", width=7, **bands, verbose=False)
        ours = Pac(idpac=(1, 0, 0), dcomplex="wavelet", width=7, **bands)
        for ftype in ("phase", "amplitude"):
            expected = theirs.filter(SF, data, ftype=ftype, n_jobs=1)
            got = ours.filter(SF, data, ftype=ftype)
            assert got.shape == expected.shape
            if ftype == "phase":  # angles near ±pi may land on either side: compare on the circle
                np.testing.assert_allclose(np.cos(got - expected), 1, atol=1e-6)
            else:
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))
        np.testing.assert_allclose(ours.filterfit(SF, data, n_perm=0),
                                   theirs.filterfit(SF, data, n_perm=0, n_jobs=1, verbose=False), rtol=1e-3, atol=1e-6)
    with pytest.raises(ValueError, match="no band-passed signal"):
        ours.filter(SF, data, keepfilt=True)


def test_refusals_and_the_documented_warning(data: np.ndarray) -> None:
    with pytest.raises(ValueError, match="'hilbert'.*'wavelet'"):
        Pac(dcomplex="morse")
    with pytest.raises(ValueError, match="3 integers"):
        Pac(idpac=(1, 2))
    with pytest.raises(ValueError, match="Cycle"):
        Pac(cycle=(3.5, 6))
    assert tuple(Pac(idpac=(4, 2, 4)).idpac) == (4, 0, 0)  # ndPAC without surrogates, as TensorPAC
    import pacflow.tensorpac as drop

    drop._warned.discard(3)
    with pytest.warns(UserWarning, match="heights ratio: pacflow counts phase bins per series"):
        Pac(idpac=(3, 0, 0), **BANDS).filterfit(SF, data, n_perm=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        Pac(idpac=(3, 0, 0), **BANDS).filterfit(SF, data, n_perm=0)


def test_fit_takes_phases_and_amplitudes_filtered_elsewhere(data: np.ndarray) -> None:
    theirs = TensorpacPac(idpac=(1, 0, 0), **BANDS, verbose=False)
    pha, amp = theirs.filter(SF, data, "phase", n_jobs=1), theirs.filter(SF, data, "amplitude", n_jobs=1)
    for measure in (1, 4, 6):
        theirs.idpac = (measure, 0, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = theirs.fit(pha, amp, n_perm=0, n_jobs=1, verbose=False)
            ours = Pac(idpac=(measure, 0, 0), **BANDS).fit(pha, amp, n_perm=0, sf=SF)
        assert_within_spec(ours, expected)
    # From the drop-in's own filter, fit gives filterfit's numbers bit for bit.
    p = Pac(idpac=(2, 2, 4), **BANDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z_fit = p.fit(p.filter(SF, data, "phase"), p.filter(SF, data, "amplitude"), n_perm=30, random_state=2)
        pac_fit, surrogates_fit = p.pac.copy(), p.surrogates.copy()
        z = p.filterfit(SF, data, n_perm=30, random_state=2)
    assert z_fit.tobytes() == z.tobytes() and pac_fit.tobytes() == p.pac.tobytes()
    assert surrogates_fit.tobytes() == p.surrogates.tobytes()


def test_fit_refusals(data: np.ndarray) -> None:
    p = Pac(idpac=(1, 0, 0), **BANDS)
    pha = np.zeros((len(p.xvec), 2, 256))
    amp = np.ones((len(p.yvec), 2, 256))
    with pytest.raises(ValueError, match="sample rate"):  # pacflow's min_shift rule is a period of a band
        Pac(idpac=(2, 2, 4), **BANDS).fit(pha, amp, n_perm=10, min_shift=None)
    with pytest.raises(ValueError, match="bands"):
        p.fit(pha[:2], amp, n_perm=0, sf=SF)
    with pytest.raises(ValueError, match="PLV"):
        Pac(idpac=(5, 0, 0), **BANDS).fit(pha, amp, n_perm=0, sf=SF)
    with pytest.raises(ValueError, match="degrees"):
        p.fit(pha + 180.0, amp, n_perm=0, sf=SF)


def test_swapped_trials_with_the_mvl_run_as_tensorpac_but_warn_that_they_follow_power(data: np.ndarray) -> None:
    """The engine refuses swap_trials with mvl (an epoch's z follows its gain); the drop-in runs it
    as TensorPAC does and passes the engine's warning on."""
    with pytest.warns(UserWarning, match="power differences"):
        xpac = Pac(idpac=(1, 1, 4), **BANDS).filterfit(SF, data, n_perm=20, random_state=0)
    assert xpac.shape[-1] == data.shape[0] and np.isfinite(xpac).all()
