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


# The p-values that test each statistic: a picture's outline comes from the test of its colour.
_TEST_OF = {"trial_z": "trial_pvalues", "trial_pac": "trial_pvalues", "contrast_z": "contrast_pvalues",
            "contrast_pac": "contrast_pvalues", "pac_z": "pvalues_maxstat", "pac": "pvalues_maxstat"}


def _statistic(result: "Result", name: str) -> tuple[str, str]:
    """What `name` is, in words (a title, naming the array), and its colour bar's label: the words the
    png sink's figures use."""
    measure = str(result.report.get("mi_measure") or "PAC")
    epochs = result.report.get("trial_epochs")
    over = f" over {epochs} epochs" if epochs else " over epochs"
    words = {
        "trial_z": (f"z-score of each channel's mean{over} against epoch permutations", "z-score"),
        "trial_pac": (f"each channel's mean {measure}{over}", measure),
        "trial_rank_z": (f"rank z-score of each channel's mean{over} against epoch permutations", "z-score"),
        "contrast_z": ("z-score of the contrast of the two conditions (first minus second)", "z-score"),
        "contrast_pac": (f"contrast of the two conditions' mean {measure} (first minus second)", measure),
        "pac_z": ("PAC z-score against surrogates", "z-score"),
        "pac": (str(result.report.get("mi_method_name") or measure), measure),
    }
    title, unit = words.get(name, (name, name))
    return f"{title} ({name})", unit


def _by_condition(result: "Result", name: str) -> list[tuple[str, np.ndarray, tuple[str, ...]]]:
    """`name` split along its conditions axis, each part with the condition's name; the whole array, with
    no name, when it has none."""
    array, dims = result[name], tuple(result.dims[name])
    if "conditions" not in dims[:-2]:
        return [("", array, dims)]
    axis = dims.index("conditions")
    names = [c["name"] for c in result.report.get("input", {}).get("conditions", [])]
    rest = dims[:axis] + dims[axis + 1:]
    return [(names[c] if c < len(names) else f"condition {c}", np.take(array, c, axis=axis), rest)
            for c in range(array.shape[axis])]


def _significant(result: "Result", name: str, alpha: float, condition: int) -> tuple[Optional[np.ndarray], str]:
    """The cells of statistic `name` significant in each channel (of `condition`, when its test has
    conditions), [channels][n_pha][n_amp], and what that means: the p-values of `name`'s own test
    (trial_pvalues for trial_z, contrast_pvalues for contrast_z, pvalues_maxstat for pac_z) below alpha,
    in enough of a channel's rows (epochs, segments) when it has several: a binomial test at alpha, as
    the png sink outlines them. None, with the reason, when the run has no test of `name`."""
    test = _TEST_OF.get(name)
    if test is None or test not in result.arrays:
        return None, f"no test of {name} in this run: no outlines"
    significance = result.significant(alpha, test)
    parts = _by_condition(result, test)
    _, part, dims = parts[min(condition, len(parts) - 1)]
    with np.errstate(invalid="ignore"):
        per = _per_channel(np.asarray(part < alpha), dims)
    if per is None:
        return None, f"{test} has no channels axis: no outlines"
    rows = per.shape[1]
    needed = rows_needed(rows, alpha)
    others = " × ".join(d for d in dims[:-2] if d not in ("channels", "pairs"))
    where = "" if rows == 1 else f" in at least {needed} of {rows} {others}"
    return per.sum(axis=1) >= needed, f"outlined: {test} < {alpha:g}{where} ({significance.correction})"


