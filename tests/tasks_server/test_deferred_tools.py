"""A start lists the tools from what their declarations said at the last start
(`registry.DeferredSpec`, kept by `edge.schema_cache.declared_tools`) and imports a tool's
module at its first call: a fresh process that has loaded no tool module gives the same
listing, instructions, guidance phrases, role filter and call answers as one that has
loaded them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tasks_server.edge.schema_cache import schema_cache
from tasks_server.edge.server import TasksServer, create_server
from tasks_server.guidance import ACTION_HELP
from tasks_server.registry import DeferredSpec, deferred, discover, facts_of
from tests.conftest import in_fresh_interpreter

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_tasks", {"limit": 1}),
    ("get_task", {"no_such_argument": 1}),  # refused by the model its module declares
    ("delete_task", {"task_id": "nope"}),  # a tool with a question for the person
]

PROBE = """
import json, sys
from pathlib import Path
from tasks_server.edge.server import create_server
from tests.tasks_server.test_deferred_tools import answers
root = Path(sys.argv[1])
tools = lambda: sorted(m for m in sys.modules if m.startswith("tasks_server.tools."))
seen = answers(root)
seen["loaded"] = tools()
print(json.dumps(seen), file=sys.stderr)
"""


def _listing(server: TasksServer) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True) for tool in server._tools]


def answers(root: Path) -> dict[str, Any]:
    """What a start over `root` lists and says, then what each of `CALLS` answers."""
    server = create_server(root, watch=False)
    planner = create_server(root, role="planner", watch=False)
    listed = {
        "listing": _listing(server),
        "instructions": server.instructions,
        "planner": _listing(planner),
        "help": {name: ACTION_HELP.get(name) for name in server.toolset.specs},
    }
    asks = [server.toolset.may_ask(name) for name, _ in CALLS]
    runs = [server.toolset.run(name, arguments).data for name, arguments in CALLS]
    server.close()
    planner.close()
    return {**listed, "asks": asks, "calls": runs}


def test_a_fresh_start_lists_without_tool_modules_and_answers_as_a_loaded_one(
    example_root: Path,
) -> None:
    # A first start after a code change: it leaves the declarations' facts and the tools'
    # schemas for the next (with the facts alone, a start would still import every tool
    # module to make the schemas).
    create_server(example_root, watch=False).close()
    kept = schema_cache().path
    assert kept is not None and kept.exists()
    fresh = in_fresh_interpreter(PROBE, str(example_root))
    discover()  # every module loaded here
    assert fresh.pop("loaded") == [  # the called tools' modules, and what they import
        "tasks_server.tools._about",
        "tasks_server.tools._guarded",
        "tasks_server.tools._writes",
        "tasks_server.tools.list_tasks",
        "tasks_server.tools.mutation",
        "tasks_server.tools.query",
    ]
    assert fresh == json.loads(json.dumps(answers(example_root)))


def test_a_deferred_tool_is_its_declared_one_once_its_module_is_loaded() -> None:
    specs = discover()
    facts = [facts_of(spec) for spec in specs]
    assert deferred(facts) == specs  # a loaded module's tool is its own spec
    lazy = DeferredSpec(facts[0])
    assert lazy.loaded() is specs[0]
    assert (lazy.input_model, lazy.output_model, lazy.handler) == (
        specs[0].input_model,
        specs[0].output_model,
        specs[0].handler,
    )
    assert (lazy.example, lazy.confirm, lazy.project_arg) == (
        specs[0].example,
        specs[0].confirm,
        specs[0].project_arg,
    )
    assert facts_of(lazy) == facts[0]
