"""A drop-in for TensorPAC 0.6.5's public API: change ``from tensorpac import Pac`` (or
``from tensorpac.utils import ...``, ``from tensorpac.signals import ...``) to
``from pacflow.tensorpac import ...`` and the script runs on pacflow's engine.

- :class:`Pac`: the constructor (``idpac``, ``f_pha``, ``f_amp`` in every form :func:`pac_vec` takes,
  ``dcomplex="hilbert"``, ``cycle``, ``n_bins``), :meth:`Pac.filter`, :meth:`Pac.fit`,
  :meth:`Pac.filterfit`, :meth:`Pac.infer_pvalues`, ``pac``, ``surrogates``, ``pvalues`` in TensorPAC's
  layouts ``(n_amp, n_pha, n_epochs)``, ``(n_perm, n_amp, n_pha, n_epochs)``, ``(n_amp, n_pha)``, and
  the plots ``comodulogram``, ``triplot``, ``polar``, ``pacplot``, ``savefig``, ``show``.
- :class:`EventRelatedPac` (the ``erpac`` stage), :class:`PreferredPhase` (``mi
  outputs=preferred_phase,distributions``).
- :class:`BinAmplitude`, :class:`ITC`, :class:`PSD`, :class:`PeakLockedTF`, :func:`pac_vec`,
  :func:`pac_trivec` (``tensorpac.utils``), :func:`pac_signals_tort`, :func:`pac_signals_wavelet`
  (``tensorpac.signals``, the same draws for the same ``rnd_state``).

Differences by design (docs/methods.md, docs/python.md; the first call that meets one warns once):

- ``idpac[0] = 2, 3`` (Tort's MI, heights ratio) and the preferred phase: phase bins are counted per
  series (Tort's reference code, TensorPAC's numba path) where TensorPAC's tensor path pools the
  counts over bands and epochs: pacflow's value is TensorPAC's for one series at a time.
- ``idpac[0] = 5`` (PLV): the amplitude envelope's phase is taken in the phase band (Penny et al.
  2008), where TensorPAC takes the phase of the unfiltered envelope.
- ``idpac[0] = 6`` (Gaussian copula): tied values share their ranks' mean quantile.
- ERPAC with several phase bands: each band's own circular-linear correlation (Voytek et al. 2013, as
  TensorPAC documents it), where TensorPAC's ``erpac`` mixes the bands' sines and cosines.
- Surrogates come from pacflow's counter-based generator keyed by ``random_state`` (the same seed
  gives the same surrogates on any machine, device or batch size, not TensorPAC's). Their shifts
  follow TensorPAC's rule by default: anywhere in [1, T) samples (``min_shift=1``).
- A band whose high edge passes Nyquist is filtered up to just below it, with a warning (TensorPAC
  designs its filter past Nyquist without one).

``dcomplex="wavelet"`` runs the engine's ``wavelet`` stage (TensorPAC's Morlet wavelets at each band's
centre); ``EventRelatedPac.fit(method="gc")`` the erpac stage's Gaussian-copula ERPAC.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ._tensorpac_base import _PacObject, _warned, epochs_by_times, pac_vec, warn_once  # noqa: F401 (_warned)
from ._tensorpac_plot import _PacPlots, _Plots
from ._tensorpac_utils import (ITC, PSD, BinAmplitude, PeakLockedTF, pac_signals_tort, pac_signals_wavelet,
                               pac_trivec)
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
_TRIALS = ("none", "auto", "maxstat", "maxstat_raw", "fdr", "bonferroni", "uncorrected")
MinShift = Union[int, str, None]


def _min_shift_param(min_shift: MinShift) -> Optional[str]:
    """The surrogates stage's ``min_shift``: an int is samples, a string a duration ("1smp", "0.5s"),
    None pacflow's rule (a period of the lowest phase band, at most T/4)."""
    if min_shift is None:
        return None
    if isinstance(min_shift, (int, np.integer)) and not isinstance(min_shift, bool):
        if min_shift < 1:
            raise ValueError(f"min_shift={min_shift}: the smallest shift is at least 1 sample")
        return f"{int(min_shift)}smp"
    if isinstance(min_shift, str):
        return min_shift
    raise TypeError(f"min_shift={min_shift!r}: give samples (int), a duration ('0.5s', '100ms', '1smp') or None")


