"""TensorPAC's utilities (``tensorpac.utils``: ``pac_trivec``, ``PSD``, ``BinAmplitude``, ``ITC``,
``PeakLockedTF``) and test signals (``tensorpac.signals``: ``pac_signals_tort``,
``pac_signals_wavelet``) for the drop-in. Filtering and the Hilbert transform are the engine's
(:meth:`filter`); what is left here is NumPy bookkeeping over its phases and amplitudes."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from ._tensorpac_base import _PacObject, epochs_by_times
from ._tensorpac_plot import _Plots, _pyplot


def pac_trivec(f_start: float = 60.0, f_end: float = 160.0, f_width: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Bands of every [start, end] pair of a grid of edges, for :meth:`Pac.triplot` (TensorPAC's
    ``pac_trivec``): the edges are ``arange(f_start, f_end + f_width, f_width)``.

    Parameters
    ----------
    f_start, f_end : float
        The first and last edge, Hz.
    f_width : float
        The step between edges, Hz.

    Returns
    -------
    f : numpy.ndarray
        The bands, (n_bands, 2): each starting edge with every later edge.
    tridx : numpy.ndarray
        Each band's (row, column) in the triangle :meth:`Pac.triplot` draws, (n_bands, 2).
    """
    edges = np.arange(f_start, f_end + f_width, f_width)
    bands, index = [], []
    for start in range(len(edges) - 1):
        ends = edges[start + 1:]
        bands.append(np.column_stack([np.full(len(ends), edges[start]), ends]))
        index.append(np.column_stack([np.arange(len(ends))[::-1], np.full(len(ends), start)]))
    if not bands:
        return np.array([]), np.array([])
    return np.concatenate(bands), np.concatenate(index)


def pac_signals_tort(f_pha: Any = 10.0, f_amp: Any = 100.0, sf: float = 1024, n_times: int = 4000,
                     n_epochs: int = 10, chi: float = 0.0, noise: float = 1.0, dpha: float = 0.0, damp: float = 0.0,
                     rnd_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Coupled test signals after Tort et al. 2010, TensorPAC's ``pac_signals_tort`` (the same draws for
    the same `rnd_state`).

    Each epoch is ``A(t) sin(2 pi f_a t) + sin(2 pi f_p t) + noise U[0, 1)`` with
    ``A = ((1 - chi) sin(2 pi f_p t) + 1 + chi) / 2``; `f_p` and `f_a` are drawn per epoch.

    Parameters
    ----------
    f_pha, f_amp : float or [lo, hi]
        Phase and amplitude frequencies, Hz: a centre (spread by `dpha`, `damp` percent) or a band to
        draw from uniformly.
    sf : float
        Sample rate, Hz.
    n_times : int
        Samples per epoch.
    n_epochs : int
        Epochs.
    chi : float
        0 (strongest coupling) to 1 (none); outside [0, 1]: 0.
    noise : float
        Noise scale, 0 to 3; outside: 0.
    dpha, damp : float
        Spread of the phase and amplitude frequencies around their centres, percent (0 to 100).
    rnd_state : int
        Seed of NumPy's ``RandomState``.

    Returns
    -------
    data : numpy.ndarray
        (n_epochs, n_times).
    time : numpy.ndarray
        (n_times,), seconds.
    """
    n_times, sf = int(n_times), float(sf)
    chi = chi if 0 <= chi <= 1 else 0
    noise = noise if 0 <= noise <= 3 else 0
    dpha = dpha if 0 <= dpha <= 100 else 0
    damp = damp if 0 <= damp <= 100 else 0
    time = np.arange(n_times) / sf
    rng = np.random.RandomState(rnd_state)

    def frequencies(f: Any, spread: float) -> np.ndarray:
        f = np.asarray(f)
        if f.ndim == 0:
            lo, hi = f * (1.0 - spread / 100.0), f * (1.0 + spread / 100.0)
            return lo + (hi - lo) * rng.rand(n_epochs, 1)
        return rng.uniform(f[0], f[1], (n_epochs, 1))

    f_p = frequencies(f_pha, dpha)
    f_a = frequencies(f_amp, damp)
    slow = np.sin(2 * np.pi * f_p * time[None, :])
    fast = np.sin(2 * np.pi * f_a * time[None, :])
    data = 0.5 * ((1.0 - chi) * slow + 1.0 + chi) * fast + slow
    data += noise * rng.rand(*data.shape)
    return data, time


def _morlet(x: np.ndarray, sf: float, f: float, width: float = 7.0) -> np.ndarray:
    """Each row of `x` convolved with a complex Morlet wavelet at `f` Hz of `width` cycles (TensorPAC's
    ``morlet``), cropped to the input's length."""
    spread = width / (2 * np.pi * f)
    t = np.arange(-width * spread / 2, width * spread / 2, 1.0 / sf)
    wavelet = np.exp(-t ** 2 / (2 * spread ** 2)) * np.exp(2j * np.pi * f * t) / np.sqrt(spread * np.sqrt(np.pi))
    first = int(np.ceil(len(wavelet) / 2)) - 1
    return np.array([np.convolve(row, wavelet)[first:first + x.shape[-1]] for row in x])


