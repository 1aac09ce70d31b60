"""TensorPAC 0.6.5's public API from pacflow.tensorpac: scripts in the patterns of TensorPAC's examples
gallery, each run twice with only the import changed (TensorPAC, then the drop-in), their arrays,
plots and significant cells compared."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

tensorpac = pytest.importorskip("tensorpac")
import tensorpac.signals as tensorpac_signals  # noqa: E402
import tensorpac.utils as tensorpac_utils  # noqa: E402
from tensorpac.methods import preferred_phase  # noqa: E402

import pacflow.tensorpac as drop  # noqa: E402

SF = 512.0
# The module namespaces a script imports from: TensorPAC's (split over three modules) and the drop-in.
TENSORPAC = {**vars(tensorpac_signals), **vars(tensorpac_utils), **vars(tensorpac)}
PACFLOW = vars(drop)


def run_script(api: dict, script, *args, **kwargs):
    """Runs `script` with the names of `api` (one import line), TensorPAC's logging and warnings off."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return script(api, *args, **kwargs)


def assert_within_spec(ours: np.ndarray, theirs: np.ndarray) -> None:
    """spec §9: |difference| <= 2e-5 + 1e-3 |reference| per cell."""
    assert np.shape(ours) == np.shape(theirs)
    excess = np.abs(np.asarray(ours, dtype=float) - theirs) - (2e-5 + 1e-3 * np.abs(theirs))
    assert np.nanmax(excess) <= 0, f"worst cell off by {np.nanmax(np.abs(ours - theirs)):.3g}"


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


@pytest.fixture(scope="module")
def wavelet_data() -> np.ndarray:
    return drop.pac_signals_wavelet(sf=SF, f_pha=6, f_amp=90, noise=0.8, n_epochs=30, n_times=3000, rnd_state=0)[0]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# -- tensorpac.signals and tensorpac.utils.pac_trivec ---------------------------------------------------
@pytest.mark.parametrize("name,kwargs", [
    ("pac_signals_tort", dict(n_epochs=3, n_times=1000, rnd_state=3)),
    ("pac_signals_tort", dict(f_pha=[5, 7], f_amp=[80, 90], noise=2, chi=0.2, sf=512, rnd_state=1)),
    ("pac_signals_tort", dict(f_pha=6, f_amp=90, dpha=10, damp=10, chi=0.6, noise=5, rnd_state=2)),
    ("pac_signals_wavelet", dict(n_epochs=3, n_times=1000, rnd_state=3, pp=np.pi / 3)),
])
def test_signals_are_tensorpacs_draw_for_draw(name: str, kwargs: dict) -> None:
    ours, t_ours = PACFLOW[name](**kwargs)
    theirs, t_theirs = TENSORPAC[name](**kwargs)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(t_ours, t_theirs)


@pytest.mark.parametrize("args", [(), (2, 30, 3), (60, 160, 25)])
def test_pac_trivec_is_tensorpacs(args: tuple) -> None:
    for ours, theirs in zip(drop.pac_trivec(*args), tensorpac_utils.pac_trivec(*args)):
        np.testing.assert_array_equal(ours, theirs)


# -- Gallery: a comodulogram, drawn ---------------------------------------------------------------------
def comodulogram_script(api: dict, x: np.ndarray, path) -> tuple:
    p = api["Pac"](idpac=(6, 0, 0), f_pha=(2, 16, 2, 1), f_amp=(60, 140, 10, 5))
    xpac = p.filterfit(SF, x, n_jobs=1)
    plt.figure(figsize=(8, 6))
    ax = p.comodulogram(xpac.mean(-1), title=str(p), cmap="Spectral_r", vmin=0.0)
    p.savefig(path, dpi=50)
    image = ax.images[0]
    return xpac, np.ma.filled(image.get_array(), np.nan), image.get_extent(), image.get_clim(), ax.get_title(), \
        ax.get_xlabel(), ax.get_ylabel()


def test_gallery_comodulogram(wavelet_data: np.ndarray, tmp_path) -> None:
    ours = run_script(PACFLOW, comodulogram_script, wavelet_data, tmp_path / "ours.png")
    theirs = run_script(TENSORPAC, comodulogram_script, wavelet_data, tmp_path / "theirs.png")
    assert_within_spec(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-3, atol=2e-5)  # the drawn map
    np.testing.assert_allclose(ours[2], theirs[2])  # extent
    assert ours[3][0] == theirs[3][0] == 0.0 and ours[3][1] == pytest.approx(theirs[3][1], rel=1e-3)
    assert ours[4:] == theirs[4:]
    assert (tmp_path / "ours.png").stat().st_size > 1000


