"""What the TensorPAC drop-in's classes share (TensorPAC's ``_PacObj``): the bands in TensorPAC's forms,
the filter settings, ``filter`` on pacflow's bandpass and hilbert stages, and phases and amplitudes
filtered elsewhere handed to the engine through the ``given_bands`` stage."""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from .pipeline import Pipeline

_PRESETS = {"lres": 10, "mres": 30, "hres": 50, "demon": 70, "hulk": 100}
_warned: set[Union[int, str]] = set()  # the differences announced (once per process), by measure or name

# A band's high edge at or past Nyquist is filtered up to this fraction of Nyquist (the engine's fir1
# needs the high edge below fs / 2).
_BELOW_NYQUIST = 1.0 - 1e-6


def warn_once(key: Union[int, str], message: str, stacklevel: int = 3) -> None:
    """Warn ``pacflow.tensorpac: message`` the first time `key` is met in this process."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"pacflow.tensorpac: {message}", stacklevel=stacklevel + 1)


def pac_vec(f_pha: Any = "mres", f_amp: Any = "mres") -> tuple[np.ndarray, np.ndarray]:
    """Phase and amplitude bands, ``(n, 2)`` each, from TensorPAC's forms (``tensorpac.utils.pac_vec``).

    Parameters
    ----------
    f_pha, f_amp : str, list, tuple or array_like
        Presets ``"lres"``, ``"mres"``, ``"hres"``, ``"demon"``, ``"hulk"`` (10 to 100 centres from 2 to
        20 Hz, half width f/4, and from 60 to 160 Hz, half width f/8); ``[lo, hi]``; ``[[lo, hi], ...]``
        or its transpose; ``(start, stop, width, step)``; three edges or more (consecutive bands).

    Returns
    -------
    f_pha, f_amp : numpy.ndarray
        The bands' edges in Hz, (n_pha, 2) and (n_amp, 2).
    """
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


def epochs_by_times(x: Any) -> np.ndarray:
    """`x` as TensorPAC's (n_epochs, n_times): a 1D series becomes one epoch."""
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[np.newaxis, :]
    if x.ndim != 2:
        raise ValueError(f"x should be a 2d array like (n_epochs, n_times), not of shape {x.shape}")
    return x


def check_cycle(cycle: Any, count: int = 2) -> tuple[int, ...]:
    """TensorPAC's filter cycles: `count` integers."""
    values = tuple(np.atleast_1d(cycle).tolist()) if not isinstance(cycle, (tuple, list)) else tuple(cycle)
    if len(values) != count or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in values):
        raise ValueError("Cycle must be a tuple of two integers." if count == 2 else "Cycle must be an integer.")
    return tuple(int(c) for c in values)


def check_dcomplex(dcomplex: str) -> str:
    if dcomplex not in ("hilbert", "wavelet"):
        raise ValueError(f"dcomplex={dcomplex!r}: use 'hilbert' (band-pass filters, then the Hilbert transform) or "
                         "'wavelet' (complex Morlet wavelets at each band's centre)")
    return dcomplex


