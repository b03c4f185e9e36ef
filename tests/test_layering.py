"""The layers: storage <- graph <- tasks_server, with networkx and mcp kept in their layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

OURS = {"storage", "graph", "tasks_server", "bench", "tests"}
ALLOWED = {
    "storage": set(),
    "graph": {"storage.model"},
    "tasks_server": {"storage", "graph"},
}
THIRD_PARTY_HOME = {"networkx": "graph", "mcp": "tasks_server"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def modules(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(package: str) -> None:
    allowed = ALLOWED[package] | {package}
    for path in modules(package):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in OURS:
                assert any(name == a or name.startswith(a + ".") for a in allowed), (
                    f"{path.relative_to(REPO)} imports {name}"
                )


@pytest.mark.parametrize(("library", "home"), sorted(THIRD_PARTY_HOME.items()))
def test_third_party_libraries_stay_inside_their_layer(library: str, home: str) -> None:
    for package in ALLOWED:
        if package == home:
            continue
        for path in modules(package):
            tops = {name.split(".")[0] for name in imports_of(path)}
            assert library not in tops, f"{path.relative_to(REPO)} imports {library}"


def test_nothing_below_imports_tasks_server() -> None:
    for package in ("storage", "graph"):
        for path in modules(package):
            assert not any(n.split(".")[0] == "tasks_server" for n in imports_of(path)), path