@pytest.mark.parametrize("kwargs", [dict(plotas="contour", ncontours=4), dict(plotas="pcolor", rmaxis=True),
                                    dict(pvalues="random", p=0.05, bad="white", under="gray", over="red"),
                                    dict(levels=[0.01, 0.05], pvalues="random", colorbar=False)])
def test_pacplot_options_draw_what_tensorpac_draws(kwargs: dict) -> None:
    rng = np.random.default_rng(0)
    pac = rng.standard_normal((4, 3))
    if kwargs.get("pvalues") == "random":
        kwargs = {**kwargs, "pvalues": rng.uniform(0, 0.1, (4, 3))}
    drawn = []
    for api in (PACFLOW, TENSORPAC):
        plt.figure()
        p = run_script(api, lambda a: a["Pac"](f_pha=(2, 10, 2, 2), f_amp=(60, 120, 12, 12)))
        ax = run_script(api, lambda a: p.comodulogram(pac, **kwargs))
        artist = ax.images[0] if ax.images else ax.collections[0]
        drawn.append((np.ma.filled(np.ma.masked_invalid(np.asarray(artist.get_array(), dtype=float)), -9.0)
                      if artist.get_array() is not None else None, artist.get_clim(), len(ax.collections),
                      len(plt.gcf().axes)))
    ours, theirs = drawn
    if theirs[0] is not None:
        np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2:] == theirs[2:]


def test_comodulogram_of_a_3d_array_warns_and_averages() -> None:
    p = drop.Pac(f_pha=(2, 10, 2, 2), f_amp=(60, 120, 12, 12))
    pac = np.random.default_rng(1).uniform(size=(4, 3, 5))
    with pytest.warns(UserWarning, match="Taking the mean across the last dimension"):
        ax = p.comodulogram(pac)
    np.testing.assert_allclose(ax.images[0].get_array(), pac.mean(-1))


def triplot_script(api: dict, x: np.ndarray) -> tuple:
    f, tridx = api["pac_trivec"](f_start=60, f_end=140, f_width=20)
    p = api["Pac"](idpac=(1, 0, 0), f_pha=[5, 7], f_amp=f)
    xpac = p.filterfit(SF, x, n_jobs=1).mean(-1)
    plt.figure()
    ax = p.triplot(xpac, f, tridx, cmap="Spectral_r", rmaxis=True, title="Optimal bandwidth")
    image = ax.images[0]
    return np.ma.filled(image.get_array(), np.nan), image.get_extent(), image.get_clim()


def test_gallery_triplot(wavelet_data: np.ndarray) -> None:
    ours, theirs = run_script(PACFLOW, triplot_script, wavelet_data), run_script(TENSORPAC, triplot_script, wavelet_data)
    assert np.array_equal(np.isnan(ours[0]), np.isnan(theirs[0]))
    assert_within_spec(np.nan_to_num(ours[0]), np.nan_to_num(theirs[0]))
    np.testing.assert_allclose(ours[1], theirs[1])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-3)


# -- Gallery: statistics (TensorPAC's swap-blocks rule) -----------------------------------------------
def pvalues_script(api: dict, x: np.ndarray, **extra) -> tuple:
    p = api["Pac"](idpac=(1, 2, 4), f_pha=(2, 12, 2, 0.5), f_amp=(60, 130, 10, 2.5))
    xpac = p.filterfit(SF, x, n_perm=200, n_jobs=1, random_state=0, **extra)
    plt.figure()
    p.comodulogram(xpac.mean(-1), pvalues=p.pvalues, p=0.05, bad="lightgray", title="significant PAC")
    return p.pac, p.pvalues


def test_gallery_pvalues_find_tensorpacs_significant_cells() -> None:
    """TensorPAC cuts the amplitude anywhere in [1, T): with that rule (min_shift=1, the drop-in's
    default) the significant cells are TensorPAC's; pacflow's own rule (min_shift=None, shifts of at
    least a period of the lowest phase band) leaves the small shifts out and finds more."""
    x = drop.pac_signals_tort(sf=SF, f_pha=6, f_amp=90, noise=2.5, n_epochs=10, n_times=2048, dpha=10, damp=10,
                              chi=0.6, rnd_state=0)[0]
    pac, pvalues = run_script(PACFLOW, pvalues_script, x)
    their_pac, their_pvalues = run_script(TENSORPAC, pvalues_script, x)
    assert_within_spec(pac, their_pac)
    assert pvalues.shape == their_pvalues.shape
    agreement = jaccard(pvalues < 0.05, their_pvalues < 0.05)
    assert (their_pvalues < 0.05).sum() >= 5 and agreement >= 0.8
    _, own_rule = run_script(PACFLOW, pvalues_script, x, min_shift=None)
    assert jaccard(own_rule < 0.05, their_pvalues < 0.05) < agreement


