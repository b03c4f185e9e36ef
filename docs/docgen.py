"""The generated parts of the docs: the tool reference, the CLI reference, the roles table.

Each function returns markdown that a `cog` block in a page prints, so a page is written by
running the code it documents:

    cog -r -I . README.md docs/*.md        # rewrite every generated part
    cog --check -I . README.md docs/*.md   # CI: fail when a part is stale

Everything here is read from the registry, the parser and real calls on a copy of the bundled
tree with a fixed clock, never typed by hand; answers are cut to a few lines and the values
that differ from run to run (file times, tokens) are written as `…`.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from pydantic import BaseModel

from bench.listing_bench import table_rows
from docs.examples import ARGUMENTS
from docs.fixed_git import commit_all, init
from storage import naming
from tasks_server.cli import build_parser
from tasks_server.edge.server import create_server
from tasks_server.roles import ROLES
from tasks_server.roots import bundled_root
from tasks_server.toolset import open_toolset

NOW = "2026-11-22T12:00:00Z"
ANSWER_LINES = 24
VOLATILE = {
    "file_modified",
    "token",
    "since_token",
    "load_seconds",
    "seconds",
    "last_refresh_ms",
    "index_age_seconds",
    "timestamp",
}
TIER_ORDER = ("query", "mutation", "admin", "workflow")


def roles_table() -> str:
    """The roles, their tiers and what their `tools/list` costs, measured now."""
    head = (
        "| role | tiers | tools | `tools/list` bytes (all / without outputSchema) "
        "| instructions bytes |\n|---|---|---:|---:|---:|\n"
    )
    return head + "\n".join(table_rows(bundled_root())) + "\n"


@contextmanager
def example_tree() -> Iterator[Path]:
    """A writable copy of the bundled tree, in git (the history tools read it)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tasks"
        shutil.copytree(bundled_root(), root, ignore=shutil.ignore_patterns("odd"))
        _git_init(root)
        yield root


def _git_init(root: Path) -> None:
    commit_all(init(root), "the example tree")


def _roles_of(tier: str) -> str:
    return ", ".join(role for role, tiers in ROLES.items() if tier in tiers)


def _type(schema: dict[str, Any]) -> str:
    """A JSON schema's type in a few characters: `string`, `integer | null`, `list of string`."""
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "anyOf" in schema:
        return " \\| ".join(_type(part) for part in schema["anyOf"])
    if schema.get("type") == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if "$ref" in schema:
        return "object"
    return str(schema.get("type", "any"))


def _arguments(schema: dict[str, Any]) -> str:
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        return "No arguments.\n"
    required = set(schema.get("required", []))
    lines = ["| argument | type | default | description |", "|---|---|---|---|"]
    for name, prop in properties.items():
        default = "required" if name in required else f"`{json.dumps(prop.get('default'))}`"
        text = " ".join(str(prop.get("description", "")).split()).replace("|", "\\|")
        lines.append(f"| `{name}` | {_type(prop)} | {default} | {text} |")
    return "\n".join(lines) + "\n"


def _answer_keys(schema: dict[str, Any]) -> str:
    """The answer's own keys with their descriptions (`success` and `guidance` are on every
    answer and said once, above)."""
    lines = ["| answer key | description |", "|---|---|"]
    for key, prop in schema.get("properties", {}).items():
        if key in ("success", "guidance"):
            continue
        text = " ".join(str(prop.get("description", "")).split()).replace("|", "\\|")
        lines.append(f"| `{key}` | {text} |")
    return (
        "\n".join(lines) + "\n" if len(lines) > 2 else "The answer is `success` and `guidance`.\n"
    )