class Pac(_PacObject, _PacPlots):
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
    dcomplex : {"hilbert", "wavelet"}
        The analytic signal: band-pass filters then the Hilbert transform, or Morlet wavelets.
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
        super().__init__(f_pha=f_pha, f_amp=f_amp, dcomplex=dcomplex, cycle=cycle, width=width)
        self.n_bins = int(n_bins)
        self.idpac = idpac
        self._pac: Optional[np.ndarray] = None
        self._surrogates: Optional[np.ndarray] = None
        self._pvalues: Optional[np.ndarray] = None
        self._result: Optional[Result] = None

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
        if idpac[0] == 1 and idpac[1] == 0 and idpac[2] == 0:
            warnings.warn("MVL is amplitude dependent which means that if the amplitude increases, MVL also "
                          "increases. You should select a normalization method for correcting this limitation "
                          "(e.g idpac=(1, 2, 4))", stacklevel=3)
        if idpac[2] != 0 and idpac[1] == 0:
            warnings.warn("If you want to normalize the estimated PAC, you should select a surrogate method (second "
                          "digit of `idpac`). Normalization ignored.", stacklevel=3)
            idpac[2] = 0
        self._idpac = idpac
        self.method = _METHOD_NAMES[int(idpac[0])]
        self.str_surro = _SURROGATE_NAMES[int(idpac[1])]
        self.str_norm = _NORM_NAMES[int(idpac[2])]

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
    def filterfit(self, sf: float, x_pha: Any, x_amp: Any = None, n_perm: Optional[int] = 200, p: float = 0.05,
                  mcp: str = "maxstat", edges: Optional[int] = None, n_jobs: int = -1,
                  random_state: Optional[int] = None, verbose: Any = None, *, min_shift: MinShift = 1,
                  trials: str = "none") -> np.ndarray:
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
        min_shift : int, str or None, keyword-only
            pacflow: the surrogates' smallest circular shift (``idpac[1]`` 2 and 3). The default, 1 sample,
            is TensorPAC's rule (a cut anywhere in [1, T)); a duration (``"0.5s"``) or None (pacflow's
            default: one period of the lowest phase band, at most T/4) keeps shifts that leave part of
            the coupling in place out.
        trials : str, keyword-only
            pacflow: the engine's trial-level test of the mean over epochs against epoch permutations
            (``"auto"``, ``"maxstat"``, ``"maxstat_raw"``, ``"fdr"``, ``"bonferroni"``, ``"uncorrected"``;
            the surrogates stage's ``trials=``), read from ``p.result["trial_pvalues"]``; ``"none"`` (the
            default) makes none, as TensorPAC.
        """
        x_pha = epochs_by_times(x_pha)
        cross = x_amp is not None and x_amp is not x_pha
        if cross:
            x_amp = epochs_by_times(x_amp)
            if x_amp.shape != x_pha.shape:
                raise ValueError("Inputs `x_pha` and `x_amp` must have the same shape.")
            x = np.stack([x_pha, x_amp], axis=1)  # the phase of channel 0 with the amplitude of channel 1
        else:
            x = x_pha[:, None]
        pipeline = self._analytic_pipeline(sf, x, edges)
        if int(self._idpac[0]) == 5:
            pipeline.stage("envelope_phase")
        return self._measure(pipeline, cross, n_perm, p, mcp, random_state, min_shift, trials)

    def fit(self, pha: Any, amp: Any, n_perm: Optional[int] = 200, p: float = 0.05, mcp: str = "maxstat",
            n_jobs: int = -1, random_state: Optional[int] = None, verbose: Any = None, *,
            sf: Optional[float] = None, min_shift: MinShift = 1, trials: str = "none") -> np.ndarray:
        """PAC of phases and amplitudes filtered elsewhere (or by :meth:`filter`), as :meth:`filterfit`.

        Parameters
        ----------
        pha : array_like
            Phases in radians, (n_pha, n_epochs, n_times): one row per band of `f_pha`.
        amp : array_like
            Amplitudes, (n_amp, n_epochs, n_times): one row per band of `f_amp`.
        n_perm, p, mcp, n_jobs, random_state, min_shift, trials
            As for :meth:`filterfit`.
        sf : float, optional, keyword-only
            Sample rate; needed only when `min_shift` is a duration in seconds or None (pacflow's rule,
            a period of the lowest phase band). By default the last :meth:`filter` or :meth:`filterfit`
            call's.
        """
        sf = sf if sf is not None else self._sf
        shift = _min_shift_param(min_shift)
        if sf is None and (shift is None or not shift.endswith("smp")):
            raise ValueError(f"fit with min_shift={min_shift!r} needs the sample rate: call filter(sf, ...) first, "
                             "or pass sf=")
        if int(self._idpac[0]) == 5:
            raise ValueError("idpac[0] = 5 (PLV) filters each amplitude envelope with the phase bands' filters, "
                             "which fit does not have: use filterfit")
        return self._measure(self._given_pipeline(pha, amp, sf), False, n_perm, p, mcp, random_state, min_shift,
                             trials)

    def _measure(self, pipeline: Pipeline, cross: bool, n_perm: Optional[int], p: float, mcp: str,
                 random_state: Optional[int], min_shift: MinShift, trials: str) -> np.ndarray:
        """Adds mi (and surrogates) to `pipeline`, runs it, keeps pac, surrogates and pvalues, and returns
        the PAC normalised as ``idpac`` says."""
        measure, surrogate, norm = (int(v) for v in self._idpac)
        n_surrogates = int(n_perm) if isinstance(n_perm, (int, np.integer)) else 0
        if trials not in _TRIALS:
            raise ValueError(f"trials={trials!r}: use one of {', '.join(_TRIALS)}")
        if n_surrogates <= 0 or surrogate == 0:
            surrogate, norm = 0, 0
            self._idpac = np.array([measure, 0, 0])
        if measure in _DIFFERENCES:
            warn_once(measure, _DIFFERENCES[measure], stacklevel=3)
        pipeline.stage("mi", method=_METHODS[measure], bins=self.n_bins, ndpac_p=p,
                       **({"pairs": [[0, 1]]} if cross else {}))
        if surrogate:
            seed = int(np.random.randint(0, 10000)) if random_state is None else int(random_state)
            options: dict[str, Any] = {}
            # TensorPAC runs swapped trials with the MVL, whose value grows with each epoch's amplitude;
            # the engine refuses that pairing unless told to run it, and then warns (docs/methods.md).
            if surrogate == 1 and _METHODS[measure] == "mvl":
                options["gain_confound"] = "warn"
            shift = _min_shift_param(min_shift)
            if surrogate in (2, 3) and shift is not None:
                options["min_shift"] = shift
            pipeline.stage("surrogates", n=n_surrogates, seed=seed, method=_SURROGATES[surrogate],
                           norm=_NORMS.get(norm, "z"), trials=trials, outputs="values", **options)
        elif trials != "none":
            raise ValueError(f"trials={trials!r} needs surrogates: idpac[1] > 0 and n_perm > 0")
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
        ``1 / n_perm``, and p-values not below `p` are set to 1. (pacflow's own trial-level test is the
        ``trials=`` argument of :meth:`filterfit`: docs/methods.md.)

        Parameters
        ----------
        p : float
            The significance level.
        mcp : {"maxstat", "fdr", "bonferroni"}
            The multiple-comparison correction.

        Returns
        -------
        numpy.ndarray
            (n_amp, n_pha).
        """
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


