"""Pipelines from Python: the C++ DSL's calls (source, stage, sink, run) and .pipe files."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _core
from ._arrays import engine_array
from ._progress import ProgressBar, progress_callback
from .dataset import Dataset, dataset_of
from .result import Result

Progress = Union[bool, Callable[[int, int, float], None], None]


def _json_value(value: Any) -> Any:
    """Parameter values as JSON: NumPy scalars and arrays, tuples and paths included."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"a parameter value of type {type(value).__name__} cannot be passed to the engine")


def _non_finite(value: Any, where: str) -> Optional[str]:
    """Where in ``value`` a NaN or an infinity sits (``"fs"``, ``"elements[0].params.fs"``), else None."""
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return where
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _non_finite(item, f"{where}.{key}" if where else str(key))
            if found:
                return found
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _non_finite(item, f"{where}[{index}]")
            if found:
                return found
    return None


def _dumps(request: Mapping[str, Any]) -> str:
    """The request as JSON; a NaN or infinite parameter is refused here, naming it (JSON has no NaN)."""
    text = json.dumps(request, default=_json_value)
    if "NaN" in text or "Infinity" in text:
        loaded = json.loads(text)
        places = [(f"{element}.{key}", value) for element, key, value in loaded.get("set", [])]
        places += [(element.get("name", "element"), element.get("params")) for element in loaded.get("elements", [])]
        places.append(("", loaded))
        for name, value in places:
            where = _non_finite(value, name)
            if where:
                raise ValueError(f"{where}: a parameter must be a finite number, not NaN or infinity")
    return text


def _result(report_text: str, arrays: list, coordinates: list) -> Result:
    return Result(
        arrays={name: array for name, array, _, _ in arrays},
        dims={name: tuple(dims) for name, _, dims, _ in arrays},
        docs={name: doc for name, _, _, doc in arrays},
        coords={name: values for name, values, _, _ in coordinates},
        report=json.loads(report_text),
    )


