#!/usr/bin/env python3
"""Checks that the engine's folders include each other in one direction only, and that no stage
reaches into another stage's folder.

The engine's layers, from the bottom up (docs/architecture.md, "Engine"):

    api < placement < io < plan < run < devices

A file in one layer may include files of its own layer and of the layers below it, never above,
and nothing from the repository's other top-level folders (stages/, pipelines/, tools/, python/):
the engine is a library those build on.

The stages (docs/architecture.md, "Kernels and stages"): a stage folder (one with a stage.cmake)
may include its own files, the shared folders (stages/common, stages/io/common, the kernel library
stages/kernels/*), the files at the top of stages/, and of another stage folder only its published
plan facts (*_facts.hpp). A kernel folder includes no stage folder at all. Tests (*_test.cpp) may
compose stages and are not checked.

Prints every include that breaks a rule, with its file and line, and exits with 1 when there is one.

Usage: check_layers.py [REPOSITORY]   (default: the repository this script's tools/ folder is in;
       a path ending in engine/ checks that folder's layers only)
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


SHARED_STAGE_FOLDERS: tuple[str, ...] = ("stages/common", "stages/io/common", "stages/kernels")


def stage_folders(stages: Path) -> list[str]:
    """The folders holding a stage.cmake, as "stages/..." paths, deepest first."""
    found = {str(p.parent.relative_to(stages.parent)) for p in stages.rglob("stage.cmake")}
    return sorted(found, key=len, reverse=True)


def folder_of(path: str, folders: list[str]) -> str:
    """The stage folder a "stages/..." path lies in ("stages" for the files at the top)."""
    return next((f for f in folders if path.startswith(f + "/")), "stages")


def shared(folder: str) -> bool:
    return folder == "stages" or any(folder == s or folder.startswith(s + "/") for s in SHARED_STAGE_FOLDERS)


def stage_violations(stages: Path) -> list[str]:
    """Every include of a stage folder's sources into another stage folder's internals."""
    found: list[str] = []
    root = stages.parent
    folders = stage_folders(stages)
    for path in sorted(p for p in stages.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()):
        if path.name.endswith("_test.cpp"):
            continue
        own = folder_of(str(path.relative_to(root)), folders)
        is_kernel = own.startswith("stages/kernels/")
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or not match.group(1).startswith("stages/"):
                continue
            include = match.group(1)
            target = folder_of(include, folders)
            if target == own or shared(target):
                continue
            where = f"{path}:{number}: includes \"{include}\""
            if is_kernel:
                found.append(f"{where}: a kernel ({own}/) includes no stage folder ({target}/)")
            elif not include.endswith("_facts.hpp"):
                found.append(f"{where}: {own}/ may take only the published facts (*_facts.hpp) of {target}/; "
                             "move what both need into stages/kernels or stages/common")
    return found


def main(argv: list[str]) -> int:
    given = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    if not given.is_dir():
        print(f"check_layers: {given}: no such folder", file=sys.stderr)
        return 2
    engine = given if given.name == "engine" else given / "engine"
    found = violations(engine) if engine.is_dir() else []
    stages = given / "stages" if given.name != "engine" else None
    if stages is not None and stages.is_dir():
        found += stage_violations(stages)
    for line in found:
        print(line)
    if found:
        print(f"check_layers: {len(found)} include(s) against the layers", file=sys.stderr)
        return 1
    print(f"check_layers: {given}: every include follows {' < '.join(LAYERS)}"
          + (", and no stage reaches into another's folder" if stages is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
