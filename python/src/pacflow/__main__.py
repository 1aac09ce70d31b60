"""``python -m pacflow run x.pipe``: run a pipeline file as ``pipeline_cli run`` does.

Exit codes as the CLI's: 0 success, 1 the run failed, 2 bad input or usage, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from . import __version__, devices
from .pipeline import parse_set, run

OK, FAILED, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pacflow", description="Run pacflow pipelines (.pipe files).")
    parser.add_argument("--version", action="version", version=f"pacflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run", help="run a pipeline file")
    r.add_argument("file", help="the .pipe file")
    r.add_argument("--set", action="append", default=[], metavar="NAME.key=value",
                   help="override or add a parameter (repeatable), read as pipeline_cli reads it")
    r.add_argument("--out", help="write every sink's output into this directory")
    r.add_argument("--devices", help="device pool for stages without on= (cpu, cpu:*, cuda:0, sim:0-7)")
    r.add_argument("--fallback", choices=["none", "cpu"], help="cpu: run GPU stages on the CPU when no GPU is visible")
    r.add_argument("--vram", help="memory budget on every GPU (40GB, 0.8)")
    r.add_argument("--batch", type=int, default=0, help="series per batch, 0 = chosen")
    r.add_argument("--in-flight", type=int, default=0, help="most batches alive at once, 0 = chosen")
    r.add_argument("--checkpoint", help="record finished batches here; the same command resumes")
    r.add_argument("--trace", help="write a Chrome trace of the run to this JSON file")
    r.add_argument("--max-memory", help="refuse to start when the estimate exceeds this (8GB, 50%%)")
    r.add_argument("--clean", action="store_true", help="remove files of an earlier run this one does not write")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    commands.add_parser("devices", help="list the devices of this machine")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "devices":
        print("\n".join(devices()))
        return OK
    try:
        sets = dict(parse_set(item) for item in args.set)  # pipeline_cli's grammar: [a,b] is a list
        result = run(args.file, set=sets, out=args.out, devices=args.devices, fallback=args.fallback, vram=args.vram,
                     batch_size=args.batch, in_flight=args.in_flight, checkpoint=args.checkpoint, trace=args.trace,
                     max_memory=args.max_memory, clean=args.clean, progress=not args.quiet)
    except KeyboardInterrupt:
        print("pacflow: interrupted; no output written (files of earlier runs are as they were)", file=sys.stderr)
        return INTERRUPTED
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return BAD_INPUT
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return FAILED
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.quiet:
        run_facts = result.timings
        files = sorted({f.get("path", "") for f in result.report.get("files", []) if isinstance(f, dict)})
        print(f"pacflow: {run_facts.get('series')} series in {run_facts.get('batches')} batches, "
              f"{run_facts.get('wall_s', 0):.3f} s" + (f"; wrote {', '.join(files)}" if files else ""))
    return OK


if __name__ == "__main__":
    sys.exit(main())
