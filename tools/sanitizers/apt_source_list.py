#!/usr/bin/env python3
"""Prints a deb822 list of `deb-src` entries mirroring this machine's apt `deb` entries.

    python3 tools/sanitizers/apt_source_list.py [--etc /etc/apt]

build_tbb_tsan.sh fetches oneTBB's Debian source package through this list, so the source comes
from wherever the machine's apt already gets its packages (a mirror, a proxy, a snapshot) and no
package host is written into the repository. Read, as apt reads them: `sources.list` and
`sources.list.d/*.list` (one-line format) and `sources.list.d/*.sources` (deb822). Every enabled
entry of type `deb` becomes a `deb-src` entry with the same URIs, suites and components, and the
same key (`Signed-By`, inline keys included) and trust options; architecture and language options
are dropped (they do not apply to sources). Exits 1, saying what to add, when there is none.
"""
import argparse
import pathlib
import sys

# deb822 fields that describe binary packages only: not carried over to deb-src entries.
BINARY_ONLY = {"types", "enabled", "architectures", "languages", "targets"}
# One-line options that describe binary packages only (with their += and -= forms).
BINARY_ONLY_OPTIONS = {"arch", "lang", "target"}


def deb822_name(option):
    """signed-by -> Signed-By: deb822 field names are the one-line option names, capitalised."""
    return "-".join(part.capitalize() for part in option.split("-"))


def one_line_entries(text):
    """(fields) for each `deb` line of a one-line-format file; fields as deb822 (name, value) pairs."""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0] != "deb":
            continue
        options = []
        rest = words[1:]
        if rest and rest[0].startswith("["):
            joined = " ".join(rest)
            inside, _, after = joined[1:].partition("]")
            rest = after.split()
            for option in inside.split():
                key, _, value = option.partition("=")
                name = key.rstrip("+-")
                if name in BINARY_ONLY_OPTIONS:
                    continue
                options.append((deb822_name(name), value))
        if len(rest) < 2:
            continue  # apt itself refuses such a line
        uri, suite, components = rest[0], rest[1], rest[2:]
        fields = [("URIs", uri), ("Suites", suite)]
        if components:
            fields.append(("Components", " ".join(components)))
        yield fields + options


def deb822_entries(text):
    """(fields) for each enabled stanza of a deb822 file whose Types include `deb`."""
    stanzas, current = [], []
    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if current:
                stanzas.append(current)
            current = []
            continue
        if raw[0] in " \t" and current:  # a continuation line (e.g. an inline key)
            name, value = current[-1]
            current[-1] = (name, value + "\n" + raw)
            continue
        name, _, value = raw.partition(":")
        current.append((name.strip(), value.strip()))
    for stanza in stanzas:
        fields = {name.lower(): value for name, value in stanza}
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").strip().lower() == "no":
            continue
        yield [(name, value) for name, value in stanza if name.lower() not in BINARY_ONLY]


def entries(etc):
    """Every enabled `deb` entry under `etc`, in apt's reading order, without repeats."""
    found = []
    main = etc / "sources.list"
    if main.is_file():
        found += one_line_entries(main.read_text(errors="replace"))
    parts = etc / "sources.list.d"
    if parts.is_dir():
        for path in sorted(parts.iterdir()):
            if path.suffix == ".list" and path.is_file():
                found += one_line_entries(path.read_text(errors="replace"))
            elif path.suffix == ".sources" and path.is_file():
                found += deb822_entries(path.read_text(errors="replace"))
    unique = []
    for fields in found:
        if fields not in unique:
            unique.append(fields)
    return unique


def render(found):
    stanzas = []
    for fields in found:
        lines = ["Types: deb-src"] + [f"{name}: {value}" for name, value in fields]
        stanzas.append("\n".join(lines))
    return "\n\n".join(stanzas) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--etc", default="/etc/apt", type=pathlib.Path, help="apt's configuration folder")
    args = parser.parse_args()
    found = entries(args.etc)
    if not found:
        sys.exit(f"apt_source_list: no enabled 'deb' entry in {args.etc}/sources.list or "
                 f"{args.etc}/sources.list.d/*.list, *.sources; add the Debian archive this machine uses, e.g. "
                 f"a file {args.etc}/sources.list.d/debian.sources holding\n"
                 "  Types: deb\n  URIs: <the URL of your Debian mirror or proxy>\n"
                 "  Suites: bookworm bookworm-updates\n  Components: main\n"
                 "  Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
                 "(and the security suite likewise), then run apt-get update")
    sys.stdout.write(render(found))


if __name__ == "__main__":
    main()
