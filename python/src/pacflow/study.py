"""A study from Python: every subject's comodulogram, then the group test across them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np

from .comodulogram import comodulogram
from .group import GroupResult, group_test
from .result import Result


class Study:
    """Every subject's :class:`Result` and the group test across them (docs/methods.md, "Group level").

    Attributes
    ----------
    results : dict of str to Result
        Each subject's run, by the subject's name, in the order given.
    group : GroupResult
        The group test of the subjects' ``trial_rank_z``: one-sample (``group_*``) and, with two
        conditions, the paired contrast (``group_contrast_*``).
    """

    def __init__(self, results: dict[str, Result], group: GroupResult) -> None:
        self.results = results
        self.group = group

    def __repr__(self) -> str:
        return f"Study({len(self.results)} subjects: {', '.join(self.results)}; {self.group!r})"


def study(subjects: Mapping[str, Any], fs: Optional[float] = None, *, conditions: Any = None,
          n_flips: int = 10000, seed: int = 42, cluster_p: float = 0.05, **params: Any) -> Study:
    """Phase-amplitude coupling of every subject, then its group-level test.

    Each subject runs alone, as :func:`comodulogram` runs it (subjects may differ in their numbers of
    epochs, sample rates and lengths; their channels, conditions and bands must agree), and the group
    test takes each subject's ``trial_rank_z`` (the trial-level test must be on: four epochs or more
    per condition).

    Parameters
    ----------
    subjects : mapping of str to array_like or mne.Epochs
        Each subject's data by name.
    fs : float, optional
        Sample rate for arrays (MNE objects carry theirs).
    conditions : True, sequence or mapping, optional
        As :func:`comodulogram`'s (``True`` or event_id names for MNE epochs), or a mapping from each
        subject's name to its epochs' labels for arrays.
    n_flips, seed, cluster_p
        The group test's sign flips (all ``2 ** subjects`` when not more), their key and the
        cluster-forming threshold (:func:`pacflow.group.group_test`).
    **params
        Passed to :func:`comodulogram` for every subject (bands, method, ``n_perm``, …).

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        For fewer than two subjects, or subjects without the trial-level test's ``trial_rank_z``.
    """
    if len(subjects) < 2:
        raise ValueError(f"study: a group test needs at least 2 subjects, got {len(subjects)}")
    params.setdefault("progress", False)
    results: dict[str, Result] = {}
    for name, data in subjects.items():
        labels = conditions[name] if isinstance(conditions, Mapping) else conditions
        results[name] = comodulogram(data, fs, conditions=labels, **params)
    missing = [name for name, r in results.items() if "trial_rank_z" not in r]
    if missing:
        raise ValueError(f"study: {', '.join(missing)} have no trial-level test (trial_rank_z): it needs four epochs "
                         "or more (and n_perm > 0)")
    first = next(iter(results.values()))
    values = [r["trial_rank_z"] for r in results.values()]
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise ValueError(f"study: the subjects' trial_rank_z differ in shape ({sorted(shapes)}): their channels, "
                         "conditions and bands must agree")
    group = group_test(np.stack(values), first.dims["trial_rank_z"], n_flips=n_flips, seed=seed, cluster_p=cluster_p)
    return Study(results, group)
