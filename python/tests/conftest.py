"""Shared fixtures: the repository, the CLI built beside the module, coupled test signals."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(os.environ.get("PACFLOW_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir() -> Path:
    return SOURCE_DIR


@pytest.fixture(scope="session")
def cli() -> str:
    """pipeline_cli of the same build (CTest sets PACFLOW_CLI)."""
    path = os.environ.get("PACFLOW_CLI") or shutil.which("pipeline_cli") or str(SOURCE_DIR / "build/bin/pipeline_cli")
    if not Path(path).exists():
        pytest.skip(f"pipeline_cli not found at {path}; run through CTest, which sets PACFLOW_CLI")
    return path


def coupled(epochs: int = 6, channels: int = 3, n_times: int = 1024, fs: float = 256.0, f_pha: float = 6.0,
            f_amp: float = 70.0, seed: int = 0) -> np.ndarray:
    """float32 (epochs, channels, times): channel 0's f_amp amplitude follows the phase of a slow rhythm
    near f_pha whose frequency wanders (so a circular shift breaks the coupling, as in real data);
    the other channels have the same rhythms without coupling."""
    rng = np.random.default_rng(seed)
    drift = np.cumsum(rng.standard_normal((epochs, channels, n_times)), axis=-1)
    drift = 2.0 * drift / np.abs(drift).max(axis=-1, keepdims=True)  # within +-2 Hz
    phase = 2 * np.pi * np.cumsum(f_pha + drift, axis=-1) / fs
    slow = np.sin(phase)
    envelope = np.where(np.arange(channels)[None, :, None] == 0, 1 + slow, 1.0)
    t = np.arange(n_times) / fs
    x = slow + 0.4 * envelope * np.sin(2 * np.pi * f_amp * t) + 0.5 * rng.standard_normal((epochs, channels, n_times))
    return x.astype(np.float32)


@pytest.fixture
def signals() -> np.ndarray:
    return coupled()


def outlined_cells(ax: object) -> int:
    """The cells a comodulogram panel of Result.plot() outlines: its contour's label counts them."""
    for collection in ax.collections:  # type: ignore[attr-defined]
        label = str(collection.get_label())
        if label.endswith(" significant cells"):
            return int(label.split()[0])
    return 0
