#!/usr/bin/env python3
"""Checks that no two source files of one library define the same name in their anonymous
namespaces.

The libraries, tools and Python module are compiled as unity units (CMakeLists.txt,
PACFLOW_UNITY_BUILD): eight .cpp files included into one, so their anonymous namespaces become one.
Two files that define the same name there then either fail to compile (the same signature twice)
or, worse, compile into something else: with `trimmed(const std::string&)` in one file and
`trimmed(std::string_view)` in another, a call in the second picks the first's overload, which
trims other characters. Which files share a unit depends on the order of the sources, so a clash
that compiles today can break after a file is added: every name is checked, not only the pairs
that share a unit now.

The test programs are unity units too (tests/CMakeLists.txt): every test file (*_test.cpp, and
the other sources under tests/) is checked against every other, whatever program it belongs to,
since files move between programs; GoogleTest's macros (TEST, TEST_F, INSTANTIATE_TEST_SUITE_P…)
are not names. Namespace aliases and type aliases that say the same thing in every file
(`namespace fs = std::filesystem;`, `using Clock = std::chrono::steady_clock;`) are allowed.

Prints each clash with both files and lines and exits with 1 when there is one.

Usage: check_unity_names.py [REPOSITORY]   (default: the repository this script's tools/ folder is in)
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

# The folders whose .cpp files make one library or program (and so may share unity units); a file
# belongs to the first folder that holds it.
TARGETS: tuple[str, ...] = ("engine/devices/cuda", "engine", "stages", "pipelines", "tools/pipeline_cli",
                            "tools/make_example_inputs", "python/bindings")

OPENS = re.compile(r"^namespace\s*\{")
CLOSES = re.compile(r"^\}\s*//\s*namespace\s*$")
ALIAS = re.compile(r"^(?:namespace|using)\s+(\w+)\s*=\s*(.+?)\s*;")
TYPE = re.compile(r"^(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)")
ATTRIBUTES = re.compile(r"^(?:__attribute__\s*\(\(.*?\)\)\s*|\[\[.*?\]\]\s*)+")
CALLED = re.compile(r"(~?\w+)\s*\(")
ASSIGNED = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:=|\{)")


def declared_name(line: str) -> tuple[str, str | None] | None:
    """(name, alias target) of a declaration at the top of an anonymous namespace, or None."""
    line = ATTRIBUTES.sub("", line)
    if line.startswith(("template", "using ", "extern ")) and not ALIAS.match(line):
        return None
    if alias := ALIAS.match(line):
        return alias.group(1), alias.group(2)
    if kind := TYPE.match(line):
        return kind.group(1), None
    head = line.split("=", 1)[0] if "=" in line.split("(", 1)[0] else line
    if "(" in head and (called := CALLED.search(head)):
        return called.group(1), None
    if assigned := ASSIGNED.search(line):
        return assigned.group(1), None
    return None


# A variable declaration with several declarators: `constexpr std::int64_t kE = 3, kC = 2, kT = 512;`.
VARIABLES = re.compile(r"^(?:static\s+|inline\s+)*(?:constexpr|const)\s")


def top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside brackets, parentheses, braces and angle brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "([{<"
        depth -= char in ")]}>"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return parts + [current]


def further_declarators(line: str) -> list[str]:
    """The names a variable declaration declares after its first (`kC`, `kT` above)."""
    if not VARIABLES.match(line) or "(" in line.split("=", 1)[0] or not line.rstrip().endswith(";"):
        return []
    names = []
    for part in top_level_parts(line.rstrip().rstrip(";"))[1:]:
        if named := re.match(r"\s*(\w+)\s*(?:=|\{|$)", part):
            names.append(named.group(1))
    return names


def anonymous_names(path: Path) -> list[tuple[str, str | None, int]]:
    """Every (name, alias target, line) declared at the top level of the file's anonymous namespaces."""
    names = []
    depth = 0
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if OPENS.match(line):
            depth += 1
        elif CLOSES.match(line) and depth:
            depth -= 1
        elif depth and (line[:1].isalpha() or line[:1] in "_["):
            if found := declared_name(line):
                names.append((found[0], found[1], number))
                names.extend((name, None, number) for name in further_declarators(line))
    return names


# GoogleTest's macros at the top of an anonymous namespace declare no name of the file's own.
MACRO = re.compile(r"^[A-Z][A-Z0-9_]*$")


def target_of(relative: Path) -> str | None:
    text = relative.as_posix()
    if relative.name.endswith("_test.cpp") or (text.startswith("tests/") and not text.startswith("tests/support/")):
        return "tests"
    if text.startswith("tests/support/"):
        return "tests/support"
    return next((t for t in TARGETS if text.startswith(t + "/")), None)


def clashes(repository: Path) -> list[str]:
    defined: dict[tuple[str, str], list[tuple[Path, int, str | None]]] = defaultdict(list)
    for path in sorted(repository.rglob("*.cpp")):
        relative = path.relative_to(repository)
        target = target_of(relative)
        if target is None:
            continue
        for name, alias, line in anonymous_names(path):
            if not MACRO.match(name):
                defined[(target, name)].append((relative, line, alias))
    found = []
    for (target, name), places in sorted(defined.items()):
        files = {place[0] for place in places}
        same_alias = all(p[2] is not None and p[2] == places[0][2] for p in places)
        if len(files) < 2 or same_alias:
            continue
        first = places[0]
        for other in places[1:]:
            if other[0] != first[0]:
                found.append(f"{other[0]}:{other[1]}: '{name}' is also in the anonymous namespace of "
                             f"{first[0]}:{first[1]} ({target}/ is compiled in unity units, where the two "
                             f"would be one namespace): rename one")
    return found


def main(argv: list[str]) -> int:
    repository = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    found = clashes(repository)
    for line in found:
        print(line)
    if found:
        return 1
    print("no two files of a library share a name in their anonymous namespaces")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
