"""Frequency bands in the forms TensorPAC users write, as the bandpass stage's specifications."""

from __future__ import annotations

from typing import Any, Union

import numpy as np

BandSpec = Union[str, list]


def band_spec(f: Any, name: str) -> BandSpec:
    """The bandpass stage's specification for `f`.

    Strings pass through (``"2:20:10"``, ``"log:2:20:10"``, ``"2:20:2:1"`` and TensorPAC's presets
    ``"lres"``, ``"mres"``, ``"hres"``, ``"demon"``, ``"hulk"``). Otherwise TensorPAC's forms
    (``tensorpac.utils.pac_vec``): ``(start, stop, width, step)``; ``[lo, hi]`` (one band);
    ``[[lo, hi], ...]`` or its transpose; a sequence of three or more edges ``[2, 4, 6, 8]``
    (consecutive bands, sorted).

    Raises
    ------
    ValueError
        For a single frequency, or values that are not numbers.
    """
    if isinstance(f, str):
        return f
    try:
        a = np.atleast_2d(np.asarray(f, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(f"{name}={f!r}: give bands as [[lo, hi], ...], (start, stop, width, step) or a string "
                         "such as '2:20:10'") from None
    if a.size < 2 or a.ndim != 2:
        raise ValueError(f"{name}={f!r}: at least one band [lo, hi] is needed")
    if 2 in a.shape:
        pairs = a if a.shape[1] == 2 else a.T
        return pairs.tolist()
    flat = a.reshape(-1)
    if flat.size == 4:
        start, stop, width, step = (float(v) for v in flat)
        return f"{start:g}:{stop:g}:{width:g}:{step:g}"
    edges = np.sort(flat)
    return np.c_[edges[:-1], edges[1:]].tolist()
