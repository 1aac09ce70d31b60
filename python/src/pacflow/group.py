"""Group-level statistics of a dataset: its recordings as subjects (docs/methods.md, "Group level")."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from . import _core

#: The per-subject statistics a dataset's group test takes, the first its recordings have: the
#: trial-level test's and ERPAC's (``erpac n=``; a ``times`` axis last, clusters over time too).
GROUP_STATISTICS: tuple[str, ...] = ("trial_rank_z", "erpac_rank_z")


class GroupResult(Mapping[str, np.ndarray]):
    """The group test of a dataset's subjects, as the dataset run writes it into its stacked file.

    Each subject's value is its ``trial_rank_z`` (the rank of its mean coupling over epochs among its
    own epoch permutations, as a normal quantile: symmetric around 0 without coupling), per channel
    and cell. ``group_*`` arrays are the one-sample test (coupling above
    each subject's own null, one-sided); with two conditions, ``group_contrast_*`` the paired test of
    the first condition's ``trial_rank_z`` minus the second's (two-sided). Each test gives ``_t``, Cohen's
    ``_dz`` with ``_dz_low``/``_dz_high`` (its confidence interval), ``_pvalues`` (max-T over the
    family, against sign flips of whole subjects), ``_cluster_pvalues`` and ``_clusters``
    (cluster-based permutation over adjacent cells of a channel's comodulogram, and adjacent times
    for ERPAC's ``erpac_rank_z``).

    Attributes
    ----------
    report : dict
        Per test: flips (exact or drawn), the smallest attainable p, the cluster-forming threshold,
        every cluster (``map``, ``cells``, ``mass``, ``p``) and the number of significant cells.
    dims : dict
        Each array's axis names.
    warnings : list of str
        What the test warned about (too few subjects for any p below 0.05, cells left out).
    """

    def __init__(self, report: dict[str, Any], warnings: list[str], arrays: dict[str, np.ndarray],
                 dims: dict[str, tuple[str, ...]], docs: dict[str, str]) -> None:
        self.report = report
        self.warnings = warnings
        self._arrays = arrays
        self.dims = dims
        self.docs = docs

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._arrays[name]
        except KeyError:
            raise KeyError(f"no group array {name!r}; there are {', '.join(self._arrays)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __repr__(self) -> str:
        tests = ", ".join(f"{name}: {r['subjects']} subjects, {r['flips']} flips" for name, r in self.report.items()
                          if isinstance(r, dict) and "subjects" in r)
        return f"GroupResult({tests})"


def group_test(values: np.ndarray, dims: tuple[str, ...], *, n_flips: int = 10000, seed: int = 42,
               cluster_p: float = 0.05, statistic: str = "trial_rank_z") -> GroupResult:
    """The group test of one value per subject and cell, computed by the engine.

    Parameters
    ----------
    values : numpy.ndarray
        ``(subjects, *dims)``: each subject's ``trial_rank_z`` (or any value symmetric around 0 under
        the null); the last two axes are the phase and amplitude bands, or the last three the bands
        and ``times`` (ERPAC's ``erpac_rank_z``: clusters join adjacent times too); a first axis
        ``conditions`` of two adds the paired contrast.
    dims : tuple of str
        The axis names after ``subjects``.
    n_flips : int
        Sign flips: every one of the ``2 ** subjects`` when not more than this, else this many drawn.
    seed : int
        Key of the drawn flips.
    cluster_p : float
        The cluster-forming threshold as a p-value of Student's t (``subjects - 1`` degrees of freedom).
    statistic : str
        The values' name, in the report's words.

    Returns
    -------
    GroupResult
    """
    report, warnings, arrays = _core.group_test(np.ascontiguousarray(values, dtype=np.float64), list(dims),
                                                int(n_flips), int(seed), float(cluster_p), statistic)
    return GroupResult(json.loads(report), list(warnings), {name: array for name, array, _, _ in arrays},
                       {name: tuple(d) for name, _, d, _ in arrays}, {name: doc for name, _, _, doc in arrays})