def plot_comodulogram(result: "Result", name: Optional[str] = None, *, per_channel: bool = False,
                      alpha: float = 0.05, ax: Any = None, cmap: str = "viridis", **kwargs: Any) -> Any:
    """Draw `result`'s comodulogram: the mean over channels, or one panel per channel; an array with
    conditions gets a panel (or a row of panels) per condition.

    One statistic per picture: the colour is `name` and the outline is `name`'s own test, both named
    in the title, as in the png sink's figures.

    Parameters
    ----------
    result : Result
        A run with ``pac`` (and, with surrogates, ``pac_z``).
    name : str, optional
        The array to draw; default the statistic of the p-values that outline the cells: ``trial_z``
        (each channel's mean over epochs against epoch permutations) when the run made the
        trial-level test, else ``pac_z`` when present, else ``pac``.
    per_channel : bool
        One panel per channel (or channel pair) instead of the mean over them. An array without a
        channel axis has no such panels: ValueError.
    alpha : float
        Cells significant at this level by `name`'s own test are outlined: ``trial_pvalues`` for
        ``trial_z`` and ``trial_pac``, ``contrast_pvalues`` for ``contrast_z``, ``pvalues_maxstat``
        (in enough epochs) for ``pac_z`` and ``pac``; in a mean panel, in enough channels (a binomial
        test at ``alpha``, as the png sink draws them). Any other array is drawn without outlines.
    ax : matplotlib Axes, optional
        Where to draw the mean (``per_channel=False``) of an array without conditions.
    **kwargs
        Passed to ``pcolormesh``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For an array that is not a comodulogram, ``per_channel=True`` on one without channels, or an
        `ax` for an array with several conditions.
    """
    import matplotlib.pyplot as plt

    name = name or _default_name(result)
    x_edges = _edges(result.pha_bands, result.f_pha)
    y_edges = _edges(result.amp_bands, result.f_amp)
    title, unit = _statistic(result, name)
    channel_names = result.channels
    # Each panel: its label, its values [n_pha][n_amp] and outlined cells (or None).
    panels: list[tuple[str, np.ndarray, Optional[np.ndarray]]] = []
    captions: list[str] = []
    for condition, (label, array, dims) in enumerate(_by_condition(result, name)):
        per = _per_channel(array, dims)
        if per_channel and per is None:
            raise ValueError(f"{name} has no channels axis (its dimensions: {', '.join(dims)}): it has no "
                             f"per-channel panels; draw it with per_channel=False")
        values = per.mean(axis=1) if per is not None else _cells(array, dims).mean(axis=0, keepdims=True)
        significant, subtitle = _significant(result, name, alpha, condition) if per is not None else (None, "")
        prefix = f"{label} · " if label else ""
        if per_channel:
            for i in range(values.shape[0]):
                channel = channel_names[i] if channel_names and i < len(channel_names) else f"channel {i}"
                panels.append((prefix + channel, values[i], None if significant is None else significant[i]))
            captions = [subtitle] if subtitle else []
            continue
        over = f"mean over {values.shape[0]} channels" if per is not None else f"mean over {', '.join(dims[:-2])}"
        mask = None
        if significant is not None:
            needed = rows_needed(significant.shape[0], alpha)
            mask = significant.sum(axis=0) >= needed
            subtitle += f", in at least {needed} of {significant.shape[0]} channels"
        panels.append((prefix + over, values.mean(axis=0), mask))
        captions = [subtitle] if subtitle else []

    n = len(panels)
    if ax is not None and (per_channel or n > 1):
        raise ValueError(f"ax holds one panel; this figure has {n}: leave ax out")
    if ax is not None:
        fig, axes = ax.figure, np.array([[ax]])
    else:
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(max(3.2 * cols, 6.0), 2.8 * rows + 1.2), squeeze=False,
                                 sharex=True, sharey=True, layout="constrained")
    vmin = np.nanmin([np.nanmin(v) for _, v, _ in panels])
    vmax = np.nanmax([np.nanmax(v) for _, v, _ in panels])
    for i, panel_ax in enumerate(axes.flat):
        if i >= n:
            panel_ax.set_visible(False)
            continue
        label, values, mask = panels[i]
        mesh = panel_ax.pcolormesh(x_edges, y_edges, values.T, cmap=cmap, vmin=vmin, vmax=vmax, **kwargs)
        panel_ax.set_title(label, fontsize=9)
        if mask is not None:
            _outline(panel_ax, x_edges, y_edges, mask)
    if n == 1 and not per_channel:  # one panel (perhaps on the caller's axes): labelled on it
        only = axes.flat[0]
        fig.colorbar(mesh, ax=only, label=unit)
        only.set_xlabel("phase frequency (Hz)")
        only.set_ylabel("amplitude frequency (Hz)")
        only.set_title("\n".join([title, panels[0][0]] + captions), fontsize=8)
        return fig
    fig.colorbar(mesh, ax=axes, label=unit)
    fig.supxlabel("phase frequency (Hz)")
    fig.supylabel("amplitude frequency (Hz)")
    fig.suptitle("\n".join([title] + captions), fontsize=9)
    return fig


def _edges(bands: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Cell edges along an axis: halfway between neighbouring centres, the outer ones mirrored."""
    c = np.asarray(centres, dtype=float)
    if c.size == 1:
        return np.asarray([bands[0, 0], bands[0, 1]], dtype=float)
    mid = (c[1:] + c[:-1]) / 2
    return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])


def _outline(ax: Any, x_edges: np.ndarray, y_edges: np.ndarray, mask: np.ndarray) -> None:
    """The contour of the significant cells, as the png sink draws it: the cell sides that border a
    cell outside the region (or the panel's edge), never a side two significant cells share; one
    LineCollection labelled with the number of cells it surrounds."""
    from matplotlib.collections import LineCollection

    mask = np.asarray(mask, dtype=bool)
    inside = np.pad(mask, 1)  # False around the panel
    segments = []
    for i, j in zip(*np.nonzero(mask)):
        x0, x1, y0, y1 = x_edges[i], x_edges[i + 1], y_edges[j], y_edges[j + 1]
        if not inside[i, j + 1]:
            segments.append([(x0, y0), (x0, y1)])  # left
        if not inside[i + 2, j + 1]:
            segments.append([(x1, y0), (x1, y1)])  # right
        if not inside[i + 1, j]:
            segments.append([(x0, y0), (x1, y0)])  # bottom
        if not inside[i + 1, j + 2]:
            segments.append([(x0, y1), (x1, y1)])  # top
    if segments:
        ax.add_collection(LineCollection(segments, colors="#e6194b", linewidths=2,
                                         label=f"{int(mask.sum())} significant cells"))
