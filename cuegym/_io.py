"""Atomic file writes shared by the tools and experiments.

A file is written to a temporary file in the same folder and renamed over the target, so a
reader never sees half a file and a failure leaves none. This module sits outside the
package layers: it imports nothing of cuegym.
"""

from __future__ import annotations

import os
import tempfile


def write_atomic(path: str, data: bytes | str) -> None:
    """Write ``data`` (bytes, or text written as UTF-8) to ``path`` atomically. The file gets
    the mode a plain ``open`` would give it (0o666 less the umask). Raises the ``OSError``
    of a failed write, with no temporary file left behind."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(prefix=".cuegym-", suffix=".tmp", dir=folder)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes the file private
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