def test_surrogate_shift_rule_and_trial_level_test_reach_the_engine(wavelet_data: np.ndarray) -> None:
    p = drop.Pac(idpac=(2, 2, 4), f_pha=[[4, 8]], f_amp=[[80, 100]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p.filterfit(SF, wavelet_data, n_perm=20, random_state=0)
        assert p.result.params["surrogates"]["min_shift_samples"] == 1
        assert "trial_pvalues" not in p.result
        p.filterfit(SF, wavelet_data, n_perm=20, random_state=0, min_shift="0.25s", trials="maxstat")
    assert p.result.params["surrogates"]["min_shift_samples"] == 128
    assert p.result["trial_pvalues"].shape == (1, 1, 1)
    with pytest.raises(ValueError, match="trials="):
        p.filterfit(SF, wavelet_data, n_perm=20, trials="holm")


# -- Gallery: event-related PAC -------------------------------------------------------------------------
def erpac_script(api: dict, x: np.ndarray, f_pha, mcp: str = "fdr") -> tuple:
    rp = api["EventRelatedPac"](f_pha=f_pha, f_amp=(60, 140, 20, 20))
    erpac = rp.filterfit(SF, x, method="circular", mcp=mcp, edges=32, n_jobs=1)
    plt.figure()
    rp.pacplot(erpac[:, 0], np.arange(erpac.shape[-1]) / SF, rp.yvec, xlabel="Time", ylabel="Amplitude (Hz)",
               title=rp.method, cmap="Spectral_r", rmaxis=True)
    return erpac, rp.pvalues, rp.method


@pytest.mark.parametrize("mcp", ["fdr", "bonferroni"])
def test_gallery_erpac_one_phase_band(wavelet_data: np.ndarray, mcp: str) -> None:
    ours = run_script(PACFLOW, erpac_script, wavelet_data, [5, 7], mcp)
    theirs = run_script(TENSORPAC, erpac_script, wavelet_data, [5, 7], mcp)
    assert ours[0].shape == theirs[0].shape == (3, 1, 3000 - 64)
    assert_within_spec(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1], rtol=5e-3, atol=1e-6)
    assert ours[2] == theirs[2] == "ERPAC (Voytek et al. 2013)"


def test_erpac_of_several_phase_bands_is_each_bands_own_as_documented(wavelet_data: np.ndarray) -> None:
    """TensorPAC's erpac mixes the phase bands' sines and cosines (its r_cs sums over bands); its docs
    and Voytek et al. define each band's own correlation: the drop-in computes that, equal to TensorPAC
    called one band at a time, and warns once."""
    drop._warned.discard("erpac")
    with pytest.warns(UserWarning, match="ERPAC with several phase bands"):
        ours = drop.EventRelatedPac(f_pha=[[4, 8], [8, 12]], f_amp=(60, 140, 20, 20)).filterfit(SF, wavelet_data,
                                                                                                 edges=32)
    per_band = np.concatenate([run_script(TENSORPAC, erpac_script, wavelet_data, [band])[0] for band in ([4, 8], [8, 12])],
                              axis=1)
    assert_within_spec(ours, per_band)
    mixed = run_script(TENSORPAC, erpac_script, wavelet_data, [[4, 8], [8, 12]])[0]
    assert not np.allclose(ours, mixed, atol=1e-2), "the documented difference vanished"


def test_erpac_fit_on_tensorpacs_phases_and_infer_pvalues(wavelet_data: np.ndarray) -> None:
    theirs = run_script(TENSORPAC, lambda a: a["EventRelatedPac"](f_pha=[5, 7], f_amp=(60, 140, 20, 20)))
    pha = run_script(TENSORPAC, lambda a: theirs.filter(SF, wavelet_data, "phase", n_jobs=1))
    amp = run_script(TENSORPAC, lambda a: theirs.filter(SF, wavelet_data, "amplitude", n_jobs=1))
    expected = run_script(TENSORPAC, lambda a: theirs.fit(pha, amp, mcp="bonferroni"))
    ours = drop.EventRelatedPac(f_pha=[5, 7], f_amp=(60, 140, 20, 20))
    assert_within_spec(ours.fit(pha, amp, mcp="fdr"), expected)
    np.testing.assert_allclose(ours.infer_pvalues(0.05, mcp="bonferroni"), theirs.pvalues, rtol=1e-3, atol=1e-6)
    with pytest.raises(ValueError, match="use 'circular' or 'gc'"):
        ours.fit(pha, amp, method="kendall")


def test_gaussian_copula_erpac_is_tensorpacs(wavelet_data: np.ndarray) -> None:
    """method='gc': TensorPAC's Gaussian-copula ERPAC on the same phases and amplitudes, with and
    without smoothing; its p-values are max-T against the engine's own epoch permutations."""
    theirs = run_script(TENSORPAC, lambda a: a["EventRelatedPac"](f_pha=[5, 7], f_amp=(60, 140, 20, 20)))
    pha = run_script(TENSORPAC, lambda a: theirs.filter(SF, wavelet_data, "phase", n_jobs=1))
    amp = run_script(TENSORPAC, lambda a: theirs.filter(SF, wavelet_data, "amplitude", n_jobs=1))
    ours = drop.EventRelatedPac(f_pha=[5, 7], f_amp=(60, 140, 20, 20))
    for smooth in (None, 5):
        expected = run_script(TENSORPAC, lambda a: theirs.fit(pha, amp, method="gc", smooth=smooth, n_jobs=1))
        got = ours.fit(pha, amp, method="gc", smooth=smooth)
        assert got.shape == expected.shape
        finite = np.isfinite(expected)
        np.testing.assert_array_equal(np.isfinite(got), finite)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-4, atol=1e-6)
    assert ours.method == "Gaussian-Copula ERPAC" and np.isnan(ours.pvalues).all()
    ours.fit(pha, amp, method="gc", n_perm=99)
    assert ours.pvalues.min() >= 1 / 100 and (ours.pvalues <= 1).all()
    assert np.array_equal(ours.infer_pvalues(0.05), ours.pvalues)  # max-T: no correction to apply


