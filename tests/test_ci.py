"""CI runs exactly the README's test command, then the deep checks the README names."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def readme_test_command() -> str:
    (found,) = re.findall(r"&& (python -m pytest[^\n`]*)\n", README)
    return found.strip()


def test_ci_runs_the_readmes_test_command_then_the_deep_marker_it_names() -> None:
    command = readme_test_command()
    assert f'{command} "$@"' in CI
    runs = re.findall(r"^pytest_run( -.*)?$", CI, flags=re.MULTILINE)
    assert runs == ["", " -m deep"]
    assert f"`{command} -m deep`" in README


def test_the_quick_run_leaves_out_exactly_the_deep_marker() -> None:
    options = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert options["addopts"].endswith("-m 'not deep'")
    assert any(marker.startswith("deep: ") for marker in options["markers"])
