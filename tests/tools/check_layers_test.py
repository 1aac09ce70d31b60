#!/usr/bin/env python3
"""tools/check_layers.py: the engine's folders include each other in one direction (issue 37, item 4).
Run by CTest (label tools): the repository's engine passes, and a tree with an include going up a
layer, out of the engine, or up through a relative path is refused, naming the file and line."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
TOOL = HERE.parent.parent / "tools" / "check_layers.py"


def run(engine):
    return subprocess.run([sys.executable, str(TOOL), str(engine)], capture_output=True, text=True)


def tree(files):
    """A temporary engine/ folder holding `files` ({relative path: text})."""
    root = tempfile.TemporaryDirectory()
    engine = pathlib.Path(root.name) / "engine"
    for name, text in files.items():
        path = engine / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root, engine


class CheckLayers(unittest.TestCase):
    def test_the_repositorys_engine_follows_its_layers(self):
        result = run(HERE.parent.parent / "engine")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_includes_down_a_layer_or_within_one_pass(self):
        root, engine = tree({
            "api/tensor.hpp": "#pragma once\n#include <vector>\n",
            "plan/build.cpp": '#include "engine/api/tensor.hpp"\n#include "engine/plan/build.hpp"\n',
            "plan/build.hpp": '#include "../api/tensor.hpp"\n',
            "devices/cpu/node.cpp": '#include "engine/run/ring.hpp"\n#include "build_info.hpp"\n',
        })
        with root:
            result = run(engine)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_an_include_up_a_layer_is_named_with_its_line(self):
        root, engine = tree({"api/batch.cpp": '#include <map>\n#include "engine/run/ring.hpp"\n'})
        with root:
            result = run(engine)
        self.assertEqual(result.returncode, 1)
        self.assertIn("api/batch.cpp:2: includes \"engine/run/ring.hpp\": api/ is below run/", result.stdout)

    def test_a_relative_include_up_a_layer_is_refused(self):
        root, engine = tree({"io/npy.cpp": '#include "../plan/output_checks.hpp"\n'})
        with root:
            result = run(engine)
        self.assertEqual(result.returncode, 1)
        self.assertIn("io/ is below plan/", result.stdout)

    def test_the_engine_includes_nothing_from_the_stages(self):
        root, engine = tree({"devices/cuda/backend.cpp": '#include "stages/bandpass/bandpass.hpp"\n'})
        with root:
            result = run(engine)
        self.assertEqual(result.returncode, 1)
        self.assertIn("the engine includes nothing from stages/", result.stdout)


if __name__ == "__main__":
    unittest.main()