def pac_signals_wavelet(f_pha: Any = 10.0, f_amp: Any = 100.0, sf: float = 1024.0, n_times: int = 4000,
                        n_epochs: int = 10, noise: float = 0.1, pp: float = 0.0,
                        rnd_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Coupled test signals driven by band-limited noise (after pactools), TensorPAC's
    ``pac_signals_wavelet`` (the same draws for the same `rnd_state`).

    A driver, white noise through a Morlet wavelet at `f_pha`, modulates a sine at `f_amp` through a
    sigmoid of its real part shifted by `pp`; the signal is the modulated sine, the driver's real part
    and white noise.

    Parameters
    ----------
    f_pha, f_amp : float or [lo, hi]
        Phase and amplitude frequencies, Hz (a band's mean is used).
    sf : float
        Sample rate, Hz.
    n_times : int
        Samples per epoch.
    n_epochs : int
        Epochs.
    noise : float
        Standard deviation of the white noise.
    pp : float
        Preferred phase of the coupling, radians.
    rnd_state : int
        Seed of NumPy's ``RandomState``.

    Returns
    -------
    data : numpy.ndarray
        (n_epochs, n_times).
    time : numpy.ndarray
        (n_times,), seconds.
    """
    n_times, sf = int(n_times), float(sf)
    f_pha, f_amp = float(np.asarray(f_pha).mean()), float(np.asarray(f_amp).mean())
    time = np.arange(n_times) / sf
    rng = np.random.RandomState(rnd_state)
    driver = _morlet(rng.randn(n_epochs, n_times), sf, f_pha)
    driver /= np.max(driver, axis=1, keepdims=True)
    modulation = 1.0 / (1.0 + np.exp(-6.0 * np.real(driver * np.exp(-1j * pp))))
    data = np.sin(2 * np.pi * f_amp * time[None, :]) * modulation + np.real(driver)
    return data + noise * rng.randn(n_epochs, n_times), time


class PSD:
    """Power spectral density of each epoch (a one-sided periodogram, no window, the mean removed,
    V**2/Hz), TensorPAC's ``PSD``.

    Parameters
    ----------
    x : numpy.ndarray
        (n_epochs, n_times).
    sf : float
        Sample rate, Hz.
    """

    def __init__(self, x: np.ndarray, sf: float) -> None:
        if not isinstance(x, np.ndarray) or x.ndim != 2:
            raise ValueError("x should be a 2d array of shape (n_epochs, n_times)")
        self._n_trials, self._n_times = x.shape
        spectrum = np.abs(np.fft.rfft(x - x.mean(axis=1, keepdims=True), axis=1)) ** 2 / (float(sf) * self._n_times)
        spectrum[:, 1:] *= 2  # one-sided: every frequency but 0 Hz (and Nyquist, below) has a mirror image
        if self._n_times % 2 == 0:
            spectrum[:, -1] /= 2
        self._freqs = np.fft.rfftfreq(self._n_times, 1.0 / float(sf))
        self._psd = spectrum

    @property
    def freqs(self) -> np.ndarray:
        """Frequencies, Hz, (n_freqs,)."""
        return self._freqs

    @property
    def psd(self) -> np.ndarray:
        """The PSD of each epoch, (n_epochs, n_freqs)."""
        return self._psd

    def _limits(self, xvec: np.ndarray, f_min: Optional[float], f_max: Optional[float]) -> tuple[float, float]:
        numbers = (int, float)
        return (f_min if isinstance(f_min, numbers) else float(xvec[0]),
                f_max if isinstance(f_max, numbers) else float(xvec[-1]))

    def plot(self, f_min: Optional[float] = None, f_max: Optional[float] = None,
             confidence: Optional[float] = 95, interp: Optional[int] = None, log: bool = False, grid: bool = True,
             fz_title: float = 18, fz_labels: float = 15) -> Any:
        """The mean PSD over epochs, with a grey band between the epochs' percentiles.

        Parameters
        ----------
        f_min, f_max : float, optional
            Frequency range drawn.
        confidence : float, optional
            The band covers this central percentage of the epochs (None: no band).
        interp : int, optional
            Quadratic interpolation to this many times more points (needs SciPy).
        log : bool
            Logarithmic frequency axis.
        grid : bool
            Draw a grid.
        fz_title, fz_labels : float
            Font sizes.

        Returns
        -------
        matplotlib.axes.Axes
        """
        plt = _pyplot()
        xvec, yvec = self._freqs, self._psd
        if isinstance(interp, int) and interp > 1:
            from scipy.interpolate import interp1d

            finer = np.linspace(xvec[0], xvec[-1], len(xvec) * interp)
            yvec = interp1d(xvec, yvec, kind="quadratic", axis=1)(finer)
            xvec = finer
        f_min, f_max = self._limits(xvec, f_min, f_max)
        plt.plot(xvec, yvec.mean(0), color="black", label="mean PSD over trials")
        if isinstance(confidence, (int, float)) and 0 < confidence < 100:
            tail = (100.0 - confidence) / 2
            low = np.percentile(yvec, tail, axis=0, method="nearest")
            high = np.percentile(yvec, 100.0 - tail, axis=0, method="nearest")
            plt.fill_between(xvec, high, low, color="lightgray", alpha=0.5, label=f"{confidence}th confidence interval")
            plt.legend(fontsize=fz_labels)
        plt.xlabel("Frequencies (Hz)", fontsize=fz_labels)
        plt.ylabel("Power (V**2/Hz)", fontsize=fz_labels)
        plt.title(f"PSD mean over {self._n_trials} trials", fontsize=fz_title)
        plt.xlim(f_min, f_max)
        self._axes_style(plt, log, grid)
        return plt.gca()

    def plot_st_psd(self, f_min: Optional[float] = None, f_max: Optional[float] = None, log: bool = False,
                    grid: bool = True, fz_title: float = 18, fz_labels: float = 15, fz_cblabel: float = 15,
                    **kw: Any) -> Any:
        """Each epoch's PSD as an image (epochs on y), drawn by :meth:`Pac.pacplot`.

        Parameters
        ----------
        f_min, f_max : float, optional
            Frequency range drawn.
        log, grid : bool
            Logarithmic frequency axis; a grid.
        fz_title, fz_labels, fz_cblabel : float
            Font sizes.
        **kw
            Passed to ``pacplot`` (``xlabel``, ``title``, ``cmap``, ...).

        Returns
        -------
        matplotlib.axes.Axes
        """
        plt = _pyplot()
        options = {"fz_labels": fz_labels, "fz_title": fz_title, "fz_cblabel": fz_title, "xlabel": "Frequencies (Hz)",
                   "ylabel": "Trials", "title": "Single-trial PSD", "cblabel": "Power (V**2/Hz)", **kw}
        f_min, f_max = self._limits(self._freqs, f_min, f_max)
        kept = slice(int(np.abs(self._freqs - f_min).argmin()), int(np.abs(self._freqs - f_max).argmin()))
        _Plots().pacplot(self._psd[:, kept], self._freqs[kept], np.arange(self._n_trials), **options)
        self._axes_style(plt, log, grid)
        return plt.gca()

    @staticmethod
    def _axes_style(plt: Any, log: bool, grid: bool) -> None:
        if log:
            from matplotlib.ticker import ScalarFormatter

            plt.xscale("log", base=10)
            plt.gca().xaxis.set_major_formatter(ScalarFormatter())
        if grid:
            plt.grid(color="grey", which="major", linestyle="-", linewidth=1.0, alpha=0.5)
            plt.grid(color="lightgrey", which="minor", linestyle="--", linewidth=0.5, alpha=0.5)

    def show(self) -> None:
        """Show the figures."""
        _pyplot().show()


def _phase_bins(phase: np.ndarray, n_bins: int) -> np.ndarray:
    """The engine's bin of each phase in (-pi, pi]: floor((phi + pi) n / 2 pi), clamped to [0, n - 1]."""
    return np.clip(np.floor((phase.astype(np.float64) + np.pi) * n_bins / (2 * np.pi)), 0, n_bins - 1).astype(np.intp)


class BinAmplitude(_PacObject):
    """The amplitude summed in each phase bin, per epoch (TensorPAC's ``BinAmplitude``), from the
    engine's phases and amplitudes.

    Parameters
    ----------
    x : array_like
        (n_epochs, n_times).
    sf : float
        Sample rate, Hz.
    f_pha, f_amp : [lo, hi]
        The phase and amplitude bands, Hz.
    n_bins : int
        Phase bins over (-pi, pi].
    dcomplex : {"hilbert"}
        The analytic signal.
    cycle : tuple of 2 int
        Filter cycles.
    width : int
        Morlet width (unused).
    edges : int, optional
        Samples at each end filtered with the data, then dropped.
    n_jobs : int
        Accepted for compatibility.
    """

    def __init__(self, x: Any, sf: float, f_pha: Sequence[float] = (2, 4), f_amp: Sequence[float] = (60, 80),
                 n_bins: int = 18, dcomplex: str = "hilbert", cycle: Sequence[int] = (3, 6), width: int = 7,
                 edges: Optional[int] = None, n_jobs: int = -1) -> None:
        super().__init__(f_pha=f_pha, f_amp=f_amp, dcomplex=dcomplex, cycle=cycle, width=width)
        if not isinstance(n_bins, (int, np.integer)):
            raise ValueError("`n_bins` should be an integer")
        x = epochs_by_times(x)
        result = self._analytic_pipeline(sf, x, edges, outputs="phase,amplitude").run(progress=False)
        phase, amplitude = result["phase"][:, 0], result["amplitude"][:, 0]  # (epochs, bands, times)
        n_epochs = x.shape[0]
        bins = _phase_bins(phase, int(n_bins)) + (np.arange(n_epochs) * n_bins)[:, None, None]
        sums = np.empty((int(n_bins), amplitude.shape[1], phase.shape[1], n_epochs))
        for a in range(amplitude.shape[1]):
            for p in range(phase.shape[1]):
                counts = np.bincount(bins[:, p].ravel(), weights=amplitude[:, a].ravel().astype(np.float64),
                                     minlength=n_bins * n_epochs)
                sums[:, a, p] = counts.reshape(n_epochs, n_bins).T
        self._amplitude = sums.squeeze()
        self.n_bins = int(n_bins)
        self._phase = np.linspace(-np.pi, np.pi, self.n_bins)

    @property
    def amplitude(self) -> np.ndarray:
        """The amplitude summed in each phase bin: (n_bins, n_epochs) for one band each (squeezed)."""
        return self._amplitude

    @property
    def phase(self) -> np.ndarray:
        """The bars' phases of the last :meth:`plot` (radians by default)."""
        return self._phase

    def plot(self, unit: str = "rad", normalize: bool = False, **kw: Any) -> Any:
        """A bar per phase bin of the amplitude's mean over epochs.

        Parameters
        ----------
        unit : {"rad", "deg"}
            Unit of the phase axis.
        normalize : bool
            Divide by the largest bar.
        **kw
            Passed to ``matplotlib.pyplot.bar``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        plt = _pyplot()
        if unit not in ("rad", "deg"):
            raise ValueError("unit must be 'rad' or 'deg'")
        turn = 2 * np.pi if unit == "rad" else 360.0
        self._phase = np.linspace(-turn / 2, turn / 2, self.n_bins)
        heights = self._amplitude.mean(1) if self._amplitude.ndim > 1 else self._amplitude.copy()
        if normalize:
            heights = heights / heights.max()
        plt.bar(self._phase, heights, width=turn / self.n_bins, **kw)
        plt.xlabel(f"Frequency phase ({self.n_bins} bins)", fontsize=18)
        plt.ylabel("Amplitude", fontsize=18)
        plt.title("Binned amplitude")
        plt.autoscale(enable=True, axis="x", tight=True)
        return plt.gca()

    def show(self) -> None:
        """Show the figures."""
        _pyplot().show()


class ITC(_PacObject, _Plots):
    """Inter-trial coherence: the length of the mean over epochs of each time point's unit phase vector,
    per phase band (TensorPAC's ``ITC``), from the engine's phases.

    Parameters
    ----------
    x : array_like
        (n_epochs, n_times).
    sf : float
        Sample rate, Hz.
    f_pha : str, list, tuple or array_like
        Phase bands, in any form of :func:`pac_vec`.
    dcomplex : {"hilbert"}
        The analytic signal.
    cycle : int
        Filter cycles of the phase bands.
    width : int
        Morlet width (unused).
    edges : int, optional
        Samples at each end filtered with the data, then dropped.
    n_jobs : int
        Accepted for compatibility.
    verbose : optional
        Accepted for compatibility.
    """

    def __init__(self, x: Any, sf: float, f_pha: Any = (2, 4), dcomplex: str = "hilbert", cycle: int = 3,
                 width: int = 7, edges: Optional[int] = None, n_jobs: int = -1, verbose: Any = None) -> None:
        super().__init__(f_pha=f_pha, f_amp=(60, 80), dcomplex=dcomplex, cycle=(int(cycle), 6), width=width)
        x = epochs_by_times(x)
        self._n_trials, self._n_full = x.shape[0], x.shape[1]
        phase = self.filter(sf, x, "phase", edges=edges)  # (n_pha, epochs, times)
        self._itc = np.abs(np.exp(1j * phase.astype(np.float64)).mean(1)).squeeze()
        self._sf = float(sf)

    @property
    def itc(self) -> np.ndarray:
        """(n_pha, n_times), or (n_times,) for one band."""
        return self._itc

    def plot(self, times: Optional[np.ndarray] = None, **kw: Any) -> Any:
        """The ITC over time: a line for one band, else an image by band (through ``pacplot``).

        Parameters
        ----------
        times : numpy.ndarray, optional
            Time of each sample of the input (cropped by ``edges`` here) or of the ITC; by default the
            input's samples over ``sf``.
        **kw
            Passed to ``matplotlib.pyplot.plot`` (one band) or ``pacplot``.

        Returns
        -------
        matplotlib.axes.Axes
        """
        plt = _pyplot()
        n_points = self._itc.shape[-1]
        if not isinstance(times, np.ndarray):
            times = np.arange(self._n_full) / self._sf
        if len(times) != n_points:
            times = times[self._edges]
        if len(times) != n_points:
            raise ValueError(f"The length of the time vector should be {n_points}")
        if self._itc.ndim == 1:
            plt.plot(times, self._itc, **kw)
        else:
            options = {"vmin": np.percentile(self._itc, 1), "vmax": np.percentile(self._itc, 99),
                       "ylabel": "Frequency for phase (Hz)", "xlabel": "Time",
                       "title": f"Inter-Trials Coherence ({self._n_trials} trials)", **kw}
            self.pacplot(self._itc, times, self.xvec, **options)
        return plt.gca()


class PeakLockedTF(_PacObject, _Plots):
    """Amplitudes realigned on the phase peak closest to a cue, per epoch (TensorPAC's ``PeakLockedTF``),
    from the engine's filtered phase signal and amplitudes.

    Parameters
    ----------
    x : array_like
        (n_epochs, n_times).
    sf : float
        Sample rate, Hz.
    cue : int or float
        The sample to align on, or with `times` the time (the nearest sample).
    times : numpy.ndarray, optional
        Time of each sample.
    f_pha : [lo, hi]
        The phase band, Hz.
    f_amp : str, list, tuple or array_like
        Amplitude bands, in any form of :func:`pac_vec`.
    cycle : tuple of 2 int
        Filter cycles.
    n_jobs : int
        Accepted for compatibility.
    verbose : optional
        Accepted for compatibility.
    """

    def __init__(self, x: Any, sf: float, cue: Union[int, float], times: Optional[np.ndarray] = None,
                 f_pha: Sequence[float] = (5, 7), f_amp: Any = "hres", cycle: Sequence[int] = (3, 6),
                 n_jobs: int = -1, verbose: Any = None) -> None:
        super().__init__(f_pha=f_pha, f_amp=f_amp, dcomplex="hilbert", cycle=cycle)
        x = epochs_by_times(x)
        if len(self._f_pha) != 1:
            raise ValueError("PeakLockedTF takes one phase band [lo, hi]")
        n_times = x.shape[1]
        if times is None:
            cue, times = int(cue), np.arange(n_times)
        else:
            times = np.asarray(times)
            if len(times) != n_times:
                raise ValueError(f"times has {len(times)} values for {n_times} samples")
            cue = int(np.abs(times - cue).argmin())
        self.cue, self._times = cue, times
        result = self._filter_pipeline(sf, x[:, None], None, filtered=True).stage(
            "hilbert", outputs="amplitude").run(progress=False)
        self._pha = result["filtered_pha"][:, 0].transpose(1, 0, 2)  # (1, epochs, times): the filtered signal
        self._amp = result["amplitude"][:, 0].transpose(1, 0, 2).astype(np.float64) ** 2  # power
        self.shifts = self._peak_shifts(self._pha[0], cue)
        self.amp_a = self._shifted(self._amp, self.shifts)
        self.pha_a = self._shifted(self._pha, self.shifts)

    @staticmethod
    def _peak_shifts(signal: np.ndarray, cue: int) -> np.ndarray:
        """Per epoch, cue minus the local maximum of `signal` (epochs, times) closest to the cue."""
        shifts = []
        for series in signal:
            peaks = np.flatnonzero((series[1:-1] > series[:-2]) & (series[1:-1] > series[2:])) + 1
            if not len(peaks):
                raise ValueError("an epoch's filtered phase signal has no peak")
            shifts.append(cue - int(peaks[np.abs(peaks - cue).argmin()]))
        return np.array(shifts)

    @staticmethod
    def _shifted(signal: np.ndarray, shifts: np.ndarray) -> np.ndarray:
        """Each epoch of `signal` (bands, epochs, times) moved by its shift, zeros filling in."""
        out = np.zeros_like(signal)
        n_times = signal.shape[-1]
        for epoch, shift in enumerate(shifts):
            if shift >= 0:
                out[:, epoch, shift:] = signal[:, epoch, :n_times - shift]
            else:
                out[:, epoch, :shift] = signal[:, epoch, -shift:]
        return out

    def plot(self, zscore: bool = False, baseline: Optional[Sequence[int]] = None, edges: int = 0,
             **kwargs: Any) -> list:
        """The mean realigned power (top) over the realigned phase signals (bottom).

        Parameters
        ----------
        zscore : bool
            z-score each epoch's power by its mean and deviation over `baseline` (default: the whole
            window).
        baseline : (int, int), optional
            Baseline samples.
        edges : int
            Samples dropped at each end.
        **kwargs
            Passed to ``pacplot``.

        Returns
        -------
        list of matplotlib.axes.Axes
        """
        plt = _pyplot()
        from matplotlib.gridspec import GridSpec

        options = {"fz_labels": 14, "fz_cblabel": 14, "fz_title": 16, **kwargs, "colorbar": False,
                   "ylabel": "Frequency for amplitude (hz)", "xlabel": ""}
        kept = slice(edges, len(self._times) - edges)
        times = self._times[kept]
        phases = self.pha_a[..., kept].squeeze()
        power = self.amp_a[..., kept]
        if zscore:
            reference = self.amp_a[..., kept if baseline is None else slice(baseline[0], baseline[1])]
            spread = reference.std(2, keepdims=True)
            spread[spread == 0] = 1.0
            power = (power - reference.mean(2, keepdims=True)) / spread
        grid = GridSpec(8, 8)
        plt.subplot(grid[0:6, 0:-1])
        self.pacplot(power.mean(1), times, self.yvec, **options)
        plt.axvline(times[self.cue], color="w", lw=2)
        plt.tick_params(bottom=False, labelbottom=False)
        top = plt.gca()
        plt.subplot(grid[1:5, -1])
        bar = plt.colorbar(self._plt_im, pad=0.01, cax=plt.gca())
        bar.set_label("Power (V**2/Hz)", fontsize=options["fz_cblabel"])
        bar.outline.set_visible(False)
        plt.subplot(grid[6:8, 0:-1])
        plt.plot(times, phases.T, color="lightgray", alpha=0.2, lw=1.0)
        plt.plot(times, phases.mean(0), label="mean phases", color="#1f77b4")
        plt.axvline(times[self.cue], color="k", lw=2)
        plt.autoscale(axis="both", tight=True, enable=True)
        plt.xlabel("Times", fontsize=options["fz_labels"])
        plt.ylabel("V / Hz", fontsize=options["fz_labels"])
        plt.legend(loc="center", bbox_to_anchor=(0.5, -0.5), fontsize="x-large", ncol=2)
        return [top, plt.gca()]
