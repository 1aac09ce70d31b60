"""NumPy arrays as the engine reads them: named layouts, dtypes read in place, one conversion."""

from __future__ import annotations

from typing import Any

import numpy as np

#: The dtypes the engine reads in place (converted to float32 batch by batch as it reads them).
IN_PLACE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int16), np.dtype(np.int32))

_AXES = {"E": "epochs", "C": "channels", "S": "segments", "T": "times"}


def check_layout(layout: str, ndim: int) -> str:
    """Check that `layout` names each of an array's `ndim` axes once.

    Parameters
    ----------
    layout : str
        The axes in order, each one of ``E`` (epochs), ``C`` (channels), ``S`` (segments) and
        ``T`` (time), e.g. ``"ECT"`` (MNE's epochs), ``"ET"`` (TensorPAC's ``(n_epochs, n_times)``).
    ndim : int
        The array's number of dimensions.

    Returns
    -------
    str
        The layout, upper case.

    Raises
    ------
    ValueError
        When the layout is not such a string or does not have one letter per dimension.
    """
    if not isinstance(layout, str):
        raise TypeError(f"layout must be a string such as 'ECT', not {type(layout).__name__}")
    axes = layout.upper()
    bad = [a for a in axes if a not in _AXES]
    if bad or len(set(axes)) != len(axes) or "T" not in axes:
        raise ValueError(
            f"layout={layout!r}: name each axis once with E (epochs), C (channels), S (segments) and T (time), "
            "e.g. 'ECT', 'ET', 'CT', 'ECST'"
        )
    if len(axes) != ndim:
        raise ValueError(
            f"layout={layout!r} names {len(axes)} axes, but the array has {ndim} "
            f"({'; '.join(_AXES[a] for a in axes)} expected)"
        )
    return axes


def engine_array(x: Any, layout: str) -> tuple[np.ndarray, str, bool]:
    """Return `x` as the engine reads it, its checked layout, and whether it was copied.

    A C-contiguous float32, float64, int16 or int32 array in native byte order is returned as it is
    (the engine reads it in place, without a copy); anything else is converted once, to float32
    C order.

    Raises
    ------
    TypeError
        For complex, boolean, object or string data.
    ValueError
        For a layout that does not fit the array, or an empty array.
    """
    array = np.asarray(x)
    if array.dtype.kind not in "fiu":
        raise TypeError(
            f"the array's dtype is {array.dtype}; pacflow reads real-valued samples (float32, float64, int16 or "
            "int32; other real dtypes are converted to float32)"
        )
    axes = check_layout(layout, array.ndim)
    if array.size == 0:
        raise ValueError(f"the array of shape {array.shape} holds no samples")
    native = array.dtype.newbyteorder("=")
    if array.dtype in IN_PLACE_DTYPES and array.dtype.isnative and array.flags.c_contiguous:
        return array, axes, False
    if native in IN_PLACE_DTYPES and native.kind == "f":
        target = native  # float64 stays float64: the engine converts as it reads
    else:
        target = np.dtype(np.float32)
    return np.ascontiguousarray(array, dtype=target), axes, True
