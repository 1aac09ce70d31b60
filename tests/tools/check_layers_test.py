#!/usr/bin/env python3
"""tools/check_layers.py: the engine's folders include each other in one direction, and no stage
reaches into another stage's folder (issue 37, items 3 and 4). Run by CTest (label tools): the
repository passes, and a tree with an include going up a layer, out of the engine, up through a
relative path, or into another stage's internals is refused, naming the file and line."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
TOOL = HERE.parent.parent / "tools" / "check_layers.py"


def run(engine):
    return subprocess.run([sys.executable, str(TOOL), str(engine)], capture_output=True, text=True)


def tree(files, top="engine"):
    """A temporary folder `top` holding `files` ({path relative to it: text})."""
    root = tempfile.TemporaryDirectory()
    folder = pathlib.Path(root.name) / top
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root, folder


class CheckLayers(unittest.TestCase):
    def test_the_repository_follows_its_layers(self):
        result = run(HERE.parent.parent)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("no stage reaches into another's folder", result.stdout)

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


STAGES = {
    "stage.cmake": "",
    "bandpass/stage.cmake": "",
    "bandpass/bandpass_facts.hpp": "#pragma once\n",
    "bandpass/bandpass_stage.hpp": '#include "stages/kernels/filters/fir1.hpp"\n#include "stages/common/fftw.hpp"\n',
    "kernels/filters/stage.cmake": "",
    "kernels/filters/fir1.hpp": '#include "stages/common/fftw.hpp"\n',
    "common/stage.cmake": "",
    "common/fftw.hpp": "#pragma once\n",
    "io/common/stage.cmake": "",
    "io/common/paths.hpp": "#pragma once\n",
    "io/png/stage.cmake": "",
    "io/png/png_sink.cpp": '#include "stages/bandpass/bandpass_facts.hpp"\n#include "stages/io/common/paths.hpp"\n'
                           '#include "stages/builtin.hpp"\n',
    "io/png/png_test.cpp": '#include "stages/bandpass/bandpass_stage.hpp"\n',
}


class CheckStageFolders(unittest.TestCase):
    def check(self, extra):
        root, stages = tree({**STAGES, **extra}, top="stages")
        with root:
            return run(stages.parent)

    def test_own_files_shared_folders_kernels_facts_and_tests_pass(self):
        result = self.check({})
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_a_stage_reaching_into_another_stages_internals_is_named(self):
        result = self.check({"envelope/stage.cmake": "",
                             "envelope/envelope.cpp": '#include "stages/bandpass/bandpass_stage.hpp"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("envelope/envelope.cpp:1: includes \"stages/bandpass/bandpass_stage.hpp\": "
                      "stages/envelope/ may take only the published facts", result.stdout)

    def test_a_kernel_includes_no_stage_folder_not_even_its_facts(self):
        result = self.check({"kernels/filters/design.cpp": '#include "stages/bandpass/bandpass_facts.hpp"\n'})
        self.assertEqual(result.returncode, 1)
        self.assertIn("a kernel (stages/kernels/filters/) includes no stage folder (stages/bandpass/)", result.stdout)


if __name__ == "__main__":
    unittest.main()