class _PacObject:
    """The bands, filter settings and ``filter`` of every drop-in class (TensorPAC's ``_PacObj``).

    Parameters
    ----------
    f_pha, f_amp : str, list, tuple or array_like
        The bands, in any form of :func:`pac_vec`.
    dcomplex : {"hilbert", "wavelet"}
        The analytic signal: band-pass filters then the Hilbert transform, or TensorPAC's complex Morlet
        wavelets at each band's centre (the engine's ``wavelet`` stage).
    cycle : tuple of 2 int
        Filter cycles of the phase and the amplitude bands (fir1 order = cycle * (sf // f_lo)).
    width : int
        Morlet width in cycles (unused with ``dcomplex="hilbert"``).
    """

    def __init__(self, f_pha: Any = (2, 4), f_amp: Any = (60, 200), dcomplex: str = "hilbert",
                 cycle: Sequence[int] = (3, 6), width: int = 7) -> None:
        self._dcomplex = check_dcomplex(dcomplex)
        self._cycle = check_cycle(cycle)
        self._f_pha, self._f_amp = pac_vec(f_pha, f_amp)
        self._width = int(width)
        self._sf: Optional[float] = None  # of the last filter, for fit
        self._edges = slice(None)  # TensorPAC's: the samples filter kept

    def __str__(self) -> str:
        return str(getattr(self, "method", type(self).__name__))

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
        """Phase band centres, Hz (the comodulogram's x)."""
        return self._f_pha.mean(1)

    @property
    def yvec(self) -> np.ndarray:
        """Amplitude band centres, Hz (the comodulogram's y)."""
        return self._f_amp.mean(1)

    @property
    def cycle(self) -> tuple[int, ...]:
        """Filter cycles of the phase and amplitude bands."""
        return self._cycle

    @cycle.setter
    def cycle(self, value: Sequence[int]) -> None:
        self._cycle = check_cycle(value)

    @property
    def dcomplex(self) -> str:
        """The analytic signal (``"hilbert"``)."""
        return self._dcomplex

    @dcomplex.setter
    def dcomplex(self, value: str) -> None:
        self._dcomplex = check_dcomplex(value)

    @property
    def width(self) -> int:
        """Morlet width in cycles (with ``dcomplex="wavelet"``)."""
        return self._width

    @width.setter
    def width(self, value: int) -> None:
        self._width = int(value)

    def filter(self, sf: float, x: Any, ftype: str = "phase", keepfilt: bool = False, edges: Optional[int] = None,
               n_jobs: int = -1) -> np.ndarray:
        """Phases (``ftype="phase"``) or amplitudes (``"amplitude"``) in each band, as TensorPAC's ``filter``.

        Parameters
        ----------
        sf : float
            Sample rate, Hz.
        x : array_like
            (n_epochs, n_times), or one series (n_times,).
        ftype : {"phase", "amplitude"}
            What to extract.
        keepfilt : bool
            The band-passed signals instead.
        edges : int, optional
            Samples at each end filtered with the data, then dropped.
        n_jobs : int
            Accepted for compatibility (the engine uses every core).

        Returns
        -------
        numpy.ndarray
            (n_freqs, n_epochs, n_times - 2 * edges), float32.
        """
        if ftype not in ("phase", "amplitude"):
            raise ValueError("ftype must either be 'phase' or 'amplitude.'")
        x = epochs_by_times(x)
        key = "pha" if ftype == "phase" else "amp"
        if self._dcomplex == "wavelet":
            if keepfilt:
                raise ValueError("keepfilt=True: with dcomplex='wavelet' there is no band-passed signal (the wavelet "
                                 "gives phase and amplitude at once)")
            result = self._analytic_pipeline(sf, x, edges, outputs=ftype, used=(key,)).run(progress=False)
            return result[ftype][:, 0].transpose(1, 0, 2)
        pipeline = self._filter_pipeline(sf, x, edges, filtered=keepfilt, used=(key,))
        if keepfilt:
            filtered = pipeline.run(progress=False)[f"filtered_{key}"][:, 0]  # (epochs, bands, padded times)
            if edges:
                filtered = filtered[..., edges:-edges]
            return filtered.transpose(1, 0, 2)
        result = pipeline.stage("hilbert", outputs=ftype).run(progress=False)
        return result[ftype][:, 0].transpose(1, 0, 2)

    def _engine_bands(self, sf: float, used: Sequence[str] = ("pha", "amp")) -> tuple[list, list]:
        """The bands for the engine at `sf`: a high edge at or past Nyquist is brought just below it,
        with a warning for the roles in `used` (TensorPAC accepts such a band without one)."""
        nyquist = float(sf) / 2
        out = []
        for key, bands in (("pha", self._f_pha), ("amp", self._f_amp)):
            role = "phase" if key == "pha" else "amplitude"
            bands = np.array(bands, dtype=np.float64)
            for lo, hi in bands:
                if lo >= nyquist * _BELOW_NYQUIST:
                    raise ValueError(f"{role} band [{lo:g}, {hi:g}] Hz lies above Nyquist (sf / 2 = {nyquist:g} Hz): "
                                     "there is nothing to filter")
                if hi >= nyquist and key in used:
                    warnings.warn(f"pacflow.tensorpac: {role} band [{lo:g}, {hi:g}] Hz passes Nyquist (sf / 2 = "
                                  f"{nyquist:g} Hz): filtered as [{lo:g}, {nyquist * _BELOW_NYQUIST:.7g}] Hz "
                                  "(TensorPAC designs its fir1 past Nyquist without a warning; docs/python.md)",
                                  UserWarning, stacklevel=4)
            bands[:, 1] = np.minimum(bands[:, 1], nyquist * _BELOW_NYQUIST)
            out.append(bands.tolist())
        return out[0], out[1]

    @staticmethod
    def _only(pha: list, amp: list, used: Sequence[str]) -> tuple[list, list]:
        """The bands for a pipeline that keeps only the kinds in `used`: the engine's stages always make
        phases and amplitudes, so the kind not asked for stands in with one band (the first of the kind
        asked for) and costs what one band costs (``filter(ftype="phase")`` with 130 amplitude bands
        filtered all 130 for nothing)."""
        if tuple(used) == ("pha",):
            return pha, pha[:1]
        if tuple(used) == ("amp",):
            return amp[:1], amp
        return pha, amp

    def _filter_pipeline(self, sf: float, x: np.ndarray, edges: Optional[int], filtered: bool,
                         used: Sequence[str] = ("pha", "amp")) -> Pipeline:
        """source (pad = edges) then bandpass, for TensorPAC's ``(n_epochs, n_times)`` or pacflow's
        ``(n_epochs, n_channels, n_times)``; only the bands of the kinds in `used` are filtered."""
        pha, amp = self._only(*self._engine_bands(sf, used), used)
        # The stand-in band is filtered with its own kind's cycles: the order it had, no warning of its own.
        cycles = {("pha",): (self._cycle[0],) * 2, ("amp",): (self._cycle[1],) * 2}.get(tuple(used), self._cycle)
        bandpass: dict[str, Any] = {"pha": pha, "amp": amp, "pha_cycles": cycles[0], "amp_cycles": cycles[1]}
        if filtered:
            bandpass["outputs"] = "filtered"
        return self._source_pipeline(sf, x, edges).stage("bandpass", **bandpass)

    def _source_pipeline(self, sf: float, x: np.ndarray, edges: Optional[int]) -> Pipeline:
        """The array source (pad = edges) for TensorPAC's ``(n_epochs, n_times)`` or pacflow's
        ``(n_epochs, n_channels, n_times)``; remembers `sf` and the samples kept."""
        self._sf = float(sf)
        self._edges = slice(int(edges), -int(edges)) if edges else slice(None)
        source: dict[str, Any] = {"fs": float(sf), "layout": "ECT" if x.ndim == 3 else "ET"}
        if edges:
            source["pad"] = f"{int(edges)}smp"
        return Pipeline().source(x, **source)

    def _analytic_pipeline(self, sf: float, x: np.ndarray, edges: Optional[int], outputs: Optional[str] = None,
                           used: Sequence[str] = ("pha", "amp")) -> Pipeline:
        """source then phase and amplitude: bandpass and hilbert, or with ``dcomplex="wavelet"`` the
        engine's wavelet stage (each band's centre, ``width`` cycles; bands as given, as TensorPAC
        takes their mean); only the bands of the kinds in `used` are computed."""
        extra: dict[str, Any] = {"outputs": outputs} if outputs else {}
        if self._dcomplex == "hilbert":
            return self._filter_pipeline(sf, x, edges, filtered=False, used=used).stage("hilbert", **extra)
        pha, amp = self._only(self._f_pha.tolist(), self._f_amp.tolist(), used)
        return self._source_pipeline(sf, x, edges).stage("wavelet", pha=pha, amp=amp, width=self._width, **extra)

    def _given_pipeline(self, pha: Any, amp: Any, sf: Optional[float]) -> Pipeline:
        """Phases (n_pha, n_epochs, n_times) and amplitudes (n_amp, n_epochs, n_times) filtered elsewhere,
        as the ``given_bands`` stage's input: each epoch one series of its phase rows then amplitude rows.

        `sf` labels the bands (the stage checks them against Nyquist); without one (and no earlier
        ``filter``) a nominal rate above every band is used: nothing computed from given phases and
        amplitudes depends on it but the surrogates' smallest shift in seconds."""
        pha, amp = np.asarray(pha), np.asarray(amp)
        if pha.ndim != 3 or amp.ndim != 3 or pha.shape[1:] != amp.shape[1:]:
            raise ValueError("`pha` and `amp` should have shapes (n_pha, n_epochs, n_times) and (n_amp, n_epochs, "
                             f"n_times), not {pha.shape} and {amp.shape}")
        if (len(pha), len(amp)) != (len(self._f_pha), len(self._f_amp)):
            raise ValueError(f"`pha` has {len(pha)} bands and `amp` {len(amp)}; this object's f_pha has "
                             f"{len(self._f_pha)} and f_amp {len(self._f_amp)}")
        sf = sf if sf is not None else self._sf
        if sf is None:
            sf = 4.0 * float(max(self._f_pha.max(), self._f_amp.max()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the bands were filtered already: only their labels change
            pha_bands, amp_bands = self._engine_bands(sf)
        # One copy into (n_epochs, n_pha + n_amp, n_times): each epoch's phase rows, then its amplitude rows.
        dtype = np.float64 if np.result_type(pha, amp) == np.float64 else np.float32
        x = np.empty((pha.shape[1], len(pha) + len(amp), pha.shape[2]), dtype=dtype)
        x[:, :len(pha)] = pha.transpose(1, 0, 2)
        x[:, len(pha):] = amp.transpose(1, 0, 2)
        return Pipeline().source(x.reshape(x.shape[0], -1), fs=float(sf), layout="ET", checksum="none") \
            .stage("given_bands", pha=pha_bands, amp=amp_bands)