class EventRelatedPac(_PacObject, _Plots):
    """Event-related PAC (Voytek et al. 2013) with TensorPAC's interface: the circular-linear correlation
    across epochs between phase and amplitude, at every time point, computed by the ``erpac`` stage.

    Parameters
    ----------
    f_pha, f_amp : str, list, tuple or array_like
        The bands, in any form of :func:`pac_vec`.
    dcomplex : {"hilbert", "wavelet"}
        The analytic signal: band-pass filters then the Hilbert transform, or Morlet wavelets.
    cycle : tuple of 2 int
        Filter cycles of the phase and amplitude bands.
    width : int
        Morlet width in cycles (with ``dcomplex="wavelet"``).
    verbose : optional
        Accepted for compatibility.
    """

    def __init__(self, f_pha: Any = (2, 4), f_amp: Any = (60, 200), dcomplex: str = "hilbert",
                 cycle: Sequence[int] = (3, 6), width: int = 7, verbose: Any = None) -> None:
        super().__init__(f_pha=f_pha, f_amp=f_amp, dcomplex=dcomplex, cycle=cycle, width=width)
        self.method = "Event Related PAC"
        self._erpac: Optional[np.ndarray] = None
        self._pvalues: Optional[np.ndarray] = None
        self._surrogates: Optional[np.ndarray] = None
        self._result: Optional[Result] = None
        self._rerun: Optional[Callable[[str], Result]] = None  # the last run, with another correction

    def fit(self, pha: Any, amp: Any, method: str = "circular", smooth: Optional[int] = None, n_jobs: int = -1,
            n_perm: Optional[int] = None, p: float = 0.05, mcp: str = "fdr", verbose: Any = None, *,
            sf: Optional[float] = None) -> np.ndarray:
        """ERPAC of phases and amplitudes filtered elsewhere (or by :meth:`filter`).

        Parameters
        ----------
        pha : array_like
            Phases in radians, (n_pha, n_epochs, n_times).
        amp : array_like
            Amplitudes, (n_amp, n_epochs, n_times).
        method : {"circular", "gc"}
            Voytek et al. 2013's circular-linear correlation, or the Gaussian-copula mutual
            information (Ince et al. 2017; the erpac stage's ``method=gc``).
        smooth : int, optional
            ``"gc"``: each time's information from the samples within this many of it, pooled, then
            averaged over the windows holding it.
        n_perm : int, optional
            ``"gc"``: epoch permutations for the p-values (max-T over the cells); none: no p-values.
        n_jobs : int
            Accepted for compatibility.
        p : float
            Level given to the correction (it does not change the corrected p-values).
        mcp : {"fdr", "bonferroni"}
            Correction of the p-values over every (amplitude band, phase band, time) cell.
        sf : float, optional, keyword-only
            The bands' sample rate (by default the last :meth:`filter`'s); ERPAC does not depend on it.

        Returns
        -------
        numpy.ndarray
            The ERPAC, (n_amp, n_pha, n_times).
        """
        self._check(method, mcp)
        pha, amp = np.asarray(pha), np.asarray(amp)
        sf = sf if sf is not None else self._sf

        def run(correction: str) -> Result:
            erpac = self._erpac_params(method, smooth, n_perm, correction)
            return self._given_pipeline(pha, amp, sf).stage("erpac", **erpac).run(progress=False)

        return self._run(run, len(pha), mcp, method)

    def filterfit(self, sf: float, x_pha: Any, x_amp: Any = None, method: str = "circular",
                  smooth: Optional[int] = None, n_perm: Optional[int] = None, p: float = 0.05, mcp: str = "fdr",
                  edges: Optional[int] = None, n_jobs: int = -1, verbose: Any = None) -> np.ndarray:
        """Filter, then compute the ERPAC, (n_amp, n_pha, n_times).

        Parameters
        ----------
        sf : float
            Sample rate, Hz.
        x_pha, x_amp : array_like
            (n_epochs, n_times): phases from `x_pha`, amplitudes from `x_amp` (default `x_pha`).
        method, smooth, n_perm, p, mcp, n_jobs
            As for :meth:`fit`.
        edges : int, optional
            Samples at each end filtered with the data, then dropped.
        """
        self._check(method, mcp)
        x_pha = epochs_by_times(x_pha)
        if x_amp is not None and x_amp is not x_pha:
            pha = self.filter(sf, x_pha, "phase", edges=edges)
            amp = self.filter(sf, epochs_by_times(x_amp), "amplitude", edges=edges)
            return self.fit(pha, amp, method=method, smooth=smooth, n_perm=n_perm, p=p, mcp=mcp, sf=sf)

        def run(correction: str) -> Result:
            erpac = self._erpac_params(method, smooth, n_perm, correction)
            return self._analytic_pipeline(sf, x_pha, edges).stage("erpac", **erpac).run(progress=False)

        return self._run(run, len(self._f_pha), mcp, method)

    def _check(self, method: str, mcp: str) -> None:
        if method not in ("circular", "gc"):
            raise ValueError(f"method={method!r}: use 'circular' or 'gc'")
        if mcp not in ("fdr", "bonferroni"):
            raise ValueError(f"mcp={mcp!r}: use 'fdr' or 'bonferroni'")

    @staticmethod
    def _erpac_params(method: str, smooth: Optional[int], n_perm: Optional[int], correction: str) -> dict[str, Any]:
        """The erpac stage's parameters: the circular correlation's correction, or the Gaussian copula's
        smoothing and permutations (TensorPAC applies no ``mcp`` to it: max-T over the cells)."""
        if method == "circular":
            return {"mcp": correction}
        params: dict[str, Any] = {"method": "gc", "n": int(n_perm) if isinstance(n_perm, int) and n_perm > 0 else 0}
        if isinstance(smooth, int):
            params["smooth"] = smooth
        return params

    def _run(self, run: Callable[[str], Result], n_pha: int, mcp: str, method: str = "circular") -> np.ndarray:
        if n_pha > 1 and method == "circular":
            warn_once("erpac", "ERPAC with several phase bands: pacflow computes each band's own circular-linear "
                               "correlation (Voytek et al. 2013, as TensorPAC documents it); TensorPAC's erpac mixes "
                               "the bands' sines and cosines, and equals pacflow's called one phase band at a time "
                               "(docs/methods.md)", stacklevel=4)
        result = run(mcp)
        self._rerun, self._result = run, result
        self.method = "ERPAC (Voytek et al. 2013)" if method == "circular" else "Gaussian-Copula ERPAC"
        self._erpac = result["erpac"][0].transpose(1, 0, 2)  # (channel, pha, amp, times) -> (amp, pha, times)
        self._pvalues = result["erpac_pvalues"][0].transpose(1, 0, 2)
        self._surrogates = None
        return self._erpac

    def infer_pvalues(self, p: float = 0.05, mcp: str = "fdr") -> np.ndarray:
        """The ERPAC's p-values corrected by `mcp` over every cell (the engine's erpac stage, run again
        with this correction on the last input).

        Parameters
        ----------
        p : float
            Level given to the correction (it does not change the corrected p-values).
        mcp : {"fdr", "bonferroni"}
            The correction.

        Returns
        -------
        numpy.ndarray
            (n_amp, n_pha, n_times).
        """
        if self._rerun is None:
            raise ValueError("You should compute ERPAC first. Use the `fit` method")
        self._check("circular", mcp)
        if "Voytek" not in self.method:  # the Gaussian copula's max-T p-values take no correction
            return self._pvalues
        self._pvalues = self._rerun(mcp)["erpac_pvalues"][0].transpose(1, 0, 2)
        return self._pvalues

    @property
    def erpac(self) -> Optional[np.ndarray]:
        """The ERPAC of the last fit, (n_amp, n_pha, n_times)."""
        return self._erpac

    @property
    def pvalues(self) -> Optional[np.ndarray]:
        """Its corrected p-values, (n_amp, n_pha, n_times)."""
        return self._pvalues

    @property
    def surrogates(self) -> Optional[np.ndarray]:
        """Surrogates of the Gaussian-copula ERPAC: None (the engine ranks and counts its permutations in
        place; ``result["erpac_rank_z"]`` and the p-values are what they give)."""
        return self._surrogates

    @property
    def result(self) -> Optional[Result]:
        """pacflow's own :class:`~pacflow.Result` of the last run."""
        return self._result


