"""Comodulograms with matplotlib: phase frequency on x, amplitude frequency on y, in Hz."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

if TYPE_CHECKING:
    from .result import Result


def rows_needed(rows: int, alpha: float) -> int:
    """The fewest of `rows` independent tests at level `alpha` whose rejections are themselves
    significant at `alpha` (upper tail of Binomial(rows, alpha)), as the png sink outlines."""
    tail = 0.0
    for k in range(rows, -1, -1):
        log_pmf = (math.lgamma(rows + 1) - math.lgamma(k + 1) - math.lgamma(rows - k + 1) + k * math.log(alpha)
                   + (rows - k) * math.log1p(-alpha))
        if tail + math.exp(log_pmf) > alpha * (1 + 1e-12):
            return k + 1
        tail += math.exp(log_pmf)
    return 0


_CELLS = ("phase_bands", "amplitude_bands")


def _cells(array: np.ndarray, dims: tuple[str, ...]) -> np.ndarray:
    """The array as [rows][n_pha][n_amp], whatever leads."""
    if dims[-2:] != _CELLS:
        raise ValueError(f"cannot draw an array of dimensions {dims} as a comodulogram")
    return array.reshape(-1, array.shape[-2], array.shape[-1])


def _per_channel(array: np.ndarray, dims: tuple[str, ...]) -> Optional[np.ndarray]:
    """The array as [channels][rows][n_pha][n_amp]: its channel (or channel pair) axis first, every
    other leading axis (epochs, segments, conditions) as rows; None when it has no such axis."""
    if dims[-2:] != _CELLS:
        return None
    axis = next((i for i, d in enumerate(dims[:-2]) if d in ("channels", "pairs")), None)
    if axis is None:
        return None
    moved = np.moveaxis(array, axis, 0)
    return moved.reshape(moved.shape[0], -1, moved.shape[-2], moved.shape[-1])


def _default_name(result: "Result") -> str:
    """The statistic whose p-values Result.significant() tests: trial_z beside trial_pvalues (the test of
    each channel's mean over epochs), else pac_z beside pvalues_maxstat, else the measure."""
    if "trial_z" in result.arrays and "trial_pvalues" in result.arrays:
        return "trial_z"
    return "pac_z" if "pac_z" in result.arrays else "pac"


def _significant(result: "Result", alpha: float) -> tuple[Optional[np.ndarray], str]:
    """The cells significant in each channel, [channels][n_pha][n_amp], and what that means: the
    p-values Result.significant() reports (trial_pvalues when the run has them, else
    pvalues_maxstat) below alpha, in enough of a channel's rows (epochs, segments, conditions) when
    it has several: a binomial test at alpha, as the png sink outlines them."""
    try:
        significance = result.significant(alpha)
    except ValueError:  # no p-values: no outlines
        return None, ""
    per = _per_channel(significance.mask, significance.dims)
    if per is None:
        return None, ""
    rows = per.shape[1]
    needed = rows_needed(rows, alpha)
    others = " × ".join(d for d in significance.dims[:-2] if d not in ("channels", "pairs"))
    where = "" if rows == 1 else f" in at least {needed} of {rows} {others}"
    return per.sum(axis=1) >= needed, f"outlined: {significance.array} < {alpha:g}{where}"


def plot_comodulogram(result: "Result", name: Optional[str] = None, *, per_channel: bool = False,
                      alpha: float = 0.05, ax: Any = None, cmap: str = "viridis", **kwargs: Any) -> Any:
    """Draw `result`'s comodulogram: the mean over epochs and channels, or one panel per channel.

    Parameters
    ----------
    result : Result
        A run with ``pac`` (and, with surrogates, ``pac_z``).
    name : str, optional
        The array to draw; default the statistic of the p-values that outline the cells: ``trial_z``
        (each channel's mean over epochs against epoch permutations) when the run made the
        trial-level test, else ``pac_z`` when present, else ``pac``.
    per_channel : bool
        One panel per channel (or channel pair) instead of the mean over them.
    alpha : float
        Cells significant at this level are outlined, by :meth:`Result.significant`: ``trial_pvalues <
        alpha`` (the test of the mean over epochs) when the run has it, else ``pvalues_maxstat < alpha``
        in enough epochs; in the mean panel, in enough channels (a binomial test at ``alpha``, as the
        png sink draws them).
    ax : matplotlib Axes, optional
        Where to draw the mean (``per_channel=False``).
    **kwargs
        Passed to ``pcolormesh``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    name = name or _default_name(result)
    array, dims = result[name], result.dims[name]
    x_edges = _edges(result.pha_bands, result.f_pha)
    y_edges = _edges(result.amp_bands, result.f_amp)
    per = _per_channel(array, dims)
    if per is not None:
        values = per.mean(axis=1)  # [channels][pha][amp]
    else:
        values = _cells(array, dims).mean(axis=0, keepdims=True)
    significant, subtitle = _significant(result, alpha) if per is not None else (None, "")
    labels = result.channels or [f"channel {i}" for i in range(len(values))]

    if per_channel:
        n = values.shape[0]
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False, sharex=True, sharey=True)
        vmin, vmax = np.nanmin(values), np.nanmax(values)
        for i, panel_ax in enumerate(axes.flat):
            if i >= n:
                panel_ax.set_visible(False)
                continue
            mesh = panel_ax.pcolormesh(x_edges, y_edges, values[i].T, cmap=cmap, vmin=vmin, vmax=vmax, **kwargs)
            panel_ax.set_title(labels[i], fontsize=9)
            if significant is not None:
                _outline(panel_ax, x_edges, y_edges, significant[i], Rectangle)
        fig.colorbar(mesh, ax=axes, label=name)
        fig.supxlabel("phase frequency (Hz)")
        fig.supylabel("amplitude frequency (Hz)")
        if subtitle:
            fig.suptitle(subtitle, fontsize=9)
        return fig

    if ax is None:
        fig, ax = plt.subplots(figsize=(5.5, 4.5))
    else:
        fig = ax.figure
    mean = values.mean(axis=0)
    mesh = ax.pcolormesh(x_edges, y_edges, mean.T, cmap=cmap, **kwargs)
    fig.colorbar(mesh, ax=ax, label=f"{name} (mean)")
    ax.set_xlabel("phase frequency (Hz)")
    ax.set_ylabel("amplitude frequency (Hz)")
    if significant is not None:
        _outline(ax, x_edges, y_edges, significant.sum(axis=0) >= rows_needed(significant.shape[0], alpha), Rectangle)
        ax.set_title(f"{subtitle}, in enough channels", fontsize=8)
    return fig


def _edges(bands: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Cell edges along an axis: halfway between neighbouring centres, the outer ones mirrored."""
    c = np.asarray(centres, dtype=float)
    if c.size == 1:
        return np.asarray([bands[0, 0], bands[0, 1]], dtype=float)
    mid = (c[1:] + c[:-1]) / 2
    return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])


def _outline(ax: Any, x_edges: np.ndarray, y_edges: np.ndarray, mask: np.ndarray, rectangle: Any) -> None:
    for i, j in zip(*np.nonzero(mask)):
        ax.add_patch(rectangle((x_edges[i], y_edges[j]), x_edges[i + 1] - x_edges[i], y_edges[j + 1] - y_edges[j],
                               fill=False, edgecolor="white", linewidth=1.5))
