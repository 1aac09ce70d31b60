"""TensorPAC's plotting methods (``tensorpac/visu.py``: ``pacplot``, ``comodulogram``, ``triplot``,
``polar``, ``savefig``, ``show``) for the drop-in's classes, drawn with matplotlib's pyplot into the
current figure, as TensorPAC draws them.

Matplotlib is imported when a method draws (``pip install pacflow[plot]``). These mixins read
``xvec`` and ``yvec`` from the object they are mixed into and keep no state between calls
(TensorPAC's ``_autovmM`` flag, which makes a ``pacplot`` after a ``triplot`` lose its automatic
colour limits, is an argument here).
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("TensorPAC's plotting methods need matplotlib (pip install 'pacflow[plot]')") from None
    return plt


def _bilinear(values: np.ndarray, row_step: float, col_step: float) -> np.ndarray:
    """`values` resampled on a grid whose steps are `row_step` and `col_step` of the original spacing
    (0.1 gives ten points per original interval), bilinearly, both ends included."""
    rows, cols = values.shape
    if rows < 2 or cols < 2:
        raise ValueError("interpolation needs a map of at least 2 x 2 values")
    new_rows = np.arange(0.0, rows - 1 + row_step / 2, row_step).clip(0, rows - 1)
    new_cols = np.arange(0.0, cols - 1 + col_step / 2, col_step).clip(0, cols - 1)
    along_cols = np.array([np.interp(new_cols, np.arange(cols), row) for row in np.asarray(values, dtype=float)])
    return np.array([np.interp(new_rows, np.arange(rows), column) for column in along_cols.T]).T


def interpolate_map(values: np.ndarray, xvec: np.ndarray, yvec: np.ndarray, x_step: float,
                    y_step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 2D map `values` (len(yvec), len(xvec)) interpolated bilinearly with steps `x_step` and `y_step`
    of its columns and rows (TensorPAC's ``mapinterpolation``: ``(.1, .1)`` multiplies the number of
    rows and columns by about ten), with its axes resampled evenly between their ends.

    Returns
    -------
    values, xvec, yvec : numpy.ndarray
        The interpolated map and its axes, ``values.shape == (len(yvec), len(xvec))``.
    """
    fine = _bilinear(np.asarray(values, dtype=float), y_step, x_step)
    xvec, yvec = np.asarray(xvec, dtype=float), np.asarray(yvec, dtype=float)
    return fine, np.linspace(xvec[0], xvec[-1], fine.shape[1]), np.linspace(yvec[0], yvec[-1], fine.shape[0])


def _symmetric_limits(values: np.ma.MaskedArray) -> tuple[float, float]:
    """TensorPAC's automatic colour limits: [min(0, lowest), max(0, highest)], symmetric about 0 when
    the values have both signs."""
    lowest, highest = float(np.nanmin(values)), float(np.nanmax(values))
    vmin, vmax = min(0.0, lowest), max(0.0, highest)
    if vmin < 0 < vmax:
        vmax = max(vmax, -vmin)
        vmin = -vmax
    return vmin, vmax


