"""pacflow: phase-amplitude coupling on a C++ dataflow engine, from Python.

>>> import pacflow
>>> result = pacflow.comodulogram(x, fs=512, f_pha="2:20:10", f_amp="60:160:10", n_perm=200)
>>> result.pac_z.shape          # (epochs, channels, phase_bands, amplitude_bands)
>>> result.plot()

See ``pacflow.Pipeline`` (the C++ DSL), ``pacflow.run`` (a ``.pipe`` file) and
``pacflow.tensorpac.Pac`` (a drop-in for TensorPAC's). docs/python.md has the details.
"""

from __future__ import annotations

import json
from typing import Any

from . import _core
from .comodulogram import comodulogram
from .dataset import Dataset
from .pipeline import Pipeline, merge, parse_set, run, run_shard
from .result import Result
from .significance import Significance
from .study import Study, study

__version__: str = _core.version()
__all__ = ["Dataset", "Pipeline", "Result", "Significance", "Study", "comodulogram", "devices", "elements", "merge",
           "parse_set", "run", "run_shard", "study", "__version__"]


def elements() -> dict[str, Any]:
    """Every source, stage and sink with its parameters (name, type, default, unit, allowed values,
    doc), and the placement parameters every stage takes, as ``pipeline_cli stages`` lists them."""
    return json.loads(_core.elements())


def devices() -> list[str]:
    """The devices of this machine, one line each, as ``pipeline_cli devices`` prints them."""
    return list(_core.devices())
