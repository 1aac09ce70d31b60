"""`comodulogram`: PAC of an array or an MNE object in the words TensorPAC and MNE users know."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from ._bands import band_spec
from .pipeline import Pipeline, Progress
from .result import Result

#: ``method=`` names, and TensorPAC's ``idpac[0]`` numbers, of the mi stage's measures.
METHODS = {"mvl": "mvl", "tort": "tort", "mi": "tort", "hr": "hr", "ndpac": "ndpac", "plv": "plv", "gc": "gc",
           "gcpac": "gc", 1: "mvl", 2: "tort", 3: "hr", 4: "ndpac", 5: "plv", 6: "gc"}


def _from_mne(inst: Any, picks: Any) -> tuple[np.ndarray, float, list[str], str]:
    """Data, sample rate, channel names and layout of an ``mne.Epochs`` (ECT) or ``mne.io.Raw`` (CT)."""
    index = _picked(inst, picks)
    data = inst.get_data(picks=index)
    names = [inst.ch_names[i] for i in index]
    layout = "ECT" if data.ndim == 3 else "CT"
    return data, float(inst.info["sfreq"]), names, layout


def _epoch_conditions(inst: Any, conditions: Union[bool, Sequence[str]]) -> tuple[np.ndarray, list[str], list[str]]:
    """Which of an ``mne.Epochs``' epochs are in `conditions` (its event_id names; True: every one present,
    in event_id's order), each kept epoch's name, and the names' order."""
    names_of = {code: name for name, code in inst.event_id.items()}
    codes = np.asarray(inst.events)[:, 2]
    if conditions is True:
        present = set(codes.tolist())
        order = [name for name, code in inst.event_id.items() if code in present]
    else:
        order = list(conditions)
        unknown = [name for name in order if name not in inst.event_id]
        if unknown:
            raise ValueError(f"conditions: {', '.join(map(repr, unknown))} not in the epochs' event_id "
                             f"({', '.join(inst.event_id)})")
    keep = np.array([names_of.get(int(code)) in order for code in codes], dtype=bool)
    if not keep.any():
        raise ValueError(f"conditions: no epoch is in {', '.join(order)}")
    return keep, [names_of[int(code)] for code in codes[keep]], order


def _refuse_bad_annotations(raw: Any) -> None:
    """A continuous recording marked ``BAD_…`` is not read whole, as the edf source drops such stretches."""
    bad = [a for a in getattr(raw, "annotations", []) if str(a["description"]).upper().startswith("BAD")]
    if bad:
        seconds = sum(float(a["duration"]) for a in bad)
        raise ValueError(
            f"the recording has {len(bad)} BAD annotation{'s' if len(bad) > 1 else ''} ({seconds:.3g} s): cut epochs "
            "that leave them out, e.g. mne.make_fixed_length_epochs(raw, duration=4, reject_by_annotation=True), or "
            "pass reject_by_annotation=False to use every sample")


def _picked(inst: Any, picks: Any) -> list[int]:
    """The channel indices `picks` selects, as ``get_data(picks=...)`` selects them."""
    try:  # MNE >= 1.6
        from mne._fiff.pick import _picks_to_idx
    except ImportError:
        from mne.io.pick import _picks_to_idx
    # As get_data() reads them: every channel for None, MNE's own selection (bads left out) otherwise.
    return list(_picks_to_idx(inst.info, picks, "all", exclude=()) if picks is None else _picks_to_idx(inst.info, picks))


def _is_mne(x: Any) -> bool:
    return hasattr(x, "get_data") and hasattr(x, "info") and hasattr(x, "ch_names")


