"""What to report (issue 36, item 6): Result.methods(), Result.significant(), and a plot that
colours and outlines the same statistic."""

from __future__ import annotations

import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import pacflow
from conftest import coupled, outlined_cells

BANDS = {"f_pha": [[4, 8], [8, 12]], "f_amp": [[60, 80], [80, 100]], "progress": False}


@pytest.fixture(scope="module")
def trial_run() -> pacflow.Result:
    """12 epochs of 2 channels, channel 0 coupled (6 Hz phase, 70 Hz amplitude): the trial-level
    test runs by itself (four epochs or more)."""
    return pacflow.comodulogram(coupled(epochs=12, channels=2, n_times=2048), 256, n_perm=100, random_state=1,
                                surrogates__min_shift="0.5s", **BANDS)


def test_methods_states_the_runs_numbers_and_references(trial_run: pacflow.Result) -> None:
    text = trial_run.methods()
    paragraph, references = text.split("\n\nReferences\n\n")
    assert "\n" not in paragraph
    for part in ["12 epochs of 2 channels", "8 s long (2048 samples at 256 Hz)", "18 phase bins", "100 surrogates",
                 "seed 1", "1/101", "max-T", "trial_pvalues", f"pacflow {pacflow.__version__}",
                 f"over {trial_run.significant().family}"]:
        assert part in paragraph, part
    assert "- Tort ABL, Komorowski R, Eichenbaum H, Kopell N (2010)" in references
    assert "Özkurt" not in references and "Benjamini" not in references


def test_methods_is_what_the_cli_prints_for_the_same_run(cli: str, source_dir: Path, tmp_path: Path) -> None:
    result = pacflow.run(str(source_dir / "pipelines" / "pac.pipe"), out=str(tmp_path), progress=False)
    printed = subprocess.run([cli, "methods", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    assert result.methods() == printed


def test_significant_tests_the_trial_level_p_values_by_default(trial_run: pacflow.Result) -> None:
    significance = trial_run.significant()
    assert significance.array == "trial_pvalues"
    assert significance.dims == ("channels", "phase_bands", "amplitude_bands") == trial_run.dims["trial_pvalues"]
    assert significance.mask.dtype == np.bool_ and significance.mask.shape == trial_run.trial_pvalues.shape
    np.testing.assert_array_equal(significance.mask, trial_run.trial_pvalues < 0.05)
    assert significance.pvalues is trial_run.trial_pvalues
    assert significance.correction == "maxstat" and significance.alpha == 0.05
    assert trial_run.params["surrogates"]["trial_family"] == "channels"  # the default: every channel's cells
    assert "the cells of all 2 channels jointly (8 tests)" in significance.family
    assert "mean over its 12 epochs" in significance.test
    assert significance.p_floor == pytest.approx(trial_run.params["surrogates"]["trial_p_floor"])
    assert significance.mask[0, 0, 0], "channel 0 is coupled at 6 Hz x 70 Hz"
    assert "trial_pvalues" in repr(significance) and "maxstat" in repr(significance)
    strict = trial_run.significant(alpha=0.01)
    assert strict.alpha == 0.01 and strict.mask.sum() <= significance.mask.sum()


def test_significant_without_a_trial_level_test_and_by_name(signals: np.ndarray) -> None:
    result = pacflow.comodulogram(signals, 256, n_perm=50, surrogates__trials="none", surrogates__min_shift="0.5s",
                                  **BANDS)
    significance = result.significant()
    assert significance.array == "pvalues_maxstat"
    assert significance.dims == ("epochs", "channels", "phase_bands", "amplitude_bands")
    np.testing.assert_array_equal(significance.mask, result.pvalues_maxstat < 0.05)
    uncorrected = result.significant(test="pvalues")
    assert uncorrected.correction == "uncorrected" and uncorrected.array == "pvalues"
    with pytest.raises(ValueError, match="no trial_pvalues"):
        result.significant(test="trial_pvalues")
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        result.significant(alpha=0)
    plain = pacflow.comodulogram(signals, 256, n_perm=0, **BANDS)
    with pytest.raises(ValueError, match="no p-values"):
        plain.significant()


def test_plot_colours_and_outlines_the_same_test(trial_run: pacflow.Result) -> None:
    figure = trial_run.plot(per_channel=True)
    assert "trial_pvalues" in figure.get_suptitle() and "(trial_z)" in figure.get_suptitle()
    assert "against epoch permutations" in figure.get_suptitle(), "the statistic in words"
    assert any(ax.get_ylabel() == "z-score" for ax in figure.axes), "the colour bar names the unit"
    panels = [a for a in figure.axes if a.get_visible() and a.get_title()]
    outlined = trial_run.significant().mask
    assert [outlined_cells(p) for p in panels] == [int(outlined[c].sum()) for c in range(2)]
    np.testing.assert_allclose(panels[0].collections[0].get_array().reshape(2, 2).T, trial_run.trial_z[0])
