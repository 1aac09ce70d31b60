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


def _cells(array: np.ndarray, dims: tuple[str, ...]) -> np.ndarray:
    """The array as [rows][n_pha][n_amp], whatever leads."""
    if dims[-2:] != ("phase_bands", "amplitude_bands"):
        raise ValueError(f"cannot draw an array of dimensions {dims} as a comodulogram")
    return array.reshape(-1, array.shape[-2], array.shape[-1])


def _significant(result: "Result", alpha: float) -> tuple[Optional[np.ndarray], str]:
    """The cells significant in each channel, [channels][n_pha][n_amp], and what that means: from
    trial_pvalues (the test of the mean over epochs) when the run has it, else from pvalues_maxstat
    below alpha in enough epochs (a binomial test at alpha, as the png sink outlines them)."""
    cells = ("phase_bands", "amplitude_bands")
    if "trial_pvalues" in result.arrays and result.dims["trial_pvalues"] == ("channels", *cells):
        return result["trial_pvalues"] < alpha, f"outlined: p of the mean over epochs < {alpha:g}"
    if "pvalues_maxstat" in result.arrays and result.dims["pvalues_maxstat"] == ("epochs", "channels", *cells):
        p = result["pvalues_maxstat"]
        return ((p < alpha).sum(axis=0) >= rows_needed(p.shape[0], alpha),
                f"outlined: corrected p < {alpha:g} in enough epochs")
    return None, ""


def plot_comodulogram(result: "Result", name: Optional[str] = None, *, per_channel: bool = False,
                      alpha: float = 0.05, ax: Any = None, cmap: str = "viridis", **kwargs: Any) -> Any:
    """Draw `result`'s comodulogram: the mean over epochs and channels, or one panel per channel.

    Parameters
    ----------
    result : Result
        A run with ``pac`` (and, with surrogates, ``pac_z``).
    name : str, optional
        The array to draw; default ``pac_z`` when present, else ``pac``.
    per_channel : bool
        One panel per channel (or channel pair) instead of the mean over them.
    alpha : float
        Cells significant at this level are outlined: ``trial_pvalues < alpha`` (the test of the mean
        over epochs) when the run has it, else ``pvalues_maxstat < alpha`` in enough epochs; in the
        mean panel, in enough channels (a binomial test at ``alpha``, as the png sink draws them).
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

    name = name or ("pac_z" if "pac_z" in result.arrays else "pac")
    array, dims = result[name], result.dims[name]
    x_edges = _edges(result.pha_bands, result.f_pha)
    y_edges = _edges(result.amp_bands, result.f_amp)
    channel_axis = 1 if dims[:2] in (("epochs", "channels"), ("epochs", "pairs")) else None
    if channel_axis is not None:
        per = np.moveaxis(array, channel_axis, 0)
        values = per.reshape(per.shape[0], -1, per.shape[-2], per.shape[-1]).mean(axis=1)  # [channels][pha][amp]
    else:
        values = _cells(array, dims).mean(axis=0, keepdims=True)
    significant, subtitle = _significant(result, alpha) if channel_axis is not None else (None, "")
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
