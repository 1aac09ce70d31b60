#!/usr/bin/env python3
"""tools/check_unity_names.py: no two source files of a library define the same name in their
anonymous namespaces, which a unity unit would merge (issue 41). Run by CTest (label tools): the
repository passes, and a tree where two files of one library share a function, type or constant
name there is refused, naming both files and lines, and so are two test files of any folders (the
test programs are unity units too); the same alias twice, names in different libraries, and
GoogleTest's macros are allowed."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
TOOL = HERE.parent.parent / "tools" / "check_unity_names.py"


def run(repository):
    return subprocess.run([sys.executable, str(TOOL), str(repository)], capture_output=True, text=True)


def anonymous(*lines):
    return "namespace pacflow {\n\nnamespace {\n\n" + "\n".join(lines) + "\n\n}  // namespace\n\n}  // namespace pacflow\n"


def checked(files):
    """Runs the tool on a temporary repository holding `files` ({path: text})."""
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            path = pathlib.Path(root) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return run(root)


class CheckUnityNames(unittest.TestCase):
    def test_the_repository_has_no_clash(self):
        result = run(HERE.parent.parent)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_two_overloads_of_one_name_in_a_library_are_refused(self):
        result = checked({
            "stages/io/common/channel_selection.cpp": anonymous("std::string trimmed(const std::string& s) {", "  return s;", "}"),
            "stages/io/edf/edf_header_check.cpp": anonymous("", "std::string_view trimmed(std::string_view field) {", "  return field;", "}"),
        })
        self.assertEqual(result.returncode, 1)
        self.assertIn("stages/io/edf/edf_header_check.cpp:6: 'trimmed' is also in the anonymous namespace of "
                      "stages/io/common/channel_selection.cpp:5", result.stdout)

    def test_types_constants_and_attributed_functions_are_names_too(self):
        for first, second in (("struct Moments {", "struct Moments {"),
                              ("constexpr int kFormat = 1;", "constexpr std::uint32_t kFormat = 1;"),
                              ("using Identity = std::pair<int, int>;", "struct Identity {"),
                              ("__attribute__((always_inline)) inline void rows(int n) {", "void rows() {")):
            with self.subTest(first=first):
                result = checked({"engine/io/a.cpp": anonymous(first), "engine/plan/b.cpp": anonymous(second)})
                self.assertEqual(result.returncode, 1, result.stdout)

    def test_the_same_alias_other_libraries_tests_and_named_namespaces_pass(self):
        result = checked({
            "pipelines/a.cpp": anonymous("namespace fs = std::filesystem;", "using Clock = std::chrono::steady_clock;"),
            "pipelines/b.cpp": anonymous("namespace fs = std::filesystem;", "using Clock = std::chrono::steady_clock;"),
            "engine/io/c.cpp": anonymous("void check(int status) {", "}"),
            "stages/io/png/d.cpp": anonymous("void check(int status) {", "}"),
            "stages/io/png/d_test.cpp": anonymous("void check(int status) {", "}"),
            "stages/io/png/e.cpp": "namespace pacflow {\n\nvoid check(double value) {\n}\n\n}  // namespace pacflow\n",
        })
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_two_test_files_sharing_a_name_are_refused_wherever_they_are(self):
        result = checked({
            "stages/io/edf/edf_source_test.cpp": anonymous("constexpr int kRate = 128;"),
            "tests/cli/bids_test.cpp": anonymous("", "constexpr int kRate = 512;"),
        })
        self.assertEqual(result.returncode, 1)
        self.assertIn("tests/cli/bids_test.cpp:6: 'kRate' is also in the anonymous namespace of "
                      "stages/io/edf/edf_source_test.cpp:5", result.stdout)

    def test_every_name_of_a_declaration_with_several_is_checked(self):
        result = checked({
            "stages/io/memory/memory_io_test.cpp": anonymous("constexpr std::int64_t kE = 3, kC = 2, kT = 512;"),
            "stages/erpac/erpac_test.cpp": anonymous("constexpr std::int64_t kT = 50;"),
        })
        self.assertEqual(result.returncode, 1)
        self.assertIn("'kT' is also in the anonymous namespace of", result.stdout)

    def test_googletests_macros_are_not_names(self):
        result = checked({
            "tests/engine/a_test.cpp": anonymous("TEST(A, Runs) {", "}", "INSTANTIATE_TEST_SUITE_P(All, P, x);"),
            "tests/cli/b_test.cpp": anonymous("TEST(B, Runs) {", "}", "INSTANTIATE_TEST_SUITE_P(All, Q, y);"),
        })
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
