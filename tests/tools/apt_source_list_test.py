#!/usr/bin/env python3
"""tools/sanitizers/apt_source_list.py: the deb-src list the TSan oneTBB build fetches through mirrors
the machine's apt configuration (issue 22). Run by CTest (label tools)."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
TOOL = HERE.parent.parent / "tools" / "sanitizers" / "apt_source_list.py"


def run(etc):
    return subprocess.run([sys.executable, str(TOOL), "--etc", str(etc)], capture_output=True, text=True)


class AptSourceList(unittest.TestCase):
    def test_every_enabled_deb_entry_becomes_a_deb_src_entry_with_its_uris_suites_components_and_key(self):
        # One-line entries with options and comments, a .list file, deb822 stanzas with an inline key,
        # a disabled stanza, a deb-src-only stanza and a file apt ignores (fixture: apt_etc/).
        result = run(HERE / "apt_etc")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, (HERE / "apt_source_list.expected").read_text())

    def test_a_machine_without_a_deb_entry_is_told_what_to_add(self):
        with tempfile.TemporaryDirectory() as etc:
            (pathlib.Path(etc) / "sources.list").write_text("# deb http://commented.example/debian bookworm main\n")
            result = run(etc)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn("no enabled 'deb' entry", result.stderr)
        self.assertIn("Types: deb\n  URIs: <the URL of your Debian mirror or proxy>", result.stderr)


if __name__ == "__main__":
    unittest.main()
