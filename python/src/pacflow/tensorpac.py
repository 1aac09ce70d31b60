"""A drop-in for TensorPAC 0.6's ``Pac``: change ``from tensorpac import Pac`` to
``from pacflow.tensorpac import Pac`` and the script runs on pacflow's engine.

The interface is TensorPAC's: the constructor (``idpac``, ``f_pha``, ``f_amp`` in every form
``tensorpac.utils.pac_vec`` takes, ``dcomplex="hilbert"``, ``cycle``, ``n_bins``), :meth:`Pac.filter`,
:meth:`Pac.filterfit`, :meth:`Pac.infer_pvalues`, and ``pac``, ``surrogates``, ``pvalues`` in TensorPAC's
layouts: ``(n_amp, n_pha, n_epochs)``, ``(n_perm, n_amp, n_pha, n_epochs)``, ``(n_amp, n_pha)``.

Differences by design (docs/methods.md; the first call of a method that has one warns once):

- ``idpac[0] = 2, 3`` (Tort's MI, heights ratio): phase bins are counted per series (Tort's reference
  code, TensorPAC's numba path) where TensorPAC's tensor path pools the counts over bands and epochs:
  pacflow's value is TensorPAC's for one series at a time.
- ``idpac[0] = 5`` (PLV): the amplitude envelope's phase is taken in the phase band (Penny et al.
  2008), where TensorPAC takes the phase of the unfiltered envelope.
- ``idpac[0] = 6`` (Gaussian copula): tied values share their ranks' mean quantile.
- Surrogates come from pacflow's counter-based generator keyed by ``random_state`` (the same seed
  gives the same surrogates on any machine, device or batch size, not TensorPAC's), and keep the
  shift at least one period of the lowest phase band from the observed alignment.

``Pac.fit`` takes phases and amplitudes filtered elsewhere (the ``given_bands`` stage in place of
``bandpass`` and ``hilbert``), except for PLV, whose envelope phase needs pacflow's filters;
``dcomplex="wavelet"`` is not available (pacflow's analytic signal is the Hilbert transform's). ``EventRelatedPac`` and ``PreferredPhase`` are
TensorPAC's other classes; pacflow's ``erpac`` stage and ``mi outputs=preferred_phase`` compute them.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from .pipeline import Pipeline
from .result import Result

_METHODS = {1: "mvl", 2: "tort", 3: "hr", 4: "ndpac", 5: "plv", 6: "gc"}
_SURROGATES = {1: "swap_trials", 2: "timeshift", 3: "timelag"}
_NORMS = {1: "subtract", 2: "divide", 3: "both", 4: "z"}
_METHOD_NAMES = {1: "Mean Vector Length (MVL, Canolty et al. 2006)", 2: "Modulation Index (MI, Tort et al. 2010)",
                 3: "Heights ratio (HR, Lakatos et al. 2005)", 4: "Normalized Direct Pac (ndPac, Ozkurt et al. 2012)",
                 5: "Phase-Locking Value (PLV, Penny et al. 2008)", 6: "Gaussian Copula PAC (gcPac)"}
_SURROGATE_NAMES = {0: "No surrogates", 1: "Permute phase across trials (Tort et al. 2010)",
                    2: "Swap amplitude time blocks (Bahramisharif et al. 2013)", 3: "Time lag (Canolty et al. 2006)"}
_NORM_NAMES = {0: "No normalization", 1: "Substract the mean of surrogates", 2: "Divide by the mean of surrogates",
               3: "Substract then divide by the mean of surrogates",
               4: "Substract the mean and divide by the deviation of the surrogates"}
_DIFFERENCES = {
    2: "Tort's MI: pacflow counts phase bins per series (Tort's reference code, TensorPAC's numba path); TensorPAC's "
       "tensor path pools the counts over bands and epochs (docs/methods.md)",
    3: "heights ratio: pacflow counts phase bins per series; TensorPAC's tensor path pools the counts over bands and "
       "epochs (docs/methods.md)",
    5: "PLV: pacflow takes the envelope's phase in the phase band (Penny et al. 2008); TensorPAC takes the phase of "
       "the unfiltered envelope (docs/methods.md)",
    6: "Gaussian copula PAC: tied values share their ranks' mean quantile in pacflow (docs/methods.md)",
}
_warned: set[int] = set()  # the methods whose difference was announced (once per process)

_PRESETS = {"lres": 10, "mres": 30, "hres": 50, "demon": 70, "hulk": 100}


def pac_vec(f_pha: Any = "mres", f_amp: Any = "mres") -> tuple[np.ndarray, np.ndarray]:
    """Phase and amplitude bands, ``(n, 2)`` each, from TensorPAC's forms (``tensorpac.utils.pac_vec``):
    presets ``"lres"``, ``"mres"``, ``"hres"``, ``"demon"``, ``"hulk"`` (centres from 2 to 20 Hz, half
    width f/4, and from 60 to 160 Hz, half width f/8); ``[lo, hi]``; ``[[lo, hi], ...]`` or its
    transpose; ``(start, stop, width, step)``; three edges or more (consecutive bands)."""
    return _bands(f_pha, (2.0, 20.0, 4.0)), _bands(f_amp, (60.0, 160.0, 8.0))


def _bands(f: Any, preset: tuple[float, float, float]) -> np.ndarray:
    if isinstance(f, str):
        if f not in _PRESETS:
            raise ValueError(f"unknown preset {f!r}; use one of {', '.join(_PRESETS)}")
        centres = np.linspace(preset[0], preset[1], _PRESETS[f])
        return np.c_[centres - centres / preset[2], centres + centres / preset[2]]
    a = np.atleast_2d(np.asarray(f, dtype=np.float64))
    if a.size == 1:
        raise ValueError("The length of f should at least be 2.")
    if 2 in a.shape:
        return a if a.shape[1] == 2 else a.T
    if np.squeeze(a).shape == (4,):
        start, stop, width, step = np.squeeze(a)
        return np.c_[np.arange(start, stop - width, step), np.arange(start + width, stop, step)]
    edges = np.sort(a.reshape(-1))
    return np.c_[edges[:-1], edges[1:]]


class Pac:
    """Phase-amplitude coupling with TensorPAC's interface, computed by pacflow.

    Parameters
    ----------
    idpac : tuple of 3 int
        (measure, surrogates, normalisation): measure 1 MVL, 2 Tort's MI, 3 heights ratio, 4 ndPAC, 5 PLV,
        6 Gaussian copula; surrogates 0 none, 1 swap phase and amplitude across trials, 2 swap amplitude
        time blocks (a circular shift), 3 time lag; normalisation 0 none, 1 subtract the surrogates' mean,
        2 divide by it, 3 subtract then divide, 4 z-score.
    f_pha, f_amp : str, list, tuple or array_like
        The bands, in any form of :func:`pac_vec`.
    dcomplex : {"hilbert"}
        The analytic signal: pacflow's Hilbert transform.
    cycle : tuple of 2 int
        Filter cycles for the phase and the amplitude bands (fir1 order = cycle * (sf // f_lo)).
    width : int
        Morlet width (TensorPAC's wavelets; unused with ``dcomplex="hilbert"``).
    n_bins : int
        Phase bins of Tort's MI and the heights ratio.
    verbose : optional
        Accepted for compatibility.
    """

    def __init__(self, idpac: Sequence[int] = (1, 2, 3), f_pha: Any = (2, 4), f_amp: Any = (60, 200),
                 dcomplex: str = "hilbert", cycle: Sequence[int] = (3, 6), width: int = 7, n_bins: int = 18,
                 verbose: Any = None) -> None:
        if dcomplex != "hilbert":
            raise ValueError(f"dcomplex={dcomplex!r}: pacflow computes the analytic signal with the Hilbert "
                             "transform only (dcomplex='hilbert')")
        cycle = tuple(cycle)
        if len(cycle) != 2 or not all(isinstance(c, (int, np.integer)) for c in cycle):
            raise ValueError("Cycle must be a tuple of two integers.")
        self._f_pha, self._f_amp = pac_vec(f_pha, f_amp)
        self._cycle = (int(cycle[0]), int(cycle[1]))
        self._dcomplex = dcomplex
        self._width = int(width)
        self.n_bins = int(n_bins)
        self.idpac = idpac
        self._pac: Optional[np.ndarray] = None
        self._surrogates: Optional[np.ndarray] = None
        self._pvalues: Optional[np.ndarray] = None
        self._result: Optional[Result] = None
        self._sf: Optional[float] = None  # of the last filter or filterfit, for fit

    # TensorPAC's attributes.
    @property
    def idpac(self) -> np.ndarray:
        """The (measure, surrogates, normalisation) triple, as checked."""
        return self._idpac

    @idpac.setter
    def idpac(self, value: Sequence[int]) -> None:
        idpac = np.array(np.atleast_1d(value), dtype=int)
        if idpac.shape != (3,):
            raise ValueError("idpac must be a tuple/list of 3 integers.")
        if idpac[0] not in _METHODS or idpac[1] not in (0, *_SURROGATES) or idpac[2] not in (0, *_NORMS):
            raise ValueError(f"idpac={tuple(int(v) for v in idpac)}: measure 1-6, surrogates 0-3, normalisation 0-4")
        if idpac[0] == 4:  # ndPAC is thresholded at its own level: no surrogates, as TensorPAC
            idpac = np.array([4, 0, 0])
        if idpac[2] != 0 and idpac[1] == 0:
            warnings.warn("If you want to normalize the estimated PAC, you should select a surrogate method (second "
                          "digit of `idpac`). Normalization ignored.", stacklevel=3)
            idpac[2] = 0
        self._idpac = idpac
        self.method = _METHOD_NAMES[int(idpac[0])]
        self.str_surro = _SURROGATE_NAMES[int(idpac[1])]
        self.str_norm = _NORM_NAMES[int(idpac[2])]

    def __str__(self) -> str:
        return self.method

    @property
    def f_pha(self) -> np.ndarray:
        """Phase bands, (n_pha, 2) Hz."""
        return self._f_pha

    @property
    def f_amp(self) -> np.ndarray:
        """Amplitude bands, (n_amp, 2) Hz."""
        return self._f_amp

    @property
    def xvec(self) -> np.ndarray:
        """Phase band centres, Hz."""
        return self._f_pha.mean(1)

    @property
    def yvec(self) -> np.ndarray:
        """Amplitude band centres, Hz."""
        return self._f_amp.mean(1)

    @property
    def cycle(self) -> tuple[int, int]:
        return self._cycle

    @property
    def dcomplex(self) -> str:
        return self._dcomplex

    @property
    def width(self) -> int:
        return self._width

    @property
    def pac(self) -> Optional[np.ndarray]:
        """Un-normalised PAC of the last fit, (n_amp, n_pha, n_epochs)."""
        return self._pac

    @property
    def surrogates(self) -> Optional[np.ndarray]:
        """The surrogates of the last fit, (n_perm, n_amp, n_pha, n_epochs)."""
        return self._surrogates

    @property
    def pvalues(self) -> Optional[np.ndarray]:
        """p-values of the mean over epochs of the last fit, (n_amp, n_pha) (see :meth:`infer_pvalues`)."""
        return self._pvalues

    @property
    def result(self) -> Optional[Result]:
        """pacflow's own :class:`~pacflow.Result` of the last run (every array, the report)."""
        return self._result

    # TensorPAC's methods.
    def filter(self, sf: float, x: Any, ftype: str = "phase", keepfilt: bool = False, edges: Optional[int] = None,
               n_jobs: int = -1) -> np.ndarray:
        """Phases (``ftype="phase"``) or amplitudes (``"amplitude"``) in each band, (n_freqs, n_epochs, n_times);
        with ``keepfilt=True`` the band-passed signals instead. `edges` samples at each end are filtered
        with the data, then dropped. `n_jobs` is accepted for compatibility (the engine uses every core)."""
        if ftype not in ("phase", "amplitude"):
            raise ValueError("ftype must either be 'phase' or 'amplitude.'")
        self._sf = float(sf)
        x = _epochs_by_times(x)
        key = "pha" if ftype == "phase" else "amp"
        pipeline = self._filter_pipeline(sf, x, edges, filtered=keepfilt)
        if keepfilt:
            result = pipeline.run(progress=False)
            filtered = result[f"filtered_{key}"][:, 0]  # (epochs, bands, padded times)
            if edges:
                filtered = filtered[..., edges:-edges]
            return filtered.transpose(1, 0, 2)
        result = pipeline.stage("hilbert", outputs="phase" if ftype == "phase" else "amplitude").run(progress=False)
        return result["phase" if ftype == "phase" else "amplitude"][:, 0].transpose(1, 0, 2)

    def filterfit(self, sf: float, x_pha: Any, x_amp: Any = None, n_perm: Optional[int] = 200, p: float = 0.05,
                  mcp: str = "maxstat", edges: Optional[int] = None, n_jobs: int = -1,
                  random_state: Optional[int] = None, verbose: Any = None) -> np.ndarray:
        """Filter, then compute PAC (normalised by the surrogates as ``idpac`` says), (n_amp, n_pha, n_epochs).

        Parameters
        ----------
        sf : float
            Sample rate, Hz.
        x_pha, x_amp : array_like
            (n_epochs, n_times): phases are taken from `x_pha`, amplitudes from `x_amp` (default `x_pha`).
        n_perm : int or None
            Surrogates (0 or None: none, and no normalisation).
        p, mcp
            Level and correction of :attr:`pvalues` (:meth:`infer_pvalues`).
        edges : int, optional
            Samples at each end filtered with the data, then dropped.
        n_jobs : int
            Accepted for compatibility (the engine uses every core).
        random_state : int, optional
            Seed of the surrogates (drawn at random when None, as TensorPAC).
        """
        self._sf = float(sf)
        x_pha = _epochs_by_times(x_pha)
        cross = x_amp is not None and x_amp is not x_pha
        if cross:
            x_amp = _epochs_by_times(x_amp)
            if x_amp.shape != x_pha.shape:
                raise ValueError("Inputs `x_pha` and `x_amp` must have the same shape.")
            x = np.stack([x_pha, x_amp], axis=1)  # the phase of channel 0 with the amplitude of channel 1
        else:
            x = x_pha[:, None]
        pipeline = self._filter_pipeline(sf, x, edges, filtered=False).stage("hilbert")
        if int(self._idpac[0]) == 5:
            pipeline.stage("envelope_phase")
        return self._measure(pipeline, cross, n_perm, p, mcp, random_state)

    def fit(self, pha: Any, amp: Any, n_perm: Optional[int] = 200, p: float = 0.05, mcp: str = "maxstat",
            n_jobs: int = -1, random_state: Optional[int] = None, verbose: Any = None, *,
            sf: Optional[float] = None) -> np.ndarray:
        """PAC of phases and amplitudes filtered elsewhere (or by :meth:`filter`), as :meth:`filterfit`.

        Parameters
        ----------
        pha : array_like
            Phases in radians, (n_pha, n_epochs, n_times): one row per band of `f_pha`.
        amp : array_like
            Amplitudes, (n_amp, n_epochs, n_times): one row per band of `f_amp`.
        n_perm, p, mcp, n_jobs, random_state
            As for :meth:`filterfit`.
        sf : float, optional
            Sample rate (the surrogates' smallest shift is a period of the lowest phase band); by default
            the last :meth:`filter` or :meth:`filterfit` call's.
        """
        sf = sf if sf is not None else getattr(self, "_sf", None)
        if sf is None:
            raise ValueError("fit needs the sample rate: call filter(sf, ...) first, or pass sf=")
        if int(self._idpac[0]) == 5:
            raise ValueError("idpac[0] = 5 (PLV) filters each amplitude envelope with the phase bands' filters, "
                             "which fit does not have: use filterfit")
        pha, amp = np.asarray(pha), np.asarray(amp)
        if pha.ndim != 3 or amp.ndim != 3 or pha.shape[1:] != amp.shape[1:]:
            raise ValueError("`pha` and `amp` should have shapes (n_pha, n_epochs, n_times) and (n_amp, n_epochs, "
                             f"n_times), not {pha.shape} and {amp.shape}")
        if (len(pha), len(amp)) != (len(self._f_pha), len(self._f_amp)):
            raise ValueError(f"`pha` has {len(pha)} bands and `amp` {len(amp)}; this Pac's f_pha has "
                             f"{len(self._f_pha)} and f_amp {len(self._f_amp)}")
        # Each epoch's rows, phases then amplitudes, one series per epoch (the given_bands stage's input).
        rows = np.concatenate([pha, amp], axis=0).transpose(1, 0, 2)
        x = np.ascontiguousarray(rows, dtype=np.float64 if rows.dtype == np.float64 else np.float32)
        pipeline = Pipeline().source(x.reshape(x.shape[0], -1), fs=float(sf), layout="ET") \
            .stage("given_bands", pha=self._f_pha.tolist(), amp=self._f_amp.tolist())
        return self._measure(pipeline, False, n_perm, p, mcp, random_state)

    def _measure(self, pipeline: Pipeline, cross: bool, n_perm: Optional[int], p: float, mcp: str,
                 random_state: Optional[int]) -> np.ndarray:
        """Adds mi (and surrogates) to `pipeline`, runs it, keeps pac, surrogates and pvalues, and returns
        the PAC normalised as ``idpac`` says."""
        measure, surrogate, norm = (int(v) for v in self._idpac)
        n_surrogates = int(n_perm) if isinstance(n_perm, (int, np.integer)) else 0
        if n_surrogates <= 0 or surrogate == 0:
            surrogate, norm = 0, 0
            self._idpac = np.array([measure, 0, 0])
        if measure in _DIFFERENCES and measure not in _warned:
            _warned.add(measure)
            warnings.warn(f"pacflow.tensorpac: {_DIFFERENCES[measure]}", stacklevel=3)
        pipeline.stage("mi", method=_METHODS[measure], bins=self.n_bins, ndpac_p=p,
                       **({"pairs": [[0, 1]]} if cross else {}))
        if surrogate:
            seed = int(np.random.randint(0, 10000)) if random_state is None else int(random_state)
            # TensorPAC runs swapped trials with the MVL, whose value grows with each epoch's amplitude;
            # the engine refuses that pairing unless told to run it, and then warns (docs/methods.md).
            confound = {"gain_confound": "warn"} if surrogate == 1 and _METHODS[measure] == "mvl" else {}
            pipeline.stage("surrogates", n=n_surrogates, seed=seed, method=_SURROGATES[surrogate],
                           norm=_NORMS.get(norm, "z"), trials="none", outputs="values", **confound)
        result = self._result = pipeline.run(progress=False)
        for message in result.warnings:
            if "power differences" in message:
                warnings.warn(f"pacflow.tensorpac: {message}", stacklevel=3)
        self._pac = _tensorpac_layout(result["pac"])
        self._surrogates, self._pvalues = None, None
        if not surrogate:
            return self._pac.copy()
        self._surrogates = result["surrogate_values"][:, 0].transpose(1, 3, 2, 0)  # (perm, amp, pha, epochs)
        self.infer_pvalues(p, mcp=mcp)
        if norm == 0:
            return self._pac.copy()
        return _tensorpac_layout(result["pac_z" if norm == 4 else "pac_norm"])

    def infer_pvalues(self, p: float = 0.05, mcp: str = "maxstat") -> np.ndarray:
        """p-values of the mean over epochs against the mean over epochs of each surrogate, TensorPAC's
        convention: ``maxstat`` compares each cell with the largest mean surrogate over every cell; ``fdr``
        and ``bonferroni`` (MNE's corrections) correct the cells' own. p is ``count / n_perm``, at least
        ``1 / n_perm``, and p-values not below `p` are set to 1. (pacflow's own trial-level test,
        ``result.trial_pvalues``, uses epoch permutations instead: docs/methods.md.)"""
        if self._pac is None or self._surrogates is None:
            raise ValueError("no surrogates: run filterfit with n_perm > 0 and a surrogate method first")
        effect = self._pac.mean(2).astype(np.float64)
        perm = self._surrogates.mean(3).astype(np.float64)
        n_perm = perm.shape[0]
        if n_perm < int(10.0 / p):
            warnings.warn(f"For inferences at p<{p}, it is recommended to perform at least n_perm={int(10.0 / p)} "
                          "permutations", stacklevel=2)
        if mcp == "maxstat":
            maxima = perm.reshape(n_perm, -1).max(1)
            pvalues = (effect[..., None] <= maxima).sum(-1) / n_perm
            pvalues[pvalues >= p] = 1.0
            pvalues = np.maximum(1.0 / n_perm, pvalues)
        elif mcp in ("fdr", "bonferroni"):
            from mne.stats import bonferroni_correction, fdr_correction

            pvalues = np.maximum(1.0 / n_perm, (effect[None] <= perm).sum(0) / n_perm)
            significant, pvalues = (fdr_correction if mcp == "fdr" else bonferroni_correction)(pvalues, alpha=p)
            pvalues[~significant] = 1.0
        else:
            raise ValueError(f"mcp={mcp!r}: use 'maxstat', 'fdr' or 'bonferroni'")
        self._pvalues = pvalues
        return pvalues

    def _filter_pipeline(self, sf: float, x: np.ndarray, edges: Optional[int], filtered: bool) -> Pipeline:
        source: dict[str, Any] = {"fs": float(sf), "layout": "ECT" if x.ndim == 3 else "ET"}
        if edges:
            source["pad"] = f"{int(edges)}smp"
        bandpass: dict[str, Any] = {"pha": self._f_pha.tolist(), "amp": self._f_amp.tolist(),
                                    "pha_cycles": self._cycle[0], "amp_cycles": self._cycle[1]}
        if filtered:
            bandpass["outputs"] = "filtered"
        return Pipeline().source(x, **source).stage("bandpass", **bandpass)


def _epochs_by_times(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[np.newaxis, :]
    if x.ndim != 2:
        raise ValueError(f"x should be a 2d array like (n_epochs, n_times), not of shape {x.shape}")
    return x


def _tensorpac_layout(array: np.ndarray) -> np.ndarray:
    """(epochs, 1, n_pha, n_amp) as TensorPAC's (n_amp, n_pha, n_epochs)."""
    return array[:, 0].transpose(2, 1, 0)


__all__ = ["Pac", "pac_vec"]
