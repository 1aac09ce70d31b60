#!/usr/bin/env python3
"""Calibrate the modelled accelerator (`sim`) from a GPU's measured stage rates, and compare.

The sim devices cost a stage's work (Stage::flops_per_series for every series of a batch) at a
rate. By default that is the H100 datasheet's peak, far above what the kernels reach. This script
takes the rates gpu_bench measured instead: for each stage, its work over W1, W2 and W3 (from
``pipeline_cli validate --json``) divided by the GPU time gpu_bench's events gave it on those
workloads (``<stage>_kernel_s``, medians). It writes them as a model file for
``pipeline_cli run --sim-model FILE`` (engine/devices/sim/sim_model_file.hpp) and, with
``--compare``, runs W1-W3 on one modelled device and prints the prediction beside the measurement.

Usage (bench/README.md, "A calibrated sim")::

    python3 bench/calibrate_sim.py bench/results/gpu_bench_h100.json \\
        -o bench/sim_models/h100_measured.json --compare
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = {1: "pipelines/bench/w1.pipe", 2: "pipelines/bench/w2.pipe", 3: "pipelines/bench/w3.pipe"}
STAGES = ("bandpass", "hilbert", "mi", "surrogates")


def measured(gpu_bench: dict, workload: int) -> dict:
    """The median row of BM_GpuWorkload/<workload>."""
    for row in gpu_bench["benchmarks"]:
        if row["name"].startswith(f"BM_GpuWorkload/{workload}/") and row.get("aggregate_name") == "median":
            return row
    sys.exit(f"no median of BM_GpuWorkload/{workload} in the gpu_bench results")


def stage_flops(cli: Path, pipe: str) -> dict:
    """Each stage's work over the whole workload, as the plan estimates it."""
    plan = json.loads(subprocess.run([str(cli), "validate", "--json", "--devices", "sim:0", str(ROOT / pipe)],
                                     check=True, capture_output=True, text=True).stdout)
    return {t["stage"]: t["flops"] for t in plan["run_time_estimate"]["terms"] if "stage" in t}


def seconds(row: dict) -> float:
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row["time_unit"]]
    return row["real_time"] * scale


def calibrate(gpu_bench: dict, cli: Path) -> dict:
    """Each stage's rate: its work over W1-W3 per second of GPU time it had there. Batches in flight
    share the GPU (several streams), so the events' times overlap: their sum exceeds the wall time,
    and a stage given the GPU alone runs faster by that overlap. The sim device computes one batch
    at a time, so the rates are scaled by the measured overlap (GPU seconds summed over stages and
    workloads / wall seconds of the workloads)."""
    work = {s: 0.0 for s in STAGES}
    gpu_s = {s: 0.0 for s in STAGES}
    wall_s = 0.0
    for k, pipe in WORKLOADS.items():
        row, flops = measured(gpu_bench, k), stage_flops(cli, pipe)
        wall_s += seconds(row)
        for s in STAGES:
            work[s] += flops[s]
            gpu_s[s] += row[f"{s}_kernel_s"]
    overlap = sum(gpu_s.values()) / wall_s
    rates = {s: overlap * work[s] / gpu_s[s] for s in STAGES}
    context = gpu_bench.get("context", {})
    return {
        "name": "H100, stage rates measured by gpu_bench on W1-W3",
        "source": "bench/calibrate_sim.py over gpu_bench results of " + str(context.get("date", "an H100 run")),
        "overlap": f"{overlap:.3f}: GPU seconds of the stages' events over wall seconds, W1-W3 together",
        "stage_flops_per_s": rates,
    }


def modelled_device_s(cli: Path, pipe: str, model: Path) -> float:
    """The modelled device's time for the workload's stages: each stage's work at its rate (the plan's
    estimate with the model, which is what the sim device charges, launches and copies aside)."""
    plan = json.loads(subprocess.run([str(cli), "validate", "--json", "--devices", "sim:0", "--sim-model", str(model),
                                      str(ROOT / pipe)], check=True, capture_output=True, text=True).stdout)
    return sum(t["seconds"] for t in plan["run_time_estimate"]["terms"] if t.get("stage") in STAGES)


def compare(gpu_bench: dict, cli: Path, model: Path, repeats: int) -> None:
    """Each workload's modelled device time against the H100's wall time in gpu_bench; and a whole
    run on sim:0 here, whose host side (the synthetic source, the sinks) runs on this machine's CPUs,
    not the GPU machine's 16."""
    print("| workload | H100, measured (gpu_bench, in process) | sim model, device time | ratio "
          "| `run --devices sim:0` here, wall |")
    print("| --- | --- | --- | --- | --- |")
    for k, pipe in WORKLOADS.items():
        walls = []
        for _ in range(repeats):
            out = ROOT / "out" / "calibrate_sim" / f"w{k}"
            subprocess.run([str(cli), "run", "-q", str(ROOT / pipe), "--devices", "sim:0", "--sim-model", str(model),
                            "--out", str(out)], check=True, stderr=subprocess.DEVNULL)
            walls.append(json.loads((out / "result.json").read_text())["run"]["wall_s"])
        real, modelled = seconds(measured(gpu_bench, k)), modelled_device_s(cli, pipe, model)
        print(f"| W{k} | {real:.3f} s | {modelled:.3f} s | {modelled / real:.2f} | {statistics.median(walls):.3f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gpu_bench", type=Path, help="gpu_bench's --benchmark_out JSON (with aggregates)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the model file to write")
    parser.add_argument("--cli", type=Path, default=ROOT / "build" / "bin" / "pipeline_cli")
    parser.add_argument("--compare", action="store_true", help="then run W1-W3 on sim:0 with it, beside the measurement")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    gpu_bench = json.loads(args.gpu_bench.read_text())
    model = calibrate(gpu_bench, args.cli)
    args.output.write_text(json.dumps(model, indent=2) + "\n")
    print(f"wrote {args.output}: " + ", ".join(f"{s} {r:.3g} flops/s" for s, r in model["stage_flops_per_s"].items()))
    if args.compare:
        compare(gpu_bench, args.cli, args.output, args.repeats)


if __name__ == "__main__":
    main()
