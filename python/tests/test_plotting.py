"""Result.plot() as a reader sees it (issue 40): one statistic per picture (the colour and the outline
from the same test, both named), a panel per condition, panels labelled by what they are, and no
text drawn over other text."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.text  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import pacflow  # noqa: E402
from conftest import coupled, outlined_cells  # noqa: E402

BANDS = {"f_pha": [[4, 8], [8, 12]], "f_amp": [[60, 80], [80, 100]], "progress": False}


@pytest.fixture(scope="module")
def conditions_run() -> pacflow.Result:
    """12 epochs of 3 channels in two conditions, go and nogo, alternating; channel 0 coupled."""
    return pacflow.comodulogram(coupled(epochs=12, channels=3, n_times=1024), 256, conditions=["go", "nogo"] * 6,
                                n_perm=50, random_state=2, surrogates__min_shift="0.5s", **BANDS)


def visible_texts(figure: matplotlib.figure.Figure) -> list[tuple[str, object]]:
    """Every piece of text drawn, with its box: tick labels only where their tick lies in the view (matplotlib
    keeps labels of ticks outside it, undrawn)."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    tick_labels, drawn_ticks = set(), []
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick_labels.update({id(tick.label1), id(tick.label2)})
                if ax.get_visible() and lo - 1e-9 * (hi - lo) <= tick.get_loc() <= hi + 1e-9 * (hi - lo):
                    drawn_ticks += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    others = [t for t in figure.findobj(matplotlib.text.Text) if id(t) not in tick_labels and t.get_visible()
              and (t.axes is None or t.axes.get_visible())]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in others + drawn_ticks if t.get_text().strip()]


def expect_no_text_over_text(figure: matplotlib.figure.Figure) -> None:
    texts = visible_texts(figure)
    page = figure.bbox
    for text, box in texts:
        assert box.x0 >= page.x0 - 1 and box.x1 <= page.x1 + 1 and box.y0 >= page.y0 - 1 and box.y1 <= page.y1 + 1, \
            f"{text!r} leaves the figure"
    for (a, box_a), (b, box_b) in itertools.combinations(texts, 2):
        assert not box_a.overlaps(box_b), f"{a!r} is drawn over {b!r}"


def test_a_statistic_is_outlined_by_its_own_test(conditions_run: pacflow.Result) -> None:
    contrast = conditions_run.plot("contrast_z", per_channel=True)
    assert "(contrast_z)" in contrast.get_suptitle() and "contrast_pvalues" in contrast.get_suptitle()
    assert "trial_pvalues" not in contrast.get_suptitle()
    panels = [a for a in contrast.axes if a.get_visible() and a.get_title()]
    assert [a.get_title() for a in panels] == ["channel 0", "channel 1", "channel 2"]
    with np.errstate(invalid="ignore"):
        expected = (conditions_run.contrast_pvalues < 0.05).sum(axis=(1, 2))
    assert [outlined_cells(a) for a in panels] == list(expected)
    np.testing.assert_allclose(panels[1].collections[0].get_array().reshape(2, 2).T, conditions_run.contrast_z[1])

    per_epoch = conditions_run.plot("pac_z", per_channel=True)
    assert "pvalues_maxstat" in per_epoch.get_suptitle() and "(pac_z)" in per_epoch.get_suptitle()
    surrogate_mean = conditions_run.plot("surrogate_mean")
    assert "no test of surrogate_mean" in surrogate_mean.axes[0].get_title()
    assert all(outlined_cells(a) == 0 for a in surrogate_mean.axes)


def test_significance_is_a_contour_around_each_region_not_a_box_per_cell() -> None:
    import matplotlib.pyplot as plt

    from pacflow.plotting import _outline

    _, ax = plt.subplots()
    mask = np.array([[True, True], [False, True]])  # an L of three cells on a 2 x 2 grid
    _outline(ax, np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0]), mask)
    (contour,) = ax.collections
    assert outlined_cells(ax) == 3
    # The L's boundary: 8 unit sides (a box per cell would draw 12, 4 of them twice inside the L).
    assert len(contour.get_segments()) == 8
    drawn = {tuple(map(tuple, s)) for s in contour.get_segments()}
    shared = {((0.0, 1.0), (1.0, 1.0)), ((1.0, 1.0), (1.0, 2.0))}  # between two significant cells
    bordering = {((1.0, 0.0), (1.0, 1.0)), ((1.0, 1.0), (2.0, 1.0))}  # towards the cell outside, (1, 0)
    assert not drawn & shared, "no side between two significant cells"
    assert bordering <= drawn, "the sides towards the cell outside the region"


def test_each_condition_gets_its_own_panels_outlined_by_its_own_p_values(conditions_run: pacflow.Result) -> None:
    figure = conditions_run.plot()
    panels = [a for a in figure.axes if a.get_visible() and a.get_title()]
    assert [a.get_title() for a in panels] == ["go · mean over 3 channels", "nogo · mean over 3 channels"]
    for c, panel in enumerate(panels):
        np.testing.assert_allclose(panel.collections[0].get_array().reshape(2, 2).T,
                                   conditions_run.trial_z[c].mean(axis=0), rtol=1e-6)
    grid = conditions_run.plot(per_channel=True)
    titles = [a.get_title() for a in grid.axes if a.get_visible() and a.get_title()]
    assert titles == [f"{c} · channel {k}" for c in ("go", "nogo") for k in range(3)]
    with np.errstate(invalid="ignore"):
        expected = (conditions_run.trial_pvalues < 0.05).sum(axis=(2, 3)).ravel()
    assert [outlined_cells(a) for a in grid.axes if a.get_visible() and a.get_title()] == list(expected)
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="ax holds one panel; this figure has 2"):
        conditions_run.plot(ax=ax)


def test_no_text_is_drawn_over_other_text(conditions_run: pacflow.Result) -> None:
    many = pacflow.comodulogram(coupled(epochs=4, channels=16, n_times=1024), 256, f_pha="4:12:5", f_amp="50:100:8",
                                n_perm=20, surrogates__min_shift="0.5s", progress=False)
    for figure in (conditions_run.plot(), conditions_run.plot(per_channel=True), many.plot(),
                   many.plot(per_channel=True), conditions_run.plot("contrast_z")):
        expect_no_text_over_text(figure)
