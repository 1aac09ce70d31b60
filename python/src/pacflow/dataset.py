"""The results of a dataset: a pipeline whose source is a manifest, run once per recording."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Optional

import numpy as np

from .group import GROUP_STATISTICS, GroupResult, group_test
from .result import Result


class Dataset(Mapping[str, Result]):
    """Every recording's :class:`Result`, by the recording's id, in the table's order.

    ``pacflow.run`` returns one for a ``.pipe`` file whose source is ``manifest`` (docs/cluster.md,
    "Datasets"): each recording ran as its own pipeline, wrote its files into a folder named after
    it, and the stacked HDF5 file holds every result with a first dimension ``recordings``.

    Attributes
    ----------
    report : dict
        The dataset's report: the table, each recording's id, series and run time, and the stacked
        file (``stacked``), when written.
    """

    def __init__(self, report: dict[str, Any], recordings: dict[str, Result]) -> None:
        self.report = report
        self._recordings = recordings

    def __getitem__(self, recording: str) -> Result:
        try:
            return self._recordings[recording]
        except KeyError:
            raise KeyError(f"no recording {recording!r}; the dataset has {', '.join(self._recordings)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._recordings)

    def __len__(self) -> int:
        return len(self._recordings)

    @property
    def stacked_file(self) -> Optional[str]:
        """The HDF5 file with every recording's results stacked, or None when none was written."""
        return self.report.get("stacked")

    def stack(self, name: str) -> np.ndarray:
        """One result of every recording, stacked along a new first axis (``recordings``).

        Parameters
        ----------
        name : str
            The result (``pac``, ``pac_z``, ``trial_pvalues``, …).

        Returns
        -------
        numpy.ndarray
            float32, shape ``(recordings, *the result's shape)``: what the stacked file holds.

        Raises
        ------
        ValueError
            When the recordings' arrays differ in shape (other epochs, channels or bands).
        """
        arrays = [result[name] for result in self._recordings.values()]
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f"{name}: the recordings' arrays differ in shape ({sorted(shapes)}); "
                             "take them one by one: dataset[recording]")
        return np.stack(arrays)

    def group(self, *, n_flips: Optional[int] = None, seed: Optional[int] = None,
              cluster_p: Optional[float] = None) -> GroupResult:
        """The group-level test of the recordings (subjects): what the dataset run wrote into its
        stacked file, computed again from every recording's ``trial_rank_z`` (or, for ERPAC run with
        ``n=``, its ``erpac_rank_z``, whose clusters run over time too), channels matched by name.

        Parameters
        ----------
        n_flips, seed, cluster_p : optional
            As the manifest's ``group_n``, ``group_seed`` and ``group_cluster_p`` (by default the
            run's own, so the arrays equal the stacked file's).

        Returns
        -------
        GroupResult
            The one-sample test (``group_*``) and, with two conditions, the paired contrast
            (``group_contrast_*``).

        Raises
        ------
        ValueError
            When the recordings have neither statistic (the trial-level test was off, erpac had no
            ``n=``) or differ in shape.
        """
        first = next(iter(self._recordings.values()), None)
        statistic = next((name for name in GROUP_STATISTICS if first is not None and name in first), None)
        if first is None or statistic is None:
            raise ValueError("the recordings have no trial_rank_z and no erpac_rank_z: the group test needs the "
                             "trial-level test (surrogates trials=auto with four epochs or more) or erpac n=")
        ran = self.report.get("group", {}).get("settings", {})  # the manifest's group_* as the run read them
        return group_test(self._by_channel_name(statistic), first.dims[statistic],
                          n_flips=int(ran.get("group_n", 10000)) if n_flips is None else n_flips,
                          seed=int(ran.get("group_seed", 42)) if seed is None else seed,
                          cluster_p=float(ran.get("group_cluster_p", 0.05)) if cluster_p is None else cluster_p,
                          statistic=statistic)

    def _by_channel_name(self, name: str) -> np.ndarray:
        """stack(name) with each recording's channels in the first's order where they are the same
        names in another order, as the dataset run stacks them."""
        results = list(self._recordings.values())
        first = results[0].channels
        dims = results[0].dims[name]
        arrays = []
        for result in results:
            array = result[name]
            names = result.channels
            if first and names and names != first and sorted(names) == sorted(first) and "channels" in dims:
                array = np.take(array, [names.index(c) for c in first], axis=dims.index("channels"))
            arrays.append(array)
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f"{name}: the recordings' arrays differ in shape ({sorted(shapes)})")
        return np.stack(arrays)

    def __repr__(self) -> str:
        return f"Dataset({len(self)} recordings: {', '.join(self._recordings)})"


def dataset_of(report_text: str, recordings: list, result: Any) -> Dataset:
    """The Dataset that ``_core.run`` describes: its report, and (id, report, arrays, coordinates)
    for each recording; ``result`` makes one recording's Result."""
    return Dataset(json.loads(report_text),
                   {id: result(report, arrays, coords) for id, report, arrays, coords in recordings})
