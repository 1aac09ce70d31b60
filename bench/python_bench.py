"""Times pacflow from Python against TensorPAC and against pipeline_cli, side by side in one run.

1. ``pacflow.tensorpac.Pac.filterfit`` against ``tensorpac.Pac.filterfit`` on W1-shaped data: 8 epochs
   x 16 channels x 2048 samples at 512 Hz as TensorPAC's (n_epochs, n_times) = (128, 2048), 10 phase x
   11 amplitude bands, Tort's MI, 200 time-shift (swap-block) surrogates, z-scores: idpac (2, 2, 4);
   and a whole ``pipeline_cli run pipelines/bench/w1.pipe`` (the trial-level test on) against the same.
2. Python's overhead over the CLI on W1 (pipelines/bench/w1.pipe): ``pacflow.run`` in a warm process
   against a whole ``pipeline_cli run`` (each writing the same files), interleaved, medians.
3. TensorPAC's real-data tutorial (examples/tuto/plot_real_data.py) on its shapes, 160 trials of 4000
   samples at 1000 Hz, each path as the tutorial calls it: ``Pac.filter`` (phases, amplitudes) then
   ``Pac.fit`` over rest, planning and execution, then ``fit`` with 200 surrogates and
   ``infer_pvalues`` (idpac (6, 2, 0), 25 x 25 bands); ``EventRelatedPac.filterfit(method="gc",
   smooth=100)`` (alpha against 50 gamma bands); ``PreferredPhase`` ``filter`` + ``fit(n_bins=72)`` on
   the tutorial's bands and on the gallery's (130 amplitude bands).

Usage (from the repository root, after tools/setup.sh):
    .venv/bin/python bench/python_bench.py [--repeats 7] [--tensorpac-repeats 1] [--only cli w1 tutorial]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import pacflow
import pacflow.tensorpac
from pacflow.tensorpac import Pac

ROOT = Path(__file__).resolve().parents[1]
SF = 512.0
F_PHA = [[c - c / 4, c + c / 4] for c in np.linspace(2, 20, 10)]
F_AMP = [[c - c / 8, c + c / 8] for c in np.linspace(60, 160, 11)]


def w1_shaped(seed: int = 1) -> np.ndarray:
    """(128, 2048) float64 series: a wandering 6 Hz rhythm whose phase drives 80 Hz bursts, in noise."""
    rng = np.random.default_rng(seed)
    n, t = 128, 2048
    drift = np.cumsum(rng.standard_normal((n, t)), axis=-1)
    phase = 2 * np.pi * np.cumsum(6 + 2 * drift / np.abs(drift).max(axis=-1, keepdims=True), axis=-1) / SF
    slow = np.sin(phase)
    return slow + 0.4 * (1 + slow) * np.sin(2 * np.pi * 80 * np.arange(t) / SF) + rng.standard_normal((n, t))


def seconds(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def against_tensorpac(repeats: int, tensorpac_repeats: int) -> None:
    import tensorpac

    x = w1_shaped()
    kw = dict(idpac=(2, 2, 4), f_pha=F_PHA, f_amp=F_AMP)
    ours = Pac(**kw)
    theirs = tensorpac.Pac(**kw, verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.filterfit(SF, x, n_perm=200, random_state=0)  # warm: threads, FFT plans
        pacflow_s = [seconds(lambda: ours.filterfit(SF, x, n_perm=200, random_state=0)) for _ in range(repeats)]
        tensorpac_s = [seconds(lambda: theirs.filterfit(SF, x, n_perm=200, random_state=0, n_jobs=-1, verbose=False))
                       for _ in range(tensorpac_repeats)]
    a, b = statistics.median(pacflow_s), statistics.median(tensorpac_s)
    print(f"| Pac.filterfit, (128, 2048), 10 x 11 bands, idpac (2, 2, 4), 200 surrogates | {b:.2f} s "
          f"({len(tensorpac_s)} run{'s' if len(tensorpac_s) > 1 else ''}) | {a:.3f} s ({len(pacflow_s)} runs) | "
          f"{b / a:.0f}x |")
    # W1 as users run it: a whole pipeline_cli process on w1.pipe (10 x 10 bands, 200 surrogates,
    # the trial-level test on, every file written), against the same TensorPAC call.
    cli = os.environ.get("PACFLOW_CLI", str(ROOT / "build/bin/pipeline_cli"))
    with tempfile.TemporaryDirectory() as out:
        def w1_cli() -> None:
            subprocess.run([cli, "run", "-q", "--out", out, str(ROOT / "pipelines/bench/w1.pipe")], check=True,
                           stderr=subprocess.DEVNULL)

        w1_cli()
        cli_s = [seconds(w1_cli) for _ in range(repeats)]
    c = statistics.median(cli_s)
    print(f"| W1 as a pipeline: a whole `pipeline_cli run pipelines/bench/w1.pipe` (trial-level test on) against "
          f"the TensorPAC call above | {b:.2f} s | {c:.3f} s (CLI, {len(cli_s)} runs) | {b / c:.0f}x |")


def tutorial_shaped(seed: int = 2) -> np.ndarray:
    """(160, 4000) float64 at 1000 Hz: a 10 Hz rhythm of random phase per trial whose peaks carry 90 Hz
    bursts, in noise (the tutorial's sEEG contact has alpha-gamma coupling)."""
    rng = np.random.default_rng(seed)
    t = np.arange(4000) / 1000.0
    slow = np.sin(2 * np.pi * 10 * t + rng.uniform(0, 2 * np.pi, (160, 1)))
    return rng.standard_normal((160, 4000)) + slow + 0.3 * (1 + slow) * np.sin(2 * np.pi * 90 * t)


def tutorial_paths(module) -> dict:
    """The tutorial's calls on `module` (tensorpac or pacflow.tensorpac), each a function of the data."""
    sf = 1000.0

    def filter_fit(x: np.ndarray) -> None:
        p = module.Pac(idpac=(6, 0, 0), f_pha=(6, 15, 4, .2), f_amp=(50, 120, 20, 2))
        pha, amp = p.filter(sf, x, ftype="phase"), p.filter(sf, x, ftype="amplitude")
        for window in (slice(0, 1000), slice(1000, 2500), slice(2500, 4000)):
            p.fit(pha[..., window], amp[..., window]).mean(-1)
        p.idpac = (6, 2, 0)
        p.fit(pha[..., 1000:2500], amp[..., 1000:2500], n_perm=200, random_state=0)
        p.infer_pvalues(p=0.05, mcp="maxstat")

    def erpac(x: np.ndarray) -> None:
        module.EventRelatedPac(f_pha=[8, 12], f_amp=(30, 160, 30, 2)).filterfit(sf, x, method="gc", smooth=100)

    def preferred_phase(f_pha, f_amp):
        def run(x: np.ndarray) -> None:
            p = module.PreferredPhase(f_pha=f_pha, f_amp=f_amp)
            p.fit(p.filter(sf, x, ftype="phase"), p.filter(sf, x, ftype="amplitude"), n_bins=72)
        return run

    return {"Pac.filter + Pac.fit (3 windows, then 200 surrogates + infer_pvalues), idpac (6, 0/2, 0), 25 x 25 bands":
            filter_fit,
            "EventRelatedPac.filterfit(method='gc', smooth=100), [8, 12] x 50 bands": erpac,
            "PreferredPhase filter + fit(n_bins=72), [8, 12] x 25 bands (the tutorial's)":
            preferred_phase([8, 12], (50, 120, 20, 2)),
            "PreferredPhase filter + fit(n_bins=72), [5, 7] x 130 bands (the gallery's)":
            preferred_phase([5, 7], (60, 200, 10, 1))}


def against_tensorpac_tutorial(repeats: int, tensorpac_repeats: int) -> None:
    import tensorpac

    x = tutorial_shaped()
    ours, theirs = tutorial_paths(pacflow.tensorpac), tutorial_paths(tensorpac)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, path in ours.items():
            path(x)  # warm: threads, FFT plans
            pacflow_s = [seconds(lambda: path(x)) for _ in range(repeats)]
            tensorpac_s = [seconds(lambda: quiet(theirs[name], x)) for _ in range(tensorpac_repeats)]
            a, b = statistics.median(pacflow_s), statistics.median(tensorpac_s)
            print(f"| tutorial, (160, 4000) at 1000 Hz: {name} | {b:.2f} s ({len(tensorpac_s)} run"
                  f"{'s' if len(tensorpac_s) > 1 else ''}) | {a:.3f} s ({len(pacflow_s)} runs) | {b / a:.0f}x |",
                  flush=True)


def quiet(call, *args) -> None:
    """TensorPAC prints what it computes: kept off the table."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        call(*args)


def overhead_over_cli(repeats: int) -> None:
    cli = os.environ.get("PACFLOW_CLI", str(ROOT / "build/bin/pipeline_cli"))
    pipe = ROOT / "pipelines/bench/w1.pipe"
    with tempfile.TemporaryDirectory() as out:
        def from_cli() -> None:
            subprocess.run([cli, "run", "-q", "--out", f"{out}/cli", str(pipe)], check=True, stderr=subprocess.DEVNULL)

        def from_python() -> None:
            pacflow.run(pipe, out=f"{out}/py", progress=False)

        def from_python_process() -> None:
            subprocess.run([sys.executable, "-m", "pacflow", "run", "-q", "--out", f"{out}/module", str(pipe)],
                           check=True, stderr=subprocess.DEVNULL)

        from_cli(), from_python(), from_python_process()  # warm all three
        cli_s, py_s, module_s = [], [], []
        for _ in range(repeats):
            cli_s.append(seconds(from_cli))
            py_s.append(seconds(from_python))
            module_s.append(seconds(from_python_process))
        a, b, c = statistics.median(cli_s), statistics.median(py_s), statistics.median(module_s)
        identical = all((Path(out) / "cli" / f.name).read_bytes() == f.read_bytes() ==
                        (Path(out) / "module" / f.name).read_bytes() for f in (Path(out) / "py").glob("*.npy"))
    print(f"| W1: pacflow.run in a warm process (a notebook) vs a whole pipeline_cli run | {a:.3f} s | {b:.3f} s | "
          f"{100 * (b - a) / a:+.1f} % (arrays {'identical' if identical else 'DIFFER'}) |")
    print(f"| W1: a whole `python -m pacflow run` (interpreter and NumPy start included) vs a whole pipeline_cli run "
          f"| {a:.3f} s | {c:.3f} s | {100 * (c - a) / a:+.1f} % |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7, help="pacflow runs per measurement (median)")
    parser.add_argument("--tensorpac-repeats", type=int, default=1, help="TensorPAC runs (each takes about a minute)")
    parser.add_argument("--only", nargs="+", choices=("cli", "w1", "tutorial"), default=["cli", "w1", "tutorial"],
                        help="the measurements to run (default: all)")
    args = parser.parse_args()
    print(f"<!-- {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, pacflow {pacflow.__version__} -->")
    print("| what | TensorPAC / CLI | pacflow (Python) | ratio |")
    print("| --- | --- | --- | --- |")
    if "cli" in args.only:
        overhead_over_cli(args.repeats)
    if "w1" in args.only:
        against_tensorpac(args.repeats, args.tensorpac_repeats)
    if "tutorial" in args.only:
        against_tensorpac_tutorial(args.repeats, args.tensorpac_repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
