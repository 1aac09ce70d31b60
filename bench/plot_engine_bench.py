#!/usr/bin/env python3
"""Plot engine_bench results: sim replication scaling and pipeline/copy-overlap ratios.

Usage:
    build/bin/engine_bench --benchmark_repetitions=5 \
        --benchmark_out=engine.json --benchmark_out_format=json
    python3 bench/plot_engine_bench.py engine.json -o bench/engine_scaling.png

With repetitions the medians are plotted; with one run, that run.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def runs_by_family(benchmarks):
    """Maps 'BM_SimReplicated/8' (name without iteration suffixes) to one result row.

    Prefers the 'median' aggregate where Google Benchmark reported repetitions."""
    chosen = {}
    for row in benchmarks:
        key = "/".join(part for part in row["run_name"].split("/")
                       if not part.startswith(("iterations:", "real_time")))
        is_median = row.get("run_type") == "aggregate" and row.get("aggregate_name") == "median"
        if is_median or (key not in chosen and row.get("run_type") != "aggregate"):
            chosen[key] = row
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="engine_bench --benchmark_out file (JSON)")
    parser.add_argument("-o", "--output", default="engine_scaling.png", help="PNG to write")
    args = parser.parse_args()

    try:
        with open(args.json) as f:
            runs = runs_by_family(json.load(f)["benchmarks"])
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"{args.json}: not an engine_bench JSON file ({error})")

    replicated = sorted(
        (int(key.split("/")[1]), row["efficiency"])
        for key, row in runs.items() if key.startswith("BM_SimReplicated/"))
    if not replicated:
        sys.exit(f"{args.json}: no BM_SimReplicated results; run engine_bench without a filter")
    devices = [n for n, _ in replicated]
    speedups = [n * eff for n, eff in replicated]

    fig, (scaling, ratios) = plt.subplots(1, 2, figsize=(11, 4.2))

    efficiencies = [100 * eff for _, eff in replicated]
    scaling.axhline(100, linestyle="--", color="grey", label="linear scaling")
    scaling.axhline(90, linestyle=":", color="black", label="goal: ≥ 90 % up to 8")
    scaling.plot(devices, efficiencies, "o-", color="tab:blue", label="measured")
    for n, eff, speedup in zip(devices, efficiencies, speedups):
        scaling.annotate(f"{eff:.1f} %\n({speedup:.1f}×)", (n, eff), textcoords="offset points",
                         xytext=(0, -26), ha="center", fontsize=8)
    scaling.set_xscale("log", base=2)
    scaling.set_xticks(devices, [str(n) for n in devices])
    scaling.set_ylim(min(80, min(efficiencies) - 8), 102)
    scaling.set_xlabel("sim devices")
    scaling.set_ylabel("efficiency: % of linear throughput")
    scaling.set_title("One 4 ms stage replicated over N sim devices")
    scaling.legend(loc="lower left", fontsize=8)
    scaling.grid(True, alpha=0.3)

    bars = []
    if "BM_SimPipelineSpeedup" in runs:
        row = runs["BM_SimPipelineSpeedup"]
        bars.append(("4 stages pinned,\none per device\n(speedup, goal ≥ 3.6)",
                     row["speedup"], 3.6))
    if "BM_SimCopyOverlap" in runs:
        row = runs["BM_SimCopyOverlap"]
        bars.append(("copies as long as compute\n(total / max, goal ≤ 1.15)",
                     row["total_over_max"], 1.15))
    positions = range(len(bars))
    ratios.bar(positions, [value for _, value, _ in bars], color=["tab:green", "tab:orange"][:len(bars)])
    for position, (_, value, goal) in zip(positions, bars):
        ratios.hlines(goal, position - 0.4, position + 0.4, colors="black", linestyles="--")
        ratios.annotate(f"{value:.2f}", (position, value), textcoords="offset points",
                        xytext=(0, -24), ha="center", color="white")
    ratios.set_xticks(list(positions), [label for label, _, _ in bars], fontsize=8)
    ratios.set_ylabel("ratio (dashed: goal)")
    ratios.set_title("Pipeline parallelism and copy overlap on sim")

    hops = [f"{name[3:]}: {runs[name]['us_per_hop']:.2f} µs/hop"
            for name in ("BM_EngineHop", "BM_RingHop") if name in runs]
    if hops:
        fig.text(0.5, 0.01, "engine overhead, 4 trivial stages: " + ", ".join(hops),
                 ha="center", fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