class Pipeline:
    """A pipeline built call by call, as in C++ (``engine/api/pipeline.hpp``).

    Examples
    --------
    >>> import numpy as np, pacflow
    >>> x = np.random.default_rng(0).standard_normal((8, 4, 2048), dtype=np.float32)
    >>> result = (pacflow.Pipeline()
    ...           .source(x, fs=512, layout="ECT")
    ...           .stage("bandpass", pha="2:20:10", amp="60:160:10")
    ...           .stage("hilbert")
    ...           .stage("mi")
    ...           .stage("surrogates", n=200)
    ...           .run(progress=False))
    >>> result.pac_z.shape
    (8, 4, 10, 10)

    Elements and their parameters are those of ``pipeline_cli stages`` (:func:`pacflow.elements`).
    Results come back in memory as a :class:`Result`; files are written only by the sinks added
    with :meth:`sink` (``npy``, ``hdf5``, ``png``).
    """

    def __init__(self) -> None:
        self._elements: list[dict[str, Any]] = []
        self._sets: list[list[Any]] = []
        self._input: Optional[np.ndarray] = None
        self._input_copied = False

    # The DSL.
    def source(self, source: Any, /, **params: Any) -> "Pipeline":
        """Add the source: an element's name (``"synthetic"``, ``"npy"``, ``"edf"``, ``"hdf5"``) with its
        parameters, or an array with ``fs=`` and ``layout=`` (``"ET"``, ``"CT"``, ``"ECT"``, ``"ECST"``,
        never guessed), read in place when it is C-contiguous float32 (float64, int16, int32 too)."""
        if isinstance(source, str):
            return self._add("source", source, params)
        if "layout" not in params:
            raise ValueError("an array source needs layout=, e.g. 'ECT' (epochs, channels, times) or 'ET'")
        array, layout, copied = engine_array(source, params["layout"])
        self._input, self._input_copied = array, copied
        self._elements.append({"kind": "source", "name": "array", "params": {**params, "layout": layout}})
        return self

    def stage(self, name: str, /, **params: Any) -> "Pipeline":
        """Add a stage (``bandpass``, ``hilbert``, ``mi``, ``surrogates``, ``erpac``, …)."""
        return self._add("stage", name, params)

    def sink(self, name: str, /, **params: Any) -> "Pipeline":
        """Add a sink that writes files (``npy``, ``hdf5``, ``png``); results also come back in memory."""
        return self._add("sink", name, params)

    def _add(self, kind: str, name: str, params: dict[str, Any]) -> "Pipeline":
        _core.check_element(kind, name)  # an unknown name fails here, as in C++, with a suggestion
        self._elements.append({"kind": kind, "name": name, "params": params})
        return self

    def set(self, element: str, key: str, value: Any) -> "Pipeline":
        """Override or add one parameter of ``element`` (``"source"``, ``"sink"`` or a name)."""
        self._sets.append([element, key, value])
        return self

    @property
    def input_copied(self) -> bool:
        """Whether the array source had to be converted (a copy) to be read: False for a C-contiguous
        float32, float64, int16 or int32 array."""
        return self._input_copied

    def _request(self, **options: Any) -> dict[str, Any]:
        return {"elements": self._elements, "set": self._sets, **options}

    def run(self, *, devices: Optional[str] = None, fallback: Optional[str] = None, vram: Optional[str] = None,
            batch_size: int = 0, in_flight: int = 0, out: Optional[Union[str, os.PathLike]] = None,
            checkpoint: Optional[Union[str, os.PathLike]] = None, trace: Optional[Union[str, os.PathLike]] = None,
            max_memory: Optional[str] = None, clean: bool = False, progress: Progress = None) -> Result:
        """Run the pipeline and return its :class:`Result`.

        Parameters
        ----------
        devices : str, optional
            The device pool for stages without ``on=`` (``"cpu"``, ``"cpu:*"``, ``"cuda:0"``, ``"sim:0-7"``);
            a CPU pool also overrides stages placed on accelerators, as ``pipeline_cli run --devices``.
        fallback : {"none", "cpu"}, optional
            ``"cpu"`` runs stages placed on a GPU on the CPU when no GPU is visible.
        vram : str, optional
            Memory budget on every GPU (``"40GB"``, ``"0.8"``).
        batch_size, in_flight : int
            Series per batch and batches alive at once; 0 chooses.
        out : path, optional
            Every sink writes into this folder instead (``--out``).
        checkpoint, trace, max_memory, clean
            As ``pipeline_cli run --checkpoint --trace --max-memory --clean``.
        progress : bool or callable, optional
            A progress bar (tqdm) for runs longer than a second (the default), ``False`` for none, or a
            callable(batches_done, batches_total, elapsed_s). For a dataset (a manifest's recordings,
            each with its own batches) the two counts are the whole dataset's share done, in
            thousandths (``done / 1000``).

        Raises
        ------
        ValueError, FileNotFoundError
            Bad input, with the message ``pipeline_cli`` prints.
        RuntimeError
            The run failed.
        KeyboardInterrupt
            Ctrl-C: the run stops within a second and writes no file.
        """
        request = self._request(
            devices=devices, fallback=fallback, vram=vram, batch_size=batch_size, in_flight=in_flight,
            out=out, checkpoint=checkpoint, trace=trace, max_memory=max_memory, clean=clean, arrays=True)
        return _run(request, self._input, progress)

    def validate(self, *, batch_size: int = 0, in_flight: int = 0, devices: Optional[str] = None) -> dict[str, Any]:
        """Check the pipeline without running it; returns the plan (shapes, parameters, memory and run-time
        estimates) as ``pipeline_cli validate`` computes it."""
        request = self._request(batch_size=batch_size, in_flight=in_flight, devices=devices, arrays=True)
        return json.loads(_core.validate(_dumps(request), self._input, "the array"))

    def graph(self, *, batch_size: int = 0, in_flight: int = 0) -> str:
        """The pipeline as a Graphviz DOT digraph, as ``pipeline_cli graph`` draws it."""
        request = self._request(batch_size=batch_size, in_flight=in_flight, arrays=True)
        return _core.graph(_dumps(request), self._input, "the array")


def _run(request: dict[str, Any], input: Optional[np.ndarray], progress: Progress) -> Union[Result, Dataset]:
    report, arrays, coordinates = _waiting(
        lambda callback: _core.run(_dumps(request), input, "the array", callback, _command("pacflow.run")), progress)
    if arrays is None:  # a dataset: `coordinates` holds each recording's results
        return dataset_of(report, coordinates, _result)
    return _result(report, arrays, coordinates)


def run(pipe: Union[str, os.PathLike], *, set: Optional[Mapping[str, Any]] = None,
        out: Optional[Union[str, os.PathLike]] = None, devices: Optional[str] = None, fallback: Optional[str] = None,
        vram: Optional[str] = None, batch_size: int = 0, in_flight: int = 0,
        checkpoint: Optional[Union[str, os.PathLike]] = None, trace: Optional[Union[str, os.PathLike]] = None,
        max_memory: Optional[str] = None, clean: bool = False, progress: Progress = None) -> Union[Result, Dataset]:
    """Run a ``.pipe`` file, as ``pipeline_cli run`` does, and return its :class:`Result`.

    A file whose source is ``manifest`` (a dataset: one recording per row of a table) runs once per
    recording, as ``pipeline_cli run`` runs it, and returns a :class:`Dataset`: each recording's
    Result by its id, and ``Dataset.stack(name)``.

    Parameters
    ----------
    pipe : path
        The ``.pipe`` file; its sinks write their files as they would from the CLI (into ``out`` when
        given).
    set : mapping, optional
        Overrides, ``{"surrogates.n": 1000, "source.path": "x.npy"}`` (``--set NAME.key=value``).
    out, devices, fallback, vram, batch_size, in_flight, checkpoint, trace, max_memory, clean, progress
        As for :meth:`Pipeline.run`.
    """
    request = {"pipe": os.fspath(Path(pipe)), "set": _overrides(set), "out": out, "devices": devices,
               "fallback": fallback, "vram": vram, "batch_size": batch_size, "in_flight": in_flight,
               "checkpoint": checkpoint, "trace": trace, "max_memory": max_memory, "clean": clean, "arrays": True}
    return _run(request, None, progress)


