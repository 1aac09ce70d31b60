#!/usr/bin/env python3
"""Checks that the engine's folders include each other in one direction only.

The engine's layers, from the bottom up (docs/architecture.md, "Layers"):

    api < placement < io < plan < run < devices

A file in one layer may include files of its own layer and of the layers below it, never above,
and nothing from the repository's other top-level folders (stages/, pipelines/, tools/, python/):
the engine is a library those build on. Prints every include that breaks the rule, with its file
and line, and exits with 1 when there is one.

Usage: check_layers.py [ENGINE_DIR]   (default: the engine/ beside this script's tools/ folder)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

LAYERS: tuple[str, ...] = ("api", "placement", "io", "plan", "run", "devices")
OUTSIDE: tuple[str, ...] = ("stages", "pipelines", "tools", "python", "tests", "bench")
SOURCE_SUFFIXES = {".hpp", ".cpp", ".cu", ".cuh", ".h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path: Path, engine: Path) -> str | None:
    """The layer a file of the engine belongs to (its first folder under engine/), or None."""
    parts = path.relative_to(engine).parts
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


def included_layer(include: str, including: Path, engine: Path) -> tuple[str | None, str | None]:
    """(layer, outside folder) of an include: "engine/plan/x.hpp", or a path relative to the file."""
    parts = Path(include).parts
    if parts and parts[0] == "engine":
        return (parts[1] if len(parts) > 2 and parts[1] in LAYERS else None), None
    if parts and parts[0] in OUTSIDE:
        return None, parts[0]
    resolved = (including.parent / include).resolve()
    try:
        return layer_of(resolved, engine.resolve()), None
    except ValueError:  # outside the engine: a generated header or a system one in quotes
        return None, None


def violations(engine: Path) -> list[str]:
    """Every include of `engine`'s sources that goes up a layer or out of the engine."""
    found: list[str] = []
    rank = {name: i for i, name in enumerate(LAYERS)}
    for path in sorted(p for p in engine.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()):
        own = layer_of(path, engine)
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target, outside = included_layer(match.group(1), path, engine)
            where = f"{path}:{number}: includes \"{match.group(1)}\""
            if outside is not None:
                found.append(f"{where}: the engine includes nothing from {outside}/")
            elif own is not None and target is not None and rank[target] > rank[own]:
                found.append(f"{where}: {own}/ is below {target}/ ({' < '.join(LAYERS)})")
    return found


def main(argv: list[str]) -> int:
    engine = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "engine"
    if not engine.is_dir():
        print(f"check_layers: {engine}: no such folder", file=sys.stderr)
        return 2
    found = violations(engine)
    for line in found:
        print(line)
    if found:
        print(f"check_layers: {len(found)} include(s) against the engine's layers", file=sys.stderr)
        return 1
    print(f"check_layers: {engine}: every include follows {' < '.join(LAYERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