def comodulogram(x: Any, fs: Optional[float] = None, *, f_pha: Any = "2:20:10", f_amp: Any = "60:160:10",
                 method: Union[str, int] = "tort", n_perm: int = 200, random_state: int = 0,
                 surrogates: str = "timeshift", norm: str = "z", n_bins: int = 18, layout: str = "ECT",
                 picks: Any = None, channel_names: Optional[Sequence[str]] = None,
                 conditions: Union[None, bool, Sequence[Any]] = None, reject_by_annotation: bool = True,
                 devices: Optional[str] = None, progress: Progress = None, **params: Any) -> Result:
    """Phase-amplitude coupling of every channel, for a grid of phase and amplitude bands.

    Parameters
    ----------
    x : array_like or mne.Epochs or mne.io.Raw
        The data: an array whose axes `layout` names, or an MNE object (its data, ``sfreq``, channel
        names and `picks`; epochs are ``"ECT"``, a raw recording ``"CT"``).
    fs : float
        Sample rate in Hz (taken from ``info["sfreq"]`` for an MNE object).
    f_pha, f_amp : str or array_like
        Phase and amplitude bands: ``"lo:hi:n"``, ``"log:lo:hi:n"``, TensorPAC's ``(start, stop, width,
        step)``, presets (``"lres"``, ``"mres"``, ``"hres"``, ``"demon"``, ``"hulk"``), ``[[lo, hi], ...]``.
    method : str or int
        ``"tort"`` (Tort's modulation index), ``"mvl"``, ``"hr"``, ``"ndpac"``, ``"plv"``, ``"gc"``, or
        TensorPAC's ``idpac[0]`` number (1-6).
    n_perm : int
        Surrogates per series (z-scores, p-values); 0 for none.
    random_state : int
        Seed of the surrogates (the same seed gives the same numbers on any device or batch size).
    surrogates : {"timeshift", "timelag", "swap_trials"}
        How surrogates are made (docs/methods.md).
    norm : {"z", "subtract", "divide", "both"}
        The normalisation by the surrogates (TensorPAC's ``idpac[2]``).
    n_bins : int
        Phase bins (tort, hr).
    layout : str
        The array's axes, e.g. ``"ECT"`` (epochs, channels, times), ``"ET"``, ``"CT"``, ``"ECST"``.
    picks : optional
        MNE's picks, for an MNE object.
    channel_names : sequence of str, optional
        A name for each channel (taken from an MNE object).
    conditions : True or sequence, optional
        The epochs' conditions: for ``mne.Epochs``, event_id names (the epochs of those events, in that
        order; ``True``: every event present), for an array one label per epoch. Each condition's
        epochs get their own trial-level test (``trial_pvalues`` with a leading ``conditions`` axis) and,
        with two, their contrast (``contrast_z``, ``contrast_pvalues``: the first minus the second), as
        the edf source's ``events=`` gives them.
    reject_by_annotation : bool
        For ``mne.io.Raw``: refuse a recording with ``BAD_`` annotations (True, the default; cut epochs
        that leave them out) or use every sample (False).
    devices : str, optional
        Device pool: ``"cpu"``, ``"cpu:*"``, ``"cuda:0"``, ``"cuda:*"``.
    progress : bool or callable, optional
        A progress bar for runs longer than a second (default), ``False`` for none.
    **params
        Further parameters as ``"stage__param"``: ``mi__pairs="all"``, ``surrogates__min_shift="1s"``,
        ``bandpass__pha_cycles=3``, ``source__pad="0.5s"``.

    Returns
    -------
    Result
        ``pac`` ``(epochs, channels, phase_bands, amplitude_bands)``, with surrogates also ``pac_z``,
        ``pvalues``, ``trial_pvalues`` …; ``result.f_pha``, ``result.f_amp`` the band centres.
    """
    labels: Optional[list[str]] = None
    order: Optional[list[str]] = None
    if _is_mne(x):
        inst = x
        if hasattr(inst, "event_id") and conditions is not None and conditions is not False:
            keep, labels, order = _epoch_conditions(inst, conditions)
            inst = inst[np.flatnonzero(keep)]
        elif conditions is not None and conditions is not False:
            raise ValueError("conditions= needs mne.Epochs (events), or an array with one label per epoch")
        if not hasattr(inst, "event_id") and reject_by_annotation:
            _refuse_bad_annotations(inst)
        x, fs, names, layout = _from_mne(inst, picks)
        channel_names = channel_names or names
    elif conditions is not None and conditions is not False:
        labels = [str(c) if not isinstance(c, (int, np.integer)) else int(c) for c in conditions]
    elif picks is not None:
        raise ValueError("picks= selects channels of an MNE object; index the array instead")
    if fs is None:
        raise ValueError("fs= (the sample rate in Hz) is needed for an array")
    try:
        measure = METHODS[method.lower() if isinstance(method, str) else method]
    except KeyError:
        raise ValueError(f"method={method!r}: use one of tort, mvl, hr, ndpac, plv, gc (or 1-6)") from None
    by_element: dict[str, dict[str, Any]] = {"source": {}, "bandpass": {}, "hilbert": {}, "envelope_phase": {},
                                             "mi": {}, "surrogates": {}}
    for key, value in params.items():
        element, sep, name = key.partition("__")
        if not sep or element not in by_element:
            raise TypeError(f"comodulogram() got an unexpected keyword argument {key!r} (further parameters are "
                            f"written element__param, element one of {', '.join(by_element)})")
        by_element[element][name] = value
    source = {"fs": fs, "layout": layout, **by_element["source"]}
    if channel_names is not None:
        source["channel_names"] = list(channel_names)
    if labels is not None:
        source["conditions"] = labels
        if order is not None:
            source["condition_names"] = order
    pipeline = (Pipeline()
                .source(x, **source)
                .stage("bandpass", pha=band_spec(f_pha, "f_pha"), amp=band_spec(f_amp, "f_amp"),
                       **by_element["bandpass"])
                .stage("hilbert", **by_element["hilbert"]))
    if measure == "plv":
        pipeline.stage("envelope_phase", **by_element["envelope_phase"])
    pipeline.stage("mi", method=measure, bins=n_bins, **by_element["mi"])
    if n_perm:
        pipeline.stage("surrogates", n=n_perm, seed=random_state, method=surrogates, norm=norm,
                       **by_element["surrogates"])
    return pipeline.run(devices=devices, progress=progress)
