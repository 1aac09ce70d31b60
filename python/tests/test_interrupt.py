"""Notebook manners: Ctrl-C stops a run within a second and leaves no file; the GIL is released."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np

import pacflow

LONG_RUN = textwrap.dedent("""
    import sys, time
    import numpy as np
    import pacflow
    x = np.random.default_rng(0).standard_normal((400, 8, 4096), dtype=np.float32)
    pipeline = (pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert")
                .stage("mi").stage("surrogates", n=400).sink("npy", dir=sys.argv[1]))
    print("started", flush=True)
    try:
        pipeline.run(batch_size=8, progress=False)
    except KeyboardInterrupt:
        print(f"interrupted {time.time()!r}", flush=True)
        sys.exit(130)
    print("finished", flush=True)
""")


def test_ctrl_c_stops_the_run_within_a_second_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    child = subprocess.Popen([sys.executable, "-c", LONG_RUN, str(out)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "started"
    time.sleep(2.0)  # well into the run
    sent = time.time()
    child.send_signal(signal.SIGINT)
    stdout, _ = child.communicate(timeout=30)
    assert child.returncode == 130, stdout
    stopped = float(stdout.split()[1])
    assert stopped - sent < 1.0, f"KeyboardInterrupt {stopped - sent:.2f} s after SIGINT"
    assert not out.exists() or not any(out.iterdir()), list(out.iterdir())


def test_the_gil_is_released_while_the_engine_runs() -> None:
    x = np.random.default_rng(0).standard_normal((64, 8, 4096), dtype=np.float32)
    pipeline = pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert").stage("mi") \
        .stage("surrogates", n=100)
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.monotonic()
    try:
        pipeline.run(progress=False)
    finally:
        done.set()
        counter.join()
    elapsed = time.monotonic() - start
    assert elapsed > 0.2, "the run was too short to tell"
    assert ticks > elapsed * 100, f"{ticks} ticks in {elapsed:.2f} s: Python was held while the engine ran"


def test_progress_is_reported_to_a_callable() -> None:
    x = np.random.default_rng(0).standard_normal((64, 8, 4096), dtype=np.float32)
    seen: list[tuple[int, int]] = []
    pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert").stage("mi") \
        .stage("surrogates", n=100).run(batch_size=8, progress=lambda done, total, s: seen.append((done, total)))
    assert seen, "no progress reported"
    totals = {total for _, total in seen}
    assert len(totals) == 1 and all(0 < done <= total for done, total in seen) and seen == sorted(seen)


def test_an_exception_in_the_progress_callable_stops_the_run() -> None:
    x = np.random.default_rng(0).standard_normal((64, 8, 4096), dtype=np.float32)

    def fail(done: int, total: int, elapsed: float) -> None:
        raise RuntimeError("stop here")

    try:
        pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert").stage("mi") \
            .stage("surrogates", n=100).run(batch_size=8, progress=fail)
    except RuntimeError as e:
        assert "stop here" in str(e)
    else:
        raise AssertionError("the callable's exception was lost")


def test_a_short_run_reports_its_end_and_raises_what_the_callable_raises() -> None:
    x = np.random.default_rng(0).standard_normal((2, 2, 1024), dtype=np.float32)
    seen: list[tuple[int, int]] = []
    pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert").stage("mi") \
        .run(progress=lambda done, total, s: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1], f"the end was not reported: {seen}"

    def fail(done: int, total: int, elapsed: float) -> None:
        raise RuntimeError("stop here")

    try:
        pacflow.Pipeline().source(x, fs=512, layout="ECT").stage("bandpass").stage("hilbert").stage("mi") \
            .run(progress=fail)
    except RuntimeError as e:
        assert "stop here" in str(e)
    else:
        raise AssertionError("the callable's exception was swallowed")
