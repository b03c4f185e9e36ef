"""Every generated part of the README and of docs/ is what its generator writes now.

The tool and CLI references, the roles table and its byte counts are written by `cog` blocks
that run `docs/docgen.py` against the registry, the parser and the bundled tree. After a
change that alters any of them: `cog -r -I . README.md docs/*.md`, then read the diff.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PAGES = ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]


def test_every_generated_part_of_the_docs_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "-I", ".", *PAGES],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    stale = [line for line in done.stdout.splitlines() if "(changed)" in line]
    assert done.returncode == 0, (
        f"stale: {stale or done.stderr[-2000:]}; run `cog -r -I . README.md docs/*.md`"
    )


def test_the_readme_stays_a_five_minute_read() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail to docs/"
