"""Real server processes: none outlives its test, pass or fail."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.stdio import stop_all


@pytest.fixture(autouse=True)
def _no_server_left_running() -> Iterator[None]:
    yield
    stop_all()
