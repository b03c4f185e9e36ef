"""The layers: storage <- graph <- tasks_server, with networkx and mcp kept in their layer, and
inside tasks_server the three faces (edge: MCP, human: the commands, editor: the language
server) over the core they share."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

OURS = {"storage", "graph", "tasks_server", "bench", "tests"}
ALLOWED = {
    "storage": set(),
    "graph": {"storage.model", "storage.bulk"},  # the model, and the one GC pause of bulk loads
    "tasks_server": {"storage", "graph"},
}
THIRD_PARTY_HOME = {
    "networkx": "graph",
    "mcp": "tasks_server",
    "pygls": "tasks_server",
    "lsprotocol": "tasks_server",
}


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


EDGE = REPO / "tasks_server" / "edge"
HUMAN = REPO / "tasks_server" / "human"
EDITOR = REPO / "tasks_server" / "editor"
FACES = (EDGE, HUMAN, EDITOR)
ENTRY = {REPO / "tasks_server" / "cli.py", REPO / "tasks_server" / "__main__.py"}


def _imports_any(path: Path, prefixes: tuple[str, ...]) -> list[str]:
    return sorted(
        n for n in imports_of(path) if any(n == p or n.startswith(p + ".") for p in prefixes)
    )


def core_modules() -> list[Path]:
    """The modules both faces share: tasks_server outside its faces and its entry point."""
    return [
        path
        for path in modules("tasks_server")
        if not any(path.is_relative_to(face) for face in FACES) and path not in ENTRY
    ]


def test_the_human_face_never_imports_the_mcp_edge_or_the_sdk() -> None:
    for path in sorted(HUMAN.rglob("*.py")):
        found = _imports_any(
            path, ("tasks_server.edge", "tasks_server.editor", "mcp", "pygls", "tasks_server.cli")
        )
        assert not found, f"{path.relative_to(REPO)} imports {found}"


def test_the_mcp_edge_never_imports_the_human_face() -> None:
    for path in sorted(EDGE.rglob("*.py")):
        found = _imports_any(
            path, ("tasks_server.human", "tasks_server.editor", "tasks_server.cli")
        )
        assert not found, f"{path.relative_to(REPO)} imports {found}"


def test_the_editor_face_imports_neither_other_face_nor_the_sdk_nor_rich() -> None:
    assert len(sorted(EDITOR.rglob("*.py"))) > 3  # the walk found the editor face
    others = ("tasks_server.edge", "tasks_server.human", "tasks_server.cli", "mcp", "rich")
    for path in sorted(EDITOR.rglob("*.py")):
        found = _imports_any(path, others)
        assert not found, f"{path.relative_to(REPO)} imports {found}"


def test_the_mcp_sdk_never_loads_in_a_language_server_process(tmp_path: Path) -> None:
    """A real `tasks-server lsp` run (its editor hangs up at once: stdin is empty), then what
    the process loaded: pygls, never the MCP SDK nor rich."""
    probe = (
        "import sys\n"
        "from tasks_server import cli\n"
        f"status = cli.main(['lsp', '--root', {str(tmp_path)!r}])\n"
        "loaded = {m.split('.')[0] for m in sys.modules} & {'mcp', 'rich', 'pygls'}\n"
        "print(status, sorted(loaded), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.stderr.strip().splitlines()[-1] == "0 ['pygls']"
