"""The NumPy source: read in place (measured), named layouts, dtypes converted once, hostile input."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pacflow

BANDS = {"pha": [[4, 8]], "amp": [[60, 80]]}


def pac_of(x: np.ndarray, layout: str = "ECT", **source: object) -> tuple[pacflow.Pipeline, pacflow.Result]:
    pipeline = pacflow.Pipeline().source(x, fs=256, layout=layout, **source).stage("bandpass", **BANDS) \
        .stage("hilbert").stage("mi")
    return pipeline, pipeline.run(progress=False)


PEAK_GROWTH = textwrap.dedent("""
    import sys
    import numpy as np
    import pacflow
    def peak_rss():  # VmHWM: this process's own peak (getrusage's carries a forking parent's across exec)
        return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    def run(x):
        return (pacflow.Pipeline().source(x, fs=256, layout="ECT").stage("bandpass", pha=[[4, 8]], amp=[[60, 80]])
                .stage("hilbert").stage("mi").run(batch_size=16, in_flight=2, progress=False))
    # 32 MiB, every page touched, made once in either order (no transient copy raises the peak first)
    if sys.argv[1] == "fortran":
        x = np.random.default_rng(2).standard_normal((1024, 16, 512), dtype=np.float32).T
    else:
        x = np.random.default_rng(2).standard_normal((512, 16, 1024), dtype=np.float32)
    run(np.ascontiguousarray(x[:8]))  # threads, FFT plans and pools of this length made before measuring
    before = peak_rss()
    result = run(x)
    print(peak_rss() - before, result.pac.shape)
""")


def peak_growth(order: str) -> int:
    """How much a run on a 32 MiB array raises the peak memory of a fresh process, in bytes."""
    out = subprocess.run([sys.executable, "-c", PEAK_GROWTH, order], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def test_a_float32_c_contiguous_array_is_not_copied_measured() -> None:
    x = np.zeros((512, 16, 1024), dtype=np.float32)
    assert not pacflow.Pipeline().source(x, fs=256, layout="ECT").input_copied
    assert pacflow.Pipeline().source(np.asfortranarray(x), fs=256, layout="ECT").input_copied
    in_place, copied = peak_growth("c"), peak_growth("fortran")
    # The Fortran-ordered array is converted once: its run holds a second 32 MiB; the C-ordered one's does
    # not (it grows by the batches in flight: about 1 MiB).
    shown = f"peak growth {in_place / 2**20:.1f} MiB in place, {copied / 2**20:.1f} MiB when converted"
    assert in_place < 0.25 * x.nbytes, shown
    assert copied - in_place > 0.6 * x.nbytes, shown


def test_dtypes_read_in_place_and_the_rest_converted_once(signals: np.ndarray) -> None:
    _, reference = pac_of(signals)
    as_float64 = signals.astype(np.float64)
    pipeline, result = pac_of(as_float64)
    assert not pipeline.input_copied  # converted to float32 as each batch is read: the same values
    np.testing.assert_array_equal(result.pac, reference.pac)
    pipeline, result = pac_of(np.asfortranarray(signals))
    assert pipeline.input_copied
    np.testing.assert_array_equal(result.pac, reference.pac)
    pipeline, result = pac_of(signals.astype(">f4"))  # big-endian
    assert pipeline.input_copied
    np.testing.assert_array_equal(result.pac, reference.pac)
    integers = np.round(signals * 1000)
    _, from_int16 = pac_of(integers.astype(np.int16))
    pipeline, from_int64 = pac_of(integers.astype(np.int64))
    assert pipeline.input_copied
    np.testing.assert_array_equal(from_int64.pac, from_int16.pac)


def test_layouts_are_named_and_never_guessed(signals: np.ndarray) -> None:
    _, reference = pac_of(signals)
    _, time_first = pac_of(np.ascontiguousarray(signals.transpose(2, 0, 1)), layout="TEC")
    np.testing.assert_array_equal(time_first.pac, reference.pac)
    _, one_channel = pac_of(np.ascontiguousarray(signals[:, 0]), layout="et")
    assert one_channel.dims["pac"] == ("epochs", "channels", "phase_bands", "amplitude_bands")
    np.testing.assert_array_equal(one_channel.pac[:, 0], reference.pac[:, 0])
    with pytest.raises(ValueError, match="needs layout="):
        pacflow.Pipeline().source(signals, fs=256)
    with pytest.raises(ValueError, match=r"layout='ET' names 2 axes, but the array has 3"):
        pac_of(signals, layout="ET")
    with pytest.raises(ValueError, match="name each axis once"):
        pac_of(signals, layout="EXT")


def test_hostile_inputs_are_refused_clearly(signals: np.ndarray) -> None:
    with pytest.raises(TypeError, match="complex128"):
        pac_of(signals.astype(np.complex128))
    with pytest.raises(TypeError, match="dtype"):
        pac_of(np.array([["a", "b"]]), layout="CT")
    with pytest.raises(ValueError, match="holds no samples"):
        pac_of(np.zeros((2, 3, 0), dtype=np.float32))
    bad = signals.copy()
    bad[1, 2, 5] = np.nan
    with pytest.raises(ValueError, match=r"the array.*NaN at epoch 1, channel 2, sample 5"):
        pac_of(bad)
    with pytest.raises(ValueError, match="channel_names.*2 names for 3 channels"):
        pac_of(signals, channel_names=["a", "b"])
    with pytest.raises(ValueError, match="fs"):
        pacflow.Pipeline().source(signals, fs=-1, layout="ECT").stage("bandpass").run(progress=False)
    # nan_policy as for files: skipped series give NaN rows, with a warning
    _, skipped = pac_of(bad, nan_policy="skip")
    assert np.isnan(skipped.pac[1, 2]).all() and not np.isnan(skipped.pac[0]).any()
    assert any("skip" in w or "NaN" in w for w in skipped.warnings)
