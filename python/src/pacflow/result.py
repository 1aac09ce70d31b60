"""The results of a run: arrays with their dimension names, band edges and centres, the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import json

import numpy as np

from . import _core
from .significance import Significance, significant


@dataclass(frozen=True)
class Result:
    """What a pipeline computed, in memory.

    Attributes
    ----------
    arrays : dict of str to numpy.ndarray
        Every result (``pac``, ``pac_z``, ``pvalues``, ``trial_pvalues``, ``erpac``, …), float32, with
        its leading dimensions (``epochs, channels`` or the result's own) then its cells
        (``phase_bands, amplitude_bands``, and ``times`` or ``bins`` where it has them).
    dims : dict of str to tuple of str
        The name of each dimension of each array.
    docs : dict of str to str
        What each array holds, in a few words.
    coords : dict of str to numpy.ndarray
        Coordinates the stages publish (``erpac_times``, in seconds), float64.
    report : dict
        What ``result.json`` holds: the input, every resolved parameter, the band edges, devices,
        placement, warnings and timings.
    """

    arrays: dict[str, np.ndarray]
    dims: dict[str, tuple[str, ...]]
    docs: dict[str, str]
    coords: dict[str, np.ndarray]
    report: dict[str, Any] = field(repr=False)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.arrays[name]
        except KeyError:
            raise KeyError(f"no result {name!r}; this run has {', '.join(self.arrays) or 'none'}") from None

    def __getattr__(self, name: str) -> np.ndarray:
        arrays = self.__dict__.get("arrays", {})
        if name in arrays:
            return arrays[name]
        raise AttributeError(f"Result has no attribute or array {name!r}; arrays: {', '.join(arrays) or 'none'}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.arrays})  # array names complete in notebooks

    def __contains__(self, name: object) -> bool:
        return name in self.arrays

    def __repr__(self) -> str:
        lines = [f"Result({len(self.arrays)} arrays)"]
        for name, array in self.arrays.items():
            dims = ", ".join(f"{d}: {n}" for d, n in zip(self.dims[name], array.shape))
            lines.append(f"  {name:<24} ({dims})")
        return "\n".join(lines)

    # The field's vocabulary: band centres and edges in Hz.
    @property
    def f_pha(self) -> np.ndarray:
        """Centre of each phase band, Hz (n_pha,)."""
        return np.asarray(self.report.get("pha_centres_hz", []), dtype=np.float64)

    @property
    def f_amp(self) -> np.ndarray:
        """Centre of each amplitude band, Hz (n_amp,)."""
        return np.asarray(self.report.get("amp_centres_hz", []), dtype=np.float64)

    @property
    def pha_bands(self) -> np.ndarray:
        """Edges of each phase band, Hz (n_pha, 2)."""
        return np.asarray(self.report.get("pha_bands_hz", []), dtype=np.float64).reshape(-1, 2)

    @property
    def amp_bands(self) -> np.ndarray:
        """Edges of each amplitude band, Hz (n_amp, 2)."""
        return np.asarray(self.report.get("amp_bands_hz", []), dtype=np.float64).reshape(-1, 2)

    @property
    def params(self) -> dict[str, dict[str, Any]]:
        """Every element's resolved parameters (defaults filled in, derived values added), by name."""
        return {e["name"]: e.get("params", {}) for e in self.report.get("pipeline", [])}

    @property
    def warnings(self) -> list[str]:
        """What the run warned about."""
        return list(self.report.get("warnings", []))

    @property
    def timings(self) -> dict[str, Any]:
        """The run's wall time, batches and per-element busy times (``result.json``'s ``run``)."""
        return dict(self.report.get("run", {}))

    @property
    def channels(self) -> Optional[list[str]]:
        """The channels' names when the input has them."""
        labels = self.report.get("input", {}).get("channel_labels")
        return list(labels) if labels else None

    def methods(self) -> str:
        """The methods paragraph of this run, with its references, as ``pipeline_cli methods`` prints it.

        Returns
        -------
        str
            One paragraph (the data, filters, analytic signal, measure, surrogates, trial-level test
            with its correction and family, the p-values to report, pacflow's version and commit), a
            blank line, ``References`` and one ``- `` line per cited work (Markdown).
        """
        return _core.methods(json.dumps(self.report))

    def significant(self, alpha: float = 0.05, test: Optional[str] = None) -> Significance:
        """The cells significant at `alpha`: ``trial_pvalues < alpha`` when the run made the trial-level
        test, else ``pvalues_maxstat < alpha`` (per series), else ``erpac_pvalues < alpha``.

        Parameters
        ----------
        alpha : float
            The significance level, in (0, 1).
        test : str, optional
            Another p-value array of the run (``contrast_pvalues``, ``pvalues_maxstat``, ``pvalues``, …).

        Returns
        -------
        Significance
            ``.mask`` (bool, the dimensions ``.dims`` of ``.pvalues``), and ``.array``, ``.test``,
            ``.correction``, ``.family``, ``.alpha``, ``.p_floor``: what a paper states with it.
        """
        return significant(self, alpha, test)

    def plot(self, name: Optional[str] = None, *, per_channel: bool = False, alpha: float = 0.05, ax: Any = None,
             **kwargs: Any) -> Any:
        """Draw the comodulogram with matplotlib (see :func:`pacflow.plotting.plot_comodulogram`)."""
        from .plotting import plot_comodulogram

        return plot_comodulogram(self, name, per_channel=per_channel, alpha=alpha, ax=ax, **kwargs)