# -- Gallery: preferred phase ----------------------------------------------------------------------------
def preferred_phase_script(api: dict, x: np.ndarray) -> tuple:
    p = api["PreferredPhase"](f_pha=[5, 7], f_amp=(60, 160, 20, 10))
    pha = p.filter(SF, x, ftype="phase", n_jobs=1)
    amp = p.filter(SF, x, ftype="amplitude", n_jobs=1)
    ampbin, pp, vecbin = p.fit(pha, amp, n_bins=72)
    plt.figure()
    ax = p.polar(ampbin.squeeze().mean(-1).T, vecbin, p.yvec, cmap="RdBu_r", interp=0.1, subplot=121,
                 cblabel="Amplitude bins")
    return pha, amp, ampbin, pp, vecbin, type(ax).__name__


def test_gallery_preferred_phase_is_tensorpacs_per_series(wavelet_data: np.ndarray) -> None:
    """TensorPAC's tensor path divides each series' bin sums by counts pooled over bands and epochs;
    with one series at a time it gives pacflow's (Tort's per-series means), as documented."""
    ours = run_script(PACFLOW, preferred_phase_script, wavelet_data)
    theirs = run_script(TENSORPAC, preferred_phase_script, wavelet_data)
    pha, amp = theirs[0], theirs[1]
    assert [a.shape for a in ours[2:5]] == [a.shape for a in theirs[2:5]] and ours[5] == theirs[5] == "PolarAxes"
    np.testing.assert_allclose(ours[4], theirs[4])
    per_series = np.empty_like(theirs[2])
    per_series_pp = np.empty_like(theirs[3])
    for e in range(pha.shape[1]):
        for a in range(amp.shape[0]):
            binned, pp, _ = preferred_phase(pha[:, e:e + 1], amp[a:a + 1, e:e + 1], n_bins=72)
            per_series[:, a, :, e], per_series_pp[a, :, e] = binned[:, 0, :, 0], pp[0, :, 0]
    ours_from_theirs = drop.PreferredPhase(f_pha=[5, 7], f_amp=(60, 160, 20, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binned, pp, _ = ours_from_theirs.fit(pha, amp, n_bins=72)
    assert_within_spec(binned, per_series)
    assert np.abs(np.angle(np.exp(1j * (pp - per_series_pp)))).max() < 1e-5
    assert_within_spec(ours[2], binned)  # from the drop-in's own filter
    assert not np.allclose(ours[2], theirs[2], atol=1e-3), "the documented difference vanished"
    binned, pp, vec = drop.PreferredPhase(f_pha=[5, 7], f_amp=[60, 80]).filterfit(SF, wavelet_data)
    assert binned.shape == (12, 1, 1, wavelet_data.shape[0]) and vec.shape == (12,)  # TensorPAC's default here


# -- tensorpac.utils: BinAmplitude, ITC, PSD, PeakLockedTF ----------------------------------------------
def utils_script(api: dict, x: np.ndarray) -> tuple:
    b_obj = api["BinAmplitude"](x, SF, f_pha=[5, 7], f_amp=[80, 100], n_bins=18, n_jobs=1)
    plt.figure()
    b_obj.plot(normalize=True, color="blue", alpha=0.5)
    itc = api["ITC"](x, SF, f_pha=(2, 20, 4, 4), edges=50, n_jobs=1)
    plt.figure()
    itc.plot(cmap="plasma")
    psd = api["PSD"](x, SF)
    plt.figure()
    psd.plot(confidence=95, f_min=2, f_max=150, log=True, grid=True)
    plt.figure()
    psd.plot_st_psd(f_min=2, f_max=150, cmap="Greys", fz_labels=18)
    return b_obj.amplitude, itc.itc, psd.freqs, psd.psd


def test_gallery_utils(wavelet_data: np.ndarray) -> None:
    ours = run_script(PACFLOW, utils_script, wavelet_data)
    theirs = _tensorpac_utils_without_its_broken_plots(wavelet_data)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=2e-3, atol=1e-5 * np.abs(theirs[0]).max())
    assert_within_spec(ours[1], theirs[1])
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-10, atol=1e-12 * theirs[3].max())


