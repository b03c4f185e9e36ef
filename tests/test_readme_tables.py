"""The README's tables that a bench prints are the bench's current output."""

from __future__ import annotations

from pathlib import Path

from bench.listing_bench import table_rows
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_tools_list_byte_table_is_what_the_listing_bench_prints(example_root: Path) -> None:
    rows = table_rows(example_root)
    assert len(rows) == 4
    missing = [row for row in rows if row not in README.splitlines()]
    assert not missing, "re-run `python -m bench.listing_bench` and paste its table"
