"""Run every ```python block of README.md and docs/*.md, each in a fresh interpreter.

    python scripts/check_doc_examples.py            # all of them
    python scripts/check_doc_examples.py docs/rules.md

Exit 1 naming the file and line of each block that fails. Blocks that only show a fragment
(they start with ``...`` or are marked ``# not run``) are skipped. Slow (each block compiles
its programs), so it is not part of the test suite; run it after changing an API.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(path: pathlib.Path):
    text = path.read_text()
    for m in BLOCK.finditer(text):
        code = m.group(1)
        if code.lstrip().startswith("...") or "# not run" in code:
            continue
        yield text[: m.start()].count("\n") + 1, code


def main(argv: list[str]) -> int:
    files = [pathlib.Path(a) for a in argv] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    failed = 0
    for path in files:
        for line, code in blocks(path):
            proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=1800)
            status = "ok" if proc.returncode == 0 else "FAILED"
            print(f"{status:6s} {path.relative_to(ROOT)}:{line}", flush=True)
            if proc.returncode:
                failed += 1
                print(proc.stderr[-3000:], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
