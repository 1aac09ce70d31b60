"""Which cells of a run are significant, by the test the run's methods paragraph reports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from . import _core

if TYPE_CHECKING:
    from .result import Result


@dataclass(frozen=True)
class Significance:
    """The cells whose p-value is below ``alpha``, with the test that gave the p-values.

    Attributes
    ----------
    mask : numpy.ndarray of bool
        ``pvalues < alpha`` (NaN is not significant), with the dimensions ``dims``.
    pvalues : numpy.ndarray
        The p-values tested: the run's array ``array``.
    dims : tuple of str
        The name of each dimension of ``mask`` and ``pvalues``, e.g. ``('channels', 'phase_bands',
        'amplitude_bands')``.
    array : str
        Which p-values: ``trial_pvalues`` (the test of each channel's mean over epochs),
        ``contrast_pvalues`` (two conditions against each other), ``pvalues_maxstat`` (per series,
        maximum over its cells), ``pvalues`` (per series and cell, uncorrected) or ``erpac_pvalues``.
    test : str
        What was tested against what, in words.
    correction : str
        ``maxstat`` (max-T), ``maxstat_raw``, ``fdr``, ``bonferroni`` or ``uncorrected``.
    family : str
        The tests one correction spans, e.g. "each channel's 90 cells (9 phase × 10 amplitude bands)".
    alpha : float
        The significance level.
    p_floor : float
        The smallest p-value the test can give (0 for erpac's χ² approximation).
    """

    mask: np.ndarray = field(repr=False)
    pvalues: np.ndarray = field(repr=False)
    dims: tuple[str, ...]
    array: str
    test: str
    correction: str
    family: str
    alpha: float
    p_floor: float

    def __repr__(self) -> str:
        correction = "uncorrected" if self.correction == "uncorrected" else f"{self.correction} over {self.family}"
        return (f"Significance({int(self.mask.sum())} of {self.mask.size} cells of {self.array} < {self.alpha:g}; "
                f"{correction}; {self.test})")


def significant(result: "Result", alpha: float = 0.05, test: Optional[str] = None) -> Significance:
    """The cells of `result` significant at `alpha` by the test the run reports, or by `test`.

    Parameters
    ----------
    result : Result
        A run with p-values (a surrogates or erpac stage).
    alpha : float
        The significance level, in (0, 1).
    test : str, optional
        The p-value array to use (``trial_pvalues``, ``contrast_pvalues``, ``pvalues_maxstat``,
        ``pvalues``, ``erpac_pvalues``); default the one to report: ``trial_pvalues`` when the run
        made the trial-level test, else ``pvalues_maxstat``, else ``erpac_pvalues``.

    Returns
    -------
    Significance
        The mask with its p-values, dimensions, test, correction, family and level.

    Raises
    ------
    ValueError
        When `alpha` is outside (0, 1), or the run has no such p-values (the message names those it has).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    described = json.loads(_core.describe_test(json.dumps(result.report), test or ""))
    name = described["array"]
    pvalues = result[name]
    with np.errstate(invalid="ignore"):
        mask = np.asarray(pvalues < alpha)
    return Significance(mask=mask, pvalues=pvalues, dims=tuple(result.dims[name]), array=name,
                        test=described["test"], correction=described["correction"], family=described["family"],
                        alpha=float(alpha), p_floor=float(described["p_floor"]))
