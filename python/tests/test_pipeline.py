"""Pipelines from Python give the CLI's numbers bitwise; results carry their names and facts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pacflow

BANDS = {"pha": [[4, 8], [8, 12]], "amp": [[60, 80], [80, 100]]}


def npy_arrays(folder: Path) -> dict[str, np.ndarray]:
    return {p.stem: np.load(p) for p in sorted(folder.glob("*.npy"))}


def assert_bitwise(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.shape == b.shape, what
    assert a.dtype == b.dtype, what
    assert a.tobytes() == b.tobytes(), f"{what}: not bitwise identical"


def test_version_is_the_engines(cli: str) -> None:
    out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
    assert pacflow.__version__ and pacflow.__version__ in out


def test_a_pipe_file_gives_the_clis_arrays_bitwise(cli: str, source_dir: Path, tmp_path: Path) -> None:
    pipe = source_dir / "pipelines/pac.pipe"
    subprocess.run([cli, "run", str(pipe), "--out", str(tmp_path / "cli"), "-q", "--set", "surrogates.n=40"],
                   check=True)
    result = pacflow.run(pipe, out=tmp_path / "py", set={"surrogates.n": 40}, progress=False)
    from_cli = npy_arrays(tmp_path / "cli")
    assert set(from_cli) >= {"pac", "pac_z", "pvalues"}
    for name, array in from_cli.items():
        assert_bitwise(result[name], array, f"{name} in memory")
        assert_bitwise(np.load(tmp_path / "py" / f"{name}.npy"), array, f"{name}.npy")
    assert (tmp_path / "py" / "comodulogram.png").exists()
    written = json.loads((tmp_path / "py" / "result.json").read_text())
    assert written["pipeline"] == result.report["pipeline"]  # the arrays sink listed last in both
    assert written["pipeline"][-1]["name"] == "arrays"


def test_an_array_source_gives_the_npy_sources_numbers_bitwise(cli: str, signals: np.ndarray, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", signals)
    (tmp_path / "x.pipe").write_text(
        "source npy path=x.npy fs=256 layout=ECT\n"
        "stage bandpass pha=[[4,8],[8,12]] amp=[[60,80],[80,100]]\n"
        "stage hilbert\nstage mi\nstage surrogates n=30 seed=3 min_shift=0.5s\n"
        "sink npy dir=out\n")
    subprocess.run([cli, "run", str(tmp_path / "x.pipe"), "-q"], check=True)
    pipeline = (pacflow.Pipeline()
                .source(signals, fs=256, layout="ECT")
                .stage("bandpass", **BANDS)
                .stage("hilbert")
                .stage("mi")
                .stage("surrogates", n=30, seed=3, min_shift="0.5s"))
    result = pipeline.run(batch_size=4, progress=False)
    assert not pipeline.input_copied
    for name, array in npy_arrays(tmp_path / "out").items():
        assert_bitwise(result[name], array, name)
    assert result.dims["pac"] == ("epochs", "channels", "phase_bands", "amplitude_bands")
    assert result.dims["trial_pvalues"] == ("channels", "phase_bands", "amplitude_bands")
    np.testing.assert_array_equal(result.pha_bands, [[4, 8], [8, 12]])
    np.testing.assert_array_equal(result.f_amp, [70, 90])
    assert result.params["surrogates"]["n"] == 30
    assert result.report["input"]["source"] == "array"
    assert result.timings["series"] == signals.shape[0] * signals.shape[1]


def test_without_a_sink_nothing_is_written(signals: np.ndarray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = pacflow.Pipeline().source(signals, fs=256, layout="ECT").stage("bandpass", **BANDS) \
        .stage("hilbert").stage("mi").run(progress=False)
    assert result.pac.shape == (6, 3, 2, 2)
    assert list(tmp_path.iterdir()) == []
    assert "pac" in repr(result) and "phase_bands: 2" in repr(result)
    with pytest.raises(KeyError, match="no result 'pac_z'"):
        result["pac_z"]


def test_erpac_times_and_dims(signals: np.ndarray) -> None:
    many = np.concatenate([signals] * 2)  # 12 epochs
    result = pacflow.Pipeline().source(many, fs=256, layout="ECT").stage("bandpass", **BANDS) \
        .stage("hilbert").stage("erpac").run(progress=False)
    assert result.dims["erpac"] == ("channels", "phase_bands", "amplitude_bands", "times")
    times = result.coords["erpac_times"]
    assert times.dtype == np.float64 and times.shape == (signals.shape[-1],)
    assert times[1] == 1 / 256


def test_validate_and_graph(signals: np.ndarray) -> None:
    pipeline = pacflow.Pipeline().source(signals, fs=256, layout="ECT").stage("bandpass", **BANDS) \
        .stage("hilbert").stage("mi")
    plan = pipeline.validate()
    assert plan["input"]["shape"] == [6, 3, 1024]
    assert plan["host_memory_estimate"]["bytes"] > 0
    assert pipeline.graph().startswith("digraph")


def test_bad_input_raises_the_clis_message(cli: str, source_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pipe"
    with pytest.raises(FileNotFoundError) as python_error:
        pacflow.run(missing, progress=False)
    cli_run = subprocess.run([cli, "run", str(missing)], capture_output=True, text=True)
    assert cli_run.returncode == 2
    assert cli_run.stderr.strip() == f"error: {python_error.value}"

    with pytest.raises(FileNotFoundError, match="no such file"):
        pacflow.Pipeline().source("npy", path=str(tmp_path / "none.npy"), fs=256).stage("bandpass").run(progress=False)
    with pytest.raises(ValueError, match='unknown stage "hilbret".*did you mean "hilbert"'):
        pacflow.Pipeline().source("synthetic").stage("hilbret")
    with pytest.raises(ValueError, match="above|Nyquist"):
        pacflow.Pipeline().source("synthetic", fs=256).stage("bandpass", amp="100:200:4").stage("hilbert") \
            .stage("mi").run(progress=False)
    with pytest.raises(ValueError, match="set: 'n' is not NAME.key"):
        pacflow.run(source_dir / "pipelines/pac.pipe", set={"n": 3})
    # Issue 35, item 23: each named for what it is, not a JSON parser's or Python's internals.
    with pytest.raises(TypeError, match="set: keys are 'NAME.key' strings"):
        pacflow.run(source_dir / "pipelines/pac.pipe", set={1: 2})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"fs: a parameter must be a finite number, not NaN"):
        pacflow.Pipeline().source("synthetic", fs=float("nan")).stage("bandpass").run(progress=False)
    with pytest.raises(ValueError, match=r"surrogates\.n: a parameter must be a finite number"):
        pacflow.run(source_dir / "pipelines/pac.pipe", set={"surrogates.n": float("inf")}, progress=False)


def test_python_m_pacflow_runs_a_pipe_file(source_dir: Path, tmp_path: Path) -> None:
    ok = subprocess.run([sys.executable, "-m", "pacflow", "run", str(source_dir / "pipelines/pac.pipe"), "--out",
                         str(tmp_path), "--set", "surrogates.n=20", "-q"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "pac_z.npy").exists()
    bad = subprocess.run([sys.executable, "-m", "pacflow", "run", str(tmp_path / "none.pipe")], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_set_values_read_as_the_cli_reads_them(source_dir: Path, tmp_path: Path) -> None:
    assert pacflow.parse_set("bandpass.pha=[[4,8],[8,12]]") == ("bandpass.pha", [[4, 8], [8, 12]])
    assert pacflow.parse_set("mi.outputs=[distributions,preferred_phase]") == (
        "mi.outputs", ["distributions", "preferred_phase"])  # a list, as in pipeline_cli, not a string
    assert pacflow.parse_set('sink.title="a=b c"') == ("sink.title", "a=b c")
    with pytest.raises(ValueError, match='--set "surrogates": '):
        pacflow.parse_set("surrogates")
    ok = subprocess.run([sys.executable, "-m", "pacflow", "run", str(source_dir / "pipelines/pac.pipe"), "--out",
                         str(tmp_path), "--set", "surrogates.n=20", "--set", "bandpass.amp=[[60,80],[80,100]]", "-q"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert np.load(tmp_path / "pac_z.npy").shape[-1] == 2
    bad = subprocess.run([sys.executable, "-m", "pacflow", "run", str(source_dir / "pipelines/pac.pipe"), "--set",
                          "surrogates"], capture_output=True, text=True)
    assert bad.returncode == 2 and "expected NAME.key=value" in bad.stderr, bad.stderr


def test_shards_from_python_merge_into_the_single_runs_files(cli: str, source_dir: Path, tmp_path: Path) -> None:
    pipe = source_dir / "pipelines/pac.pipe"
    sets = {"surrogates.n": 20, "surrogates.trials": "none"}  # no trial-level test: batches of 16 series
    subprocess.run([cli, "run", str(pipe), "--out", str(tmp_path / "one"), "-q", "--batch", "16",
                    "--set", "surrogates.n=20", "--set", "surrogates.trials=none"], check=True)
    shards = [tmp_path / f"shard{i}" for i in range(3)]
    for i, folder in enumerate(shards):
        pacflow.run_shard(pipe, f"{i}/3", folder, set=sets, batch_size=16, progress=False)
    merged = pacflow.merge(tmp_path / "merged", list(reversed(shards)), progress=False)
    single = json.loads((tmp_path / "one" / "result.json").read_text())
    assert merged["run"]["batches"] == single["run"]["batches"] == 8
    for name, array in npy_arrays(tmp_path / "one").items():
        assert_bitwise(np.load(tmp_path / "merged" / f"{name}.npy"), array, name)
    # The CLI merges Python's shards alike, and refuses a set with one missing, naming it.
    subprocess.run([cli, "merge", str(tmp_path / "by_cli"), *map(str, shards), "-q"], check=True)
    assert_bitwise(np.load(tmp_path / "by_cli" / "pac_z.npy"), np.load(tmp_path / "one" / "pac_z.npy"), "pac_z")
    with pytest.raises(ValueError, match="shard 1/3 is missing"):
        pacflow.merge(tmp_path / "partial", [shards[0], shards[2]], progress=False)
    assert not (tmp_path / "partial").exists()
    with pytest.raises(ValueError, match="--out"):
        pacflow.run_shard(pipe, "0/3", "", progress=False)


def test_elements_and_devices() -> None:
    listing = pacflow.elements()
    names = {(e["kind"], e["name"]) for e in listing["elements"]}
    assert {("source", "synthetic"), ("stage", "mi"), ("sink", "npy")} <= names
    assert ("source", "array") not in names  # only the Python module's own registry has it
    assert {p["name"] for p in listing["placement"]} >= {"on", "ring", "batch"}
    assert any(line.startswith("cpu") for line in pacflow.devices())


def test_import_and_a_cpu_run_load_no_cuda_library() -> None:
    """`import pacflow` works where no CUDA library is installed: nothing CUDA is loaded until a
    pipeline asks for a GPU (the plugin, libpacflow_cuda.so, is dlopen'ed then)."""
    script = ("import pacflow; pacflow.Pipeline().source('synthetic', epochs=2, channels=2).stage('bandpass')"
              ".stage('hilbert').stage('mi').run(progress=False); print(open('/proc/self/maps').read())")
    maps = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert "libpacflow_engine" in maps
    for library in ("libcudart", "libcufft", "libcuda.so", "libpacflow_cuda"):
        assert library not in maps, f"{library} loaded by a CPU run"


def test_the_installed_package_is_this_build() -> None:
    """tools/setup.sh installs pacflow into .venv from build/: without the build tree on the path the
    interpreter imports that copy, of the same version."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found = subprocess.run([sys.executable, "-c", "import pacflow; print(pacflow.__version__, pacflow.__file__)"],
                           capture_output=True, text=True, env=env, cwd="/")
    if found.returncode != 0:
        pytest.skip(f"pacflow is not installed in {sys.executable}'s environment (tools/setup.sh installs it)")
    version, where = found.stdout.split()
    assert version == pacflow.__version__ and "site-packages" in where


def test_the_module_and_the_engine_link_no_cuda_library() -> None:
    """A CPU-only machine can import pacflow: neither the extension module nor the engine's libraries
    beside it link a CUDA library (only the plugin, loaded on demand, does)."""
    import pacflow._core as core

    package = Path(core.__file__).parent
    libraries = [Path(core.__file__), *sorted(Path(pacflow.__file__).parent.glob("libpacflow_[es]*.so"))]
    lib_dir = package.parent.parent / "lib"  # the build tree keeps the engine's libraries in build/lib
    libraries += sorted(lib_dir.glob("libpacflow_[es]*.so"))
    assert len(libraries) >= 3, libraries
    for library in libraries:
        linked = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True).stdout
        assert "libcudart" not in linked and "libcufft" not in linked and "libcuda.so" not in linked, library


def test_results_complete_pickle_and_show_a_progress_bar_for_long_runs(signals: np.ndarray) -> None:
    import pickle

    result = pacflow.Pipeline().source(signals, fs=256, layout="ECT").stage("bandpass", **BANDS) \
        .stage("hilbert").stage("mi").run(progress=False)
    assert "pac" in dir(result) and "f_pha" in dir(result)
    copy = pickle.loads(pickle.dumps(result))
    assert copy.pac.tobytes() == result.pac.tobytes() and copy.dims == result.dims and copy.report == result.report
    script = ("import numpy as np, pacflow; x = np.random.default_rng(0).standard_normal((96, 8, 4096), "
              "dtype=np.float32); pacflow.Pipeline().source(x, fs=512, layout='ECT').stage('bandpass')"
              ".stage('hilbert').stage('mi').stage('surrogates', n=200).run(batch_size=16)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "pacflow" in run.stderr and "batch" in run.stderr, run.stderr  # tqdm's bar, once past a second