class PreferredPhase(_PacObject, _PacPlots):
    """The preferred phase (the phase bin where the mean amplitude is largest) with TensorPAC's interface,
    from the ``mi`` stage's ``outputs=preferred_phase,distributions``.

    Parameters
    ----------
    f_pha, f_amp : str, list, tuple or array_like
        The bands, in any form of :func:`pac_vec`.
    dcomplex : {"hilbert", "wavelet"}
        The analytic signal: band-pass filters then the Hilbert transform, or Morlet wavelets.
    cycle : tuple of 2 int
        Filter cycles of the phase and amplitude bands.
    width : int
        Morlet width in cycles (with ``dcomplex="wavelet"``).
    verbose : optional
        Accepted for compatibility.
    """

    def __init__(self, f_pha: Any = (2, 4), f_amp: Any = (60, 200), dcomplex: str = "hilbert",
                 cycle: Sequence[int] = (3, 6), width: int = 7, verbose: Any = None) -> None:
        super().__init__(f_pha=f_pha, f_amp=f_amp, dcomplex=dcomplex, cycle=cycle, width=width)
        self.method = "Preferred-Phase (PP)"
        self._result: Optional[Result] = None

    def fit(self, pha: Any, amp: Any, n_bins: int = 72, *,
            sf: Optional[float] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The amplitude's distribution over phase bins and the preferred phase, from phases and
        amplitudes filtered elsewhere (or by :meth:`filter`).

        Parameters
        ----------
        pha : array_like
            Phases in radians, (n_pha, n_epochs, n_times).
        amp : array_like
            Amplitudes, (n_amp, n_epochs, n_times).
        n_bins : int
            Phase bins over (-pi, pi].
        sf : float, optional, keyword-only
            The bands' sample rate (by default the last :meth:`filter`'s); nothing here depends on it.

        Returns
        -------
        binned_amp : numpy.ndarray
            Each series' mean amplitude in each phase bin over the sum of those means (Tort's ``P(j)``),
            (n_bins, n_amp, n_pha, n_epochs).
        pp : numpy.ndarray
            The centre of the bin with the largest mean amplitude, radians, (n_amp, n_pha, n_epochs).
        polarvec : numpy.ndarray
            ``linspace(-pi, pi, n_bins)``, the angles of :meth:`polar`.
        """
        return self._distribution(self._given_pipeline(pha, amp, sf), int(n_bins), False)

    def filterfit(self, sf: float, x_pha: Any, x_amp: Any = None, edges: Optional[int] = None, n_bins: int = 12,
                  verbose: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Filter, then :meth:`fit` (TensorPAC's default here is 12 bins, 72 in ``fit``).

        Parameters
        ----------
        sf : float
            Sample rate, Hz.
        x_pha, x_amp : array_like
            (n_epochs, n_times): phases from `x_pha`, amplitudes from `x_amp` (default `x_pha`).
        edges : int, optional
            Samples at each end filtered with the data, then dropped.
        n_bins : int
            Phase bins.

        Returns
        -------
        binned_amp, pp, polarvec : numpy.ndarray
            As :meth:`fit`.
        """
        x_pha = epochs_by_times(x_pha)
        cross = x_amp is not None and x_amp is not x_pha
        if cross:
            x_amp = epochs_by_times(x_amp)
            if x_amp.shape != x_pha.shape:
                raise ValueError("Inputs `x_pha` and `x_amp` must have the same shape.")
            x = np.stack([x_pha, x_amp], axis=1)
        else:
            x = x_pha[:, None]
        pipeline = self._analytic_pipeline(sf, x, edges)
        return self._distribution(pipeline, int(n_bins), cross)

    def _distribution(self, pipeline: Pipeline, n_bins: int,
                      cross: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        warn_once("preferred_phase", "preferred phase: pacflow bins each series' amplitude by that series' own phase-"
                                     "bin counts (Tort's definition); TensorPAC's tensor path divides by the counts "
                                     "pooled over bands and epochs (docs/methods.md)", stacklevel=4)
        pipeline.stage("mi", method="tort", bins=n_bins, outputs="preferred_phase,distributions",
                       **({"pairs": [[0, 1]]} if cross else {}))
        result = self._result = pipeline.run(progress=False)
        binned = result["amplitude_distribution"][:, 0].transpose(3, 2, 1, 0)  # (bins, amp, pha, epochs)
        return binned, _tensorpac_layout(result["preferred_phase"]), np.linspace(-np.pi, np.pi, n_bins)

    @property
    def result(self) -> Optional[Result]:
        """pacflow's own :class:`~pacflow.Result` of the last run."""
        return self._result


def _tensorpac_layout(array: np.ndarray) -> np.ndarray:
    """(epochs, 1, n_pha, n_amp) as TensorPAC's (n_amp, n_pha, n_epochs)."""
    return array[:, 0].transpose(2, 1, 0)


__all__ = ["BinAmplitude", "EventRelatedPac", "ITC", "PSD", "Pac", "PeakLockedTF", "PreferredPhase", "pac_signals_tort",
           "pac_signals_wavelet", "pac_trivec", "pac_vec"]