def _overrides(set: Optional[Mapping[str, Any]]) -> list[list[Any]]:
    """``{"surrogates.n": 1000}`` as the request's ``[element, key, value]`` triples."""
    sets = []
    for name, value in (set or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"set: keys are 'NAME.key' strings (e.g. 'surrogates.n'), not {name!r}")
        element, dot, key = name.partition(".")
        if not dot or not element or not key:
            raise ValueError(f"set: {name!r} is not NAME.key (e.g. 'surrogates.n')")
        sets.append([element, key, value])
    return sets


def parse_set(text: str) -> tuple[str, Any]:
    """One ``NAME.key=value`` override read as ``pipeline_cli run --set`` reads it.

    The value follows the ``.pipe`` grammar: ``[a,b]`` is a list, ``"a b"`` a string, ``12`` a number.

    Returns
    -------
    name : str
        ``"NAME.key"``, a key of :func:`run`'s ``set``.
    value : object
        The value, as the engine reads it.
    """
    element, key, value = _core.parse_set(text)
    return f"{element}.{key}", json.loads(value)


def run_shard(pipe: Union[str, os.PathLike], shard: str, out: Union[str, os.PathLike], *,
              set: Optional[Mapping[str, Any]] = None, devices: Optional[str] = None, fallback: Optional[str] = None,
              vram: Optional[str] = None, batch_size: int = 0, in_flight: int = 0, max_memory: Optional[str] = None,
              progress: Progress = None) -> dict[str, Any]:
    """Compute one share of a ``.pipe`` file's run, as ``pipeline_cli run --shard i/N --out DIR``.

    Share ``i`` of ``N`` is the run's batches ``i, i + N, …`` (a dataset's recordings ``i, i + N, …``),
    written into ``out`` with what identifies the run; :func:`merge` assembles the shards into the
    files one run writes. A job array runs one share per task.

    Parameters
    ----------
    pipe : path
        The ``.pipe`` file.
    shard : str
        ``"i/N"``, ``0 <= i < N``.
    out : path
        The shard's folder (created and locked; an earlier shard there is replaced when this one is done).
    set, devices, fallback, vram, batch_size, in_flight, max_memory, progress
        As for :func:`run`; every shard of a run must be given the same.

    Returns
    -------
    dict
        The shard's report.
    """
    request = {"pipe": os.fspath(Path(pipe)), "set": _overrides(set), "out": os.fspath(out), "devices": devices,
               "fallback": fallback, "vram": vram, "batch_size": batch_size, "in_flight": in_flight,
               "max_memory": max_memory, "arrays": False}
    report = _waiting(lambda callback: _core.shard(_dumps(request), shard, callback, _command("pacflow.run_shard")),
                      progress)
    return dict(json.loads(report))


def merge(out: Union[str, os.PathLike], shards: Sequence[Union[str, os.PathLike]], *,
          progress: Progress = None) -> dict[str, Any]:
    """Assemble one run's outputs from its shards, as ``pipeline_cli merge OUT SHARD…``.

    Parameters
    ----------
    out : path
        Where the run's outputs go (every sink's files, as ``run(..., out=...)``).
    shards : sequence of path
        The shards' folders, every ``i`` of ``N`` once.

    Returns
    -------
    dict
        The merged run's report (its result.json). A shard missing, damaged or of another run raises
        ValueError naming it, and leaves ``out`` as it was.
    """
    folders = [os.fspath(s) for s in shards]
    report = _waiting(lambda callback: _core.merge(os.fspath(out), folders, callback, _command("pacflow.merge")),
                      progress)
    return dict(json.loads(report))


def _command(name: str) -> list[str]:
    return ["python", *sys.argv[:1], name]


def _waiting(call: Any, progress: Progress) -> Any:
    """Runs ``call(callback)`` with the progress callback, closing a progress bar afterwards."""
    callback = progress_callback(progress)
    try:
        return call(callback)
    finally:
        if isinstance(callback, ProgressBar):
            callback.close()
