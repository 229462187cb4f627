"""Files of the viewer: reading a document, checking and writing a page atomically.

A page or document is written through a temporary file renamed into place, so a failure
never leaves a partial file; the JSON is compact and strict (no NaN).
"""

from __future__ import annotations

import json
import os

from cuegym._io import write_atomic  # noqa: F401  (the viewer's writer: one atomic-write helper)


def check_output(path, field: str) -> str:
    """``path`` as a file to write: its folder must exist and it must not be a folder;
    ValueError naming ``field`` otherwise."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"{field}: a file path, got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{field}: the folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{field}: {path!r} is a folder, not a file")
    return path


def dumps(doc: dict) -> str:
    """``doc`` as compact JSON (no NaN or infinity)."""
    return json.dumps(doc, separators=(",", ":"), allow_nan=False)


def load_document(path: str) -> dict:
    """The JSON document in ``path``; ValueError naming ``document`` when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ValueError(f"document: no file {path!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"document: cannot read {path!r}: {e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"document: {path!r} is not JSON ({e})") from None