class _Plots:
    """``pacplot``, ``savefig`` and ``show`` (TensorPAC's ``_PacVisual``)."""

    def pacplot(self, pac: Any, xvec: Any, yvec: Any, xlabel: str = "", ylabel: str = "", cblabel: str = "",
                title: str = "", fz_labels: float = 12, fz_title: float = 13, fz_cblabel: float = 12,
                cmap: str = "viridis", vmin: Optional[float] = None, vmax: Optional[float] = None,
                under: Optional[str] = None, over: Optional[str] = None, bad: Optional[str] = None,
                pvalues: Any = None, p: float = 0.05, interp: Optional[Sequence[float]] = None,
                rmaxis: bool = False, dpaxis: bool = False, plotas: str = "imshow", ncontours: int = 5,
                levels: Union[float, Sequence[float], None] = None, levelcmap: str = "Reds", polar: bool = False,
                colorbar: bool = True, y: float = 1.02, subplot: int = 111) -> Any:
        """Draw any 2D array, as TensorPAC's ``pacplot``.

        Parameters
        ----------
        pac : array_like
            The map, (len(yvec), len(xvec)).
        xvec, yvec : array_like
            The x and y axes' values.
        xlabel, ylabel, cblabel, title : str
            Labels of the axes, the colour bar and the title.
        fz_labels, fz_title, fz_cblabel : float
            Font sizes of the axis labels, the title and the colour bar's label.
        cmap : str
            Matplotlib colour map.
        vmin, vmax : float, optional
            Colour limits; both None: [min(0, lowest), max(0, highest)], symmetric about 0 when the
            values have both signs.
        under, over, bad : str, optional
            Colours below `vmin`, above `vmax`, and of masked (non-significant) cells.
        pvalues : array_like, optional
            p-values of the cells (the shape of `pac`): cells with ``pvalues >= p`` are masked.
        p : float
            The masking threshold.
        interp : tuple of 2 float, optional
            Steps of a bilinear interpolation along x and y, in cells (``(.1, .1)``: ten times finer).
        rmaxis : bool
            Hide the top and right spines.
        dpaxis : bool
            Move the left and bottom spines 10 points outward.
        plotas : {"imshow", "contour", "pcolor"}
            How the map is drawn.
        ncontours : int
            Number of filled contours with ``plotas="contour"``.
        levels : float or list of float, optional
            p-value contours drawn over the (unmasked) map.
        levelcmap : str
            Colour map of the p-value contours.
        polar : bool
            Draw on polar axes (``subplot``), as a pcolormesh with x the radius and y the angle.
        colorbar : bool
            Add a colour bar.
        y : float
            Title position.
        subplot : int
            The polar subplot's position (``polar=True``).

        Returns
        -------
        matplotlib.axes.Axes
            The current axes.
        """
        return self._draw(pac, xvec, yvec, auto_limits=True, xlabel=xlabel, ylabel=ylabel, cblabel=cblabel,
                          title=title, fz_labels=fz_labels, fz_title=fz_title, fz_cblabel=fz_cblabel, cmap=cmap,
                          vmin=vmin, vmax=vmax, under=under, over=over, bad=bad, pvalues=pvalues, p=p,
                          interp=interp, rmaxis=rmaxis, dpaxis=dpaxis, plotas=plotas, ncontours=ncontours,
                          levels=levels, levelcmap=levelcmap, polar=polar, colorbar=colorbar, y=y, subplot=subplot)

    def _draw(self, pac: Any, xvec: Any, yvec: Any, *, auto_limits: bool, xlabel: str = "", ylabel: str = "",
              cblabel: str = "", title: str = "", fz_labels: float = 12, fz_title: float = 13,
              fz_cblabel: float = 12, cmap: str = "viridis", vmin: Optional[float] = None,
              vmax: Optional[float] = None, under: Optional[str] = None, over: Optional[str] = None,
              bad: Optional[str] = None, pvalues: Any = None, p: float = 0.05,
              interp: Optional[Sequence[float]] = None, rmaxis: bool = False, dpaxis: bool = False,
              plotas: str = "imshow", ncontours: int = 5, levels: Union[float, Sequence[float], None] = None,
              levelcmap: str = "Reds", polar: bool = False, colorbar: bool = True, y: float = 1.02,
              subplot: int = 111) -> Any:
        plt = _pyplot()
        import matplotlib

        values = pac if isinstance(pac, np.ma.MaskedArray) else np.asarray(pac)
        if values.ndim != 2:
            raise ValueError("The PAC variable must have two dimensions.")
        if plotas not in ("imshow", "contour", "pcolor"):
            raise ValueError("The plotas parameter must either be 'imshow', 'contour' or 'pcolor'")
        xvec, yvec = np.asarray(xvec), np.asarray(yvec)
        pvalues = np.zeros(values.shape) if pvalues is None else np.asarray(pvalues, dtype=float)
        if interp is not None:
            data = np.ma.filled(values.astype(float), np.nan) if np.ma.isMaskedArray(values) else values
            values, new_x, new_y = interpolate_map(data, xvec, yvec, interp[0], interp[1])
            pvalues = interpolate_map(pvalues, xvec, yvec, interp[0], interp[1])[0]
            xvec, yvec = new_x, new_y
        mask = np.ma.getmaskarray(values) | (pvalues >= p)
        masked = np.ma.masked_array(np.ma.getdata(values), mask=mask)
        if polar:
            plotas = "pcolor"
            plt.subplot(subplot, projection="polar")
        if vmin is None and vmax is None and auto_limits and masked.count():
            vmin, vmax = _symmetric_limits(masked)
        colours = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
        colours = colours.with_extremes(under=under, over=over, bad=bad)
        shown = masked.data if levels is not None else masked
        ax = plt.gca()
        if plotas == "imshow":
            image = ax.imshow(shown, aspect="auto", cmap=colours, origin="upper", vmin=vmin, vmax=vmax,
                              interpolation="none", extent=(xvec[0], xvec[-1], yvec[-1], yvec[0]))
            ax.invert_yaxis()
        elif plotas == "contour":
            image = ax.contourf(xvec, yvec, shown, ncontours, cmap=colours, vmin=vmin, vmax=vmax)
        else:
            image = ax.pcolormesh(xvec, yvec, shown, cmap=colours, vmin=vmin, vmax=vmax, antialiased=True)
        self._plt_im = image
        if levels is not None:
            ax.contour(pvalues, extent=(xvec[0], xvec[-1], yvec[0], yvec[-1]),
                       levels=[levels] if isinstance(levels, (int, float)) else list(levels), cmap=levelcmap)
        ax.axis("tight")
        ax.set_xlabel(xlabel, fontsize=fz_labels)
        ax.set_ylabel(ylabel, fontsize=fz_labels)
        ax.set_title(title, y=y, fontsize=fz_title)
        image.set_clim(vmin, vmax)
        if colorbar:
            bar = plt.colorbar(image, ax=ax, shrink=0.7, pad=0.01, aspect=10)
            bar.set_label(cblabel, fontsize=fz_cblabel)
            bar.outline.set_visible(False)
        if rmaxis:
            for side in ("top", "right"):
                ax.spines[side].set_color("none")
                ax.tick_params(**{side: False})
        if dpaxis:
            for side in ("left", "bottom"):
                ax.spines[side].set_position(("outward", 10))
        if polar:
            ax.grid(True)
            ax.set_rlabel_position(0)
            ax.set_thetamin(-180)
            ax.set_thetamax(180)
            ax.set_thetagrids([-135, -90, -45, 0, 45, 90, 135, 180])
        return ax

    def savefig(self, filename: str, dpi: int = 600) -> None:
        """Save the current figure (``bbox_inches="tight"``), as TensorPAC's ``savefig``.

        Parameters
        ----------
        filename : str
            The file; its extension chooses the format.
        dpi : int
            Resolution.
        """
        _pyplot().savefig(filename, dpi=dpi, bbox_inches="tight")

    def show(self) -> None:
        """Show the figures (``matplotlib.pyplot.show``)."""
        _pyplot().show()