def _tensorpac_utils_without_its_broken_plots(x: np.ndarray) -> tuple:
    """TensorPAC's numbers (its ITC.plot crops twice with edges, and PSD.plot(log=True) uses a keyword
    matplotlib removed: the drop-in draws what they mean to)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b_obj = tensorpac_utils.BinAmplitude(x, SF, f_pha=[5, 7], f_amp=[80, 100], n_bins=18, n_jobs=1)
        itc = tensorpac_utils.ITC(x, SF, f_pha=(2, 20, 4, 4), edges=50, n_jobs=1)
        psd = tensorpac_utils.PSD(x, SF)
    return b_obj.amplitude, itc.itc, psd.freqs, psd.psd


def test_peak_locked_tf_realigns_on_tensorpacs_peaks(wavelet_data: np.ndarray) -> None:
    times = np.arange(wavelet_data.shape[1]) / SF - 1.0
    kw = dict(cue=0.0, times=times, f_pha=[5, 7], f_amp=(60, 140, 20, 10))
    ours = run_script(PACFLOW, lambda a: a["PeakLockedTF"](wavelet_data, SF, **kw))
    theirs = run_script(TENSORPAC, lambda a: a["PeakLockedTF"](wavelet_data, SF, **{**kw, "cue": times[ours.cue + 1]}))
    assert theirs.cue == ours.cue  # TensorPAC's sample is one before the nearest (argmin - 1)
    assert np.abs(ours.shifts - theirs.shifts).max() <= 1
    plt.figure()
    axes = ours.plot(zscore=True, baseline=(100, 400), edges=10, cmap="Spectral_r")
    assert len(axes) == 2


# -- Inputs TensorPAC accepts ----------------------------------------------------------------------------
def test_a_band_past_nyquist_is_accepted_with_a_warning(wavelet_data: np.ndarray) -> None:
    bands = dict(f_pha=[[4, 8]], f_amp=[[60, 90], [90, 120], [200, 300]])
    p = drop.Pac(idpac=(6, 0, 0), **bands)
    with pytest.warns(UserWarning, match=r"amplitude band \[200, 300\] Hz passes Nyquist \(sf / 2 = 256 Hz\)"):
        ours = p.filterfit(SF, wavelet_data)
    theirs = run_script(TENSORPAC, lambda a: a["Pac"](idpac=(6, 0, 0), **bands).filterfit(SF, wavelet_data, n_jobs=1))
    assert ours.shape == theirs.shape and np.isfinite(ours).all()
    assert_within_spec(ours[:2], theirs[:2])  # the bands below Nyquist are TensorPAC's
    with pytest.raises(ValueError, match="above Nyquist"):
        drop.Pac(f_pha=[[4, 8]], f_amp=[[300, 400]]).filterfit(SF, wavelet_data, n_perm=0)


def test_tensorpacs_warnings_are_python_warnings() -> None:
    with pytest.warns(UserWarning, match="MVL is amplitude dependent"):
        drop.Pac(idpac=(1, 0, 0))
    with pytest.warns(UserWarning, match="Normalization ignored"):
        drop.Pac(idpac=(2, 0, 4))
