"""A progress bar for runs longer than a second (tqdm when installed, else none)."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional


class ProgressBar:
    """Called by the engine with (batches_done, batches_total, elapsed_s); shows a tqdm bar once
    the run has taken a second, so short runs print nothing."""

    def __init__(self, description: str = "pacflow") -> None:
        self._description = description
        self._bar: Any = None
        self._start = time.monotonic()

    def __call__(self, done: int, total: int, elapsed: float) -> None:
        if self._bar is None:
            if elapsed < 1.0:
                return
            try:
                from tqdm.auto import tqdm
            except ImportError:  # no tqdm: no bar
                return
            self._bar = tqdm(total=total, desc=self._description, unit="batch", leave=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        """Removes the bar, if one was shown."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_callback(progress: bool | Callable[[int, int, float], None] | None) -> Optional[Callable[..., None]]:
    """The engine's progress callable: a bar for ``True`` (or ``None``), nothing for ``False``,
    or the caller's own callable(batches_done, batches_total, elapsed_s)."""
    if progress is False:
        return None
    if progress is True or progress is None:
        return ProgressBar()
    if callable(progress):
        return progress
    raise TypeError("progress must be True, False or a callable(batches_done, batches_total, elapsed_s)")