class _PacPlots(_Plots):
    """``comodulogram``, ``triplot`` and ``polar`` (TensorPAC's ``_PacPlt`` and ``_PolarPlt``)."""

    xvec: np.ndarray
    yvec: np.ndarray

    def comodulogram(self, pac: Any, xlabel: str = "Frequency for phase (hz)",
                     ylabel: str = "Frequency for amplitude (hz)", cblabel: str = "PAC values", **kwargs: Any) -> Any:
        """The comodulogram: `pac` (n_amp, n_pha) over the phase (x) and amplitude (y) band centres.

        Parameters
        ----------
        pac : array_like
            (n_amp, n_pha); a 3D array (n_amp, n_pha, n_epochs) is averaged over its last axis, with a
            warning, as TensorPAC does.
        xlabel, ylabel, cblabel : str
            Labels.
        **kwargs
            Passed to :meth:`pacplot` (``pvalues=``, ``p=``, ``cmap=``, ``vmin=``, ``title=``, ...).

        Returns
        -------
        matplotlib.axes.Axes
        """
        values = np.asarray(pac)
        if values.ndim == 3:
            warnings.warn("3d pac array has been given as an input. Only 2d arrays are supported for plotting. "
                          "Taking the mean across the last dimension", stacklevel=2)
            values = values.mean(-1)
        return self._draw(values, self.xvec, self.yvec, auto_limits=True, xlabel=xlabel, ylabel=ylabel,
                          cblabel=cblabel, **kwargs)

    def triplot(self, pac: Any, fvec: Any, tridx: Any, xlabel: str = "Starting frequency (hz)",
                ylabel: str = "Ending frequency (hz)", cblabel: str = "PAC values", bad: str = "lightgray",
                **kwargs: Any) -> Any:
        """The triangular plot of :func:`pac_trivec`'s bands: PAC by each band's starting (x) and ending
        (y) frequency, to find the best band.

        Parameters
        ----------
        pac : array_like
            One value per band of `fvec`, (n_bands,) (squeezed).
        fvec, tridx : array_like
            :func:`pac_trivec`'s bands and their indices.
        xlabel, ylabel, cblabel : str
            Labels.
        bad : str
            Colour of the cells that are no band.
        **kwargs
            Passed to :meth:`pacplot`.

        Returns
        -------
        matplotlib.axes.Axes
        """
        values, index = np.squeeze(np.asarray(pac)), np.squeeze(np.asarray(tridx)).astype(int)
        fvec = np.asarray(fvec, dtype=float)
        if values.ndim != 1:
            raise ValueError("The PAC variable must be a row vector.")
        if len(values) != index.shape[0]:
            raise ValueError("PAC and tridx variables must have the same length.")
        size = int(index.max()) + 2
        grid = np.zeros((size, size))
        grid[index[:, 0], index[:, 1]] = values
        # Row r of the drawn map is the grid's row size-1-r; the cells on and above the diagonal of the
        # drawn map hold no band.
        shown = np.ma.masked_array(grid[::-1], mask=np.triu(np.ones((size, size), dtype=bool)))
        edges = np.append(fvec[index[:, 0] == 0, 0], fvec.max())
        return self._draw(shown, edges, edges, auto_limits=False, xlabel=xlabel, ylabel=ylabel, cblabel=cblabel,
                          bad=bad, **kwargs)

    def polar(self, amp: Any, xvec: Any, yvec: Any, interp: Optional[float] = None, **kwargs: Any) -> Any:
        """Amplitude by phase on polar axes (the angle is the phase `yvec`, the radius `xvec`), as
        TensorPAC's ``PreferredPhase.polar``.

        Parameters
        ----------
        amp : array_like
            (len(yvec), len(xvec)), e.g. a binned amplitude (n_bins, n_amp) of one phase band.
        xvec : array_like
            Radial values (e.g. amplitude band centres).
        yvec : array_like
            Angles in radians (e.g. the ``polarvec`` of :meth:`PreferredPhase.fit`).
        interp : float, optional
            Interpolation step along the radius, in cells (0.1: ten times finer), as TensorPAC's.
        **kwargs
            Passed to :meth:`pacplot` (``subplot=``, ``cmap=``, ``title=``, ...).

        Returns
        -------
        matplotlib.axes.PolarAxes
        """
        values, xvec, yvec = np.asarray(amp), np.asarray(xvec), np.asarray(yvec)
        if interp is not None:
            values, xvec, yvec = interpolate_map(values, xvec, yvec, interp, 1.0)
        return self._draw(values, xvec, yvec, auto_limits=False, polar=True, **kwargs)
