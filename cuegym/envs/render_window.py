"""The window of ``render_mode="human"``: :class:`Viewer` shows frames through matplotlib."""

from __future__ import annotations

import os
import sys

import numpy as np


def has_display() -> bool:
    """Whether a window can be opened (a display on Linux and the BSDs; always elsewhere)."""
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True  # macOS and Windows always have a window system


class Viewer:
    """A window showing rendered frames (``render_mode="human"``), through matplotlib.

    ``show(image)`` opens the window on first use and updates it after; ``close()`` closes
    it. Raises RuntimeError when there is no display (no ``DISPLAY`` / ``WAYLAND_DISPLAY``
    on Linux), when matplotlib is not installed (``pip install 'cuegym[render]'``), or when
    matplotlib has no interactive backend (install a GUI toolkit such as tkinter or Qt)."""

    def __init__(self, title: str = "cuegym"):
        self.title = title
        self._plt = None
        self._fig = None
        self._im = None

    def _start(self):
        if not has_display():
            raise RuntimeError("render_mode='human' needs a display: no DISPLAY or WAYLAND_DISPLAY is set "
                               "(use render_mode='rgb_array' on a headless machine)")
        try:
            import matplotlib
            import matplotlib.pyplot as plt
        except ImportError:
            raise RuntimeError("render_mode='human' needs matplotlib: pip install 'cuegym[render]'") from None
        if matplotlib.get_backend().lower() in ("agg", "pdf", "ps", "svg", "cairo", "template"):
            raise RuntimeError(f"render_mode='human' needs an interactive matplotlib backend, found "
                               f"{matplotlib.get_backend()!r}: install a GUI toolkit (tkinter, PyQt)")
        self._plt = plt
        plt.ion()
        self._fig, ax = plt.subplots(num=self.title)
        ax.set_axis_off()
        self._ax = ax

    def show(self, image) -> None:
        """Show ``image`` (H, W, 3) uint8."""
        image = np.asarray(image)
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"image: (H, W, 3) uint8 expected, got {image.shape} {image.dtype}")
        if self._fig is None:
            self._start()
        if self._im is None or self._im.get_array().shape != image.shape:
            self._ax.clear()
            self._ax.set_axis_off()
            self._im = self._ax.imshow(image)
        else:
            self._im.set_data(image)
        self._fig.canvas.draw_idle()
        self._plt.pause(0.001)

    def close(self) -> None:
        if self._fig is not None:
            self._plt.close(self._fig)
        self._fig = self._im = None