def _scrub(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: "…" if k in VOLATILE else _scrub(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_scrub(v) for v in data]
    return data


def _shown(data: dict[str, Any], root: Path) -> str:
    text = json.dumps(_scrub(data), indent=2, ensure_ascii=False)
    lines = text.replace(str(root), "/home/me/tasks").splitlines()
    if len(lines) > ANSWER_LINES:
        lines = [*lines[:ANSWER_LINES], f"… ({len(lines) - ANSWER_LINES} more lines)"]
    return "\n".join(lines)


async def _examples(root: Path, calls: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each example call's answer, made in the order given on one session."""
    server = create_server(root, watch=False)
    server.context.set_clock(datetime.fromisoformat(NOW))
    shown: dict[str, str] = {}
    async with Client(server) as client:
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            data = result.structured_content
            if data is None:  # an error: its JSON object is the text
                data = json.loads(result.content[0].text)  # type: ignore[union-attr]
            shown[name] = _shown(data, root)
    server.close()
    return shown


class _CountedIds:
    """New task ids from a seeded generator, for this page only: `storage.naming` draws them
    from `secrets`, and a page that changed on every run could not be checked."""

    def __init__(self) -> None:
        self._random = random.Random(2026)

    def token_hex(self, nbytes: int) -> str:
        return self._random.randbytes(nbytes).hex()


@cache
def _catalogue() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every tool's reference facts and its example answer, made once per run."""
    naming.secrets = _CountedIds()  # type: ignore[assignment]
    with example_tree() as root:
        toolset = open_toolset(root, watch=False)
        specs = list(toolset.specs.values())
        toolset.context.close()
        bare = [s for s in specs if s.example == {} and s.tier != "workflow"]
        calls = {s.name: {} for s in bare if s.hints.read_only}  # the tree as bundled first
        calls |= {n: a for n, a in ARGUMENTS.items() if n in toolset.specs}  # the walk's order
        calls |= {s.name: {} for s in bare}
        answers = anyio.run(_examples, root, calls)
    facts = [
        {
            "name": s.name,
            "tier": s.tier,
            "description": s.description,
            "input": _json_schema(s.input_model),
            "output": _json_schema(s.output_model),
            "read_only": s.hints.read_only,
            "example": s.example,
            "origin": s.origin,
        }
        for s in specs
    ]
    return facts, answers


@cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON Schema, made once a run: a bot's 60 tools share five models (read only
    by the sections that print it)."""
    return model.model_json_schema()


def _tool_section(fact: dict[str, Any], answers: dict[str, str]) -> str:
    kind = "read-only" if fact["read_only"] else "writes"
    parts = [
        f"### `{fact['name']}`\n",
        f"*{fact['tier']}* · roles: {_roles_of(fact['tier'])} · {kind}\n",
        fact["description"].strip() + "\n",
        _arguments(fact["input"]),
        _answer_keys(fact["output"]),
    ]
    if fact["name"] in answers:
        call = json.dumps(ARGUMENTS.get(fact["name"], {}), ensure_ascii=False)
        parts.append(f"Example on the bundled tree:\n\n```json\n{call}\n```\n")
        parts.append(f"```json\n{answers[fact['name']]}\n```\n")
    elif fact["example"] is None:
        parts.append("No example here: an argument it needs comes from another answer.\n")
    return "\n".join(parts)


def tool_reference(tier: str) -> str:
    """Every built-in tool of `tier`, by name: what it does, its arguments and an example."""
    facts, answers = _catalogue()
    chosen = sorted((f for f in facts if f["tier"] == tier), key=lambda f: f["name"])
    return "\n".join(_tool_section(f, answers) for f in chosen)


def bot_tools() -> str:
    """The workflow tools the bundled bots generate, one row each."""
    facts, answers = _catalogue()
    rows = ["| tool | what it does |", "|---|---|"]
    for fact in sorted((f for f in facts if f["tier"] == "workflow"), key=lambda f: f["name"]):
        first = fact["description"].strip().splitlines()[0] if fact["description"] else ""
        cell = first.replace("|", "\\|")
        rows.append(f"| `{fact['name']}` | {cell} |")
    examples = [f for f in facts if f["tier"] == "workflow" and f["name"] in answers]
    text = "\n".join(rows) + "\n"
    for fact in examples:
        text += "\n" + _tool_section(fact, answers)
    return text


def tool_index() -> str:
    """One line per built-in tool, by tier: the table of contents of the reference."""
    facts, _ = _catalogue()
    lines = []
    for tier in TIER_ORDER[:3]:
        names = sorted(f["name"] for f in facts if f["tier"] == tier)
        links = ", ".join(f"[`{n}`](#{n})" for n in names)
        lines.append(f"- **{tier}** ({len(names)}): {links}")
    return "\n".join(lines) + "\n"


def cli_reference() -> str:
    """Every command of `tasks-server` with its options, as `--help` prints them."""
    os.environ["COLUMNS"] = "100"
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    parts = ["```\n" + _plain(parser.format_help()) + "```\n"]
    for name, command in sub.choices.items():
        parts.append(f"### `tasks-server {name}`\n\n```\n{_plain(command.format_help())}```\n")
    return "\n".join(parts)


def _plain(text: str) -> str:
    """Help text without what depends on the machine (the program path, the environment)."""
    return re.sub(r"usage: \S+", "usage: tasks-server", text)
