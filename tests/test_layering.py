"""The layers: storage <- graph <- tasks_server, with networkx and mcp kept in their layer, and
inside tasks_server the three faces (edge: MCP, human: the commands, editor: the language
server) over the core they share; no import circle between our modules, and every tool
handler typed."""

from __future__ import annotations

import ast
import inspect
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from pydantic import BaseModel

from tasks_server.context import ServerContext
from tasks_server.registry import discover
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


@pytest.mark.parametrize("folder", ["docs", "bench"])
def test_the_docs_and_the_benches_import_no_test_module(folder: str) -> None:
    """The docs generator and the benches run from a checkout without the tests' helpers:
    what both need (a fixed-date git repository, the example calls) lives under docs/."""
    assert modules(folder)  # the walk found the folder's code
    for path in modules(folder):
        found = _imports_any(path, ("tests",))
        assert not found, f"{path.relative_to(REPO)} imports {found}"


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


def test_only_the_entry_point_knows_both_faces() -> None:
    found = set().union(*(imports_of(path) for path in ENTRY))
    assert any(n.startswith("tasks_server.edge") for n in found)
    assert any(n.startswith("tasks_server.human") for n in found)


PRODUCT = ("storage", "graph", "tasks_server")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and "TYPE_CHECKING" in ast.unparse(test)


def runtime_imports(path: Path, known: set[str]) -> set[str]:
    """Our modules `path` imports when it runs: at module level or inside a function (a
    deferred import runs too), not in an `if TYPE_CHECKING:` block (never run: annotations
    may name each other both ways). `from a import b` imports module `a.b` when it is one."""
    found: set[str] = set()
    pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        if _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update((named & known) or {node.module})
        pending.extend(ast.iter_child_nodes(node))
    return found & known


def import_circle() -> list[str]:
    """One circle of imports between product modules (deferred ones counted), or none."""
    paths = {_module_name(path): path for package in PRODUCT for path in modules(package)}
    edges = {name: runtime_imports(path, set(paths)) - {name} for name, path in paths.items()}
    state: dict[str, int] = {}  # 1: on the walk's path, 2: done

    def walk(name: str, trail: list[str]) -> list[str]:
        state[name] = 1
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                return [*trail[trail.index(target) :], target] if target in trail else [target]
            if target not in state and (found := walk(target, [*trail, target])):
                return found
        state[name] = 2
        return []

    for name in sorted(edges):
        if name not in state and (circle := walk(name, [name])):
            return circle
    return []


def test_no_import_circle_between_product_modules_counting_deferred_imports() -> None:
    assert import_circle() == []


def test_a_deferred_import_that_closes_a_circle_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def later():\n    import a\n")
    (tmp_path / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n"
    )
    known = {"a", "b", "c"}
    assert runtime_imports(tmp_path / "b.py", known) == {"a"}
    assert runtime_imports(tmp_path / "c.py", known) == set()


def test_no_tool_handler_takes_an_untyped_context_or_arguments(tmp_path: Path) -> None:
    shutil.copytree(REPO / "data" / "bots", tmp_path / "bots")
    context = ServerContext.open(tmp_path, watch=False)
    specs = [*discover(), *context.bot_specs()]
    context.close()
    assert any(spec.tier == "workflow" for spec in specs)  # the bots' generated tools too
    for spec in specs:
        hints = get_type_hints(spec.handler, localns=TYPED_ONLY)
        context_type, args_type = (hints.get(name, Any) for name in _parameters(spec.handler))
        assert context_type is ServerContext, spec.name
        assert args_type is not Any and _is_model(args_type), spec.name


TYPED_ONLY = {"ServerContext": ServerContext}
"""A name a bot handler's module imports only for type checking (it would close a circle)."""


def _parameters(handler: object) -> list[str]:
    return list(inspect.signature(handler).parameters)  # type: ignore[arg-type]


def _is_model(kind: object) -> bool:
    bound = getattr(kind, "__bound__", kind)  # a bot handler's input is a TypeVar of models
    return isinstance(bound, type) and issubclass(bound, BaseModel)
