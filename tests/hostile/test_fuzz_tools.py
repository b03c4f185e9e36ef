"""A Hypothesis fuzz of every tool that tools/list publishes, driven by its own inputSchema,
through a real MCP client session over a fresh copy of the example tree for each example.

Two kinds of calls, every listed tool in every example: arguments valid under the published
schema (ids and projects drawn from the tree half of the time), and the same arguments made
hostile each way that applies (an unknown key, deep nesting, a wrong type, a missing required
key, a hostile string, a string past the 1 MiB argument cap). Nesting stops at 200 levels:
deeper, the MCP client itself refuses to serialize the request. Every
answer must be clean: a success whose structured content validates against the tool's
outputSchema, or an error with a stable code (never INTERNAL_ERROR) and no structured
content; a call whose input carried megabytes answers in under 64 KB; a failed call leaves
every file under the root byte for byte as it was (the server's hidden folders aside). The
30 s hang guard is a bound on a stuck call, not a speed assertion. The seed is fixed and
nothing is shrunk, so CI replays the same calls and a failure is reported as found.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp import Client

from tasks_server.errors import RECOVERY
from tests.conftest import DATA, examples
from tests.tasks_server.conftest import error_of, make_server

STABLE_CODES = set(RECOVERY) - {"INTERNAL_ERROR"}
SERVER_FOLDERS = {".tasks-index", ".trash", ".workflow"}
ID_KEYS = {"task_id", "parent", "parent_id", "scope_id", "task_ids", "depends_on", "order"}
ID_KEYS |= {"soft_depends_on"}
HANG_GUARD = 30.0
HUGE = 1024 * 1024 + 1  # just past the cap on an argument string (MAX_ARGUMENT_CHARS)
FUZZ = settings(
    max_examples=examples(8),
    deadline=None,
    derandomize=False,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


HOSTILE_STRINGS = [
    "abc\n", "../x", "../../etc/passwd", "/etc/passwd", "a" * 300, "\x00", "a\x00b", "",
    " ", ".", "..", ".hidden", "a\u2028status: done", "x\u2029y", "\x85", "\x1b[31mred",
    "\r\n---\r\n", "---", "null", "[1, 2]", "0b101", "~", "{{x}}", "%s%n", "\ud7ff\ufffe",
    b64(json.dumps({"a": {"b": {"c": [[[1]]]}}})), b64("[" * 100_000 + "]" * 100_000),
    b64(json.dumps(["q", 0, -1])), b64(json.dumps(["q", 0, 10**40])),
]  # fmt: skip
WRONG_JSON = ['"s"', "1.5", "7", "[]", "{}", "[[1]]", '{"a": [1]}', str(-(10**40))]
"""Values of the wrong type, as JSON: each draw decodes a fresh object, so nothing a call
does to one can change a later draw."""


@dataclass(frozen=True)
class Huge:
    """A string of `size` characters, built only for the call (failure reports stay short)."""

    unit: str
    size: int

    def build(self) -> str:
        return (self.unit * self.size)[: self.size]


@dataclass(frozen=True)
class Deep:
    """Lists (or objects) nested `depth` deep, built only for the call."""

    depth: int
    lists: bool

    def build(self) -> Any:
        nested: Any = "x"
        for _ in range(self.depth):
            nested = [nested] if self.lists else {"k": nested}
        return nested


def built(value: Any) -> Any:
    if isinstance(value, Huge | Deep):
        return value.build()
    if isinstance(value, list):
        return [built(item) for item in value]
    return value


def tree_state(root: Path) -> dict[str, str]:
    """A digest of every file under `root`, the server's own hidden folders left out."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in SERVER_FOLDERS
    }


@dataclass
class Fuzzed:
    """What the server lists (tools, ids, projects), and a fresh tree and client session for
    each example, driven from synchronous Hypothesis tests through one event-loop thread.
    Every example starts from the same tree, so a failure replays exactly."""

    portal: BlockingPortal
    base: Path
    tools: dict[str, Any]
    ids: list[str]
    projects: list[str]

    @contextmanager
    def session(self) -> Iterator[Session]:
        root = Path(tempfile.mkdtemp(prefix="fuzz-")) / "tree"
        shutil.copytree(self.base, root)
        server = make_server(root)
        try:
            with self.portal.wrap_async_context_manager(Client(server)) as client:
                yield Session(self.portal, client, root, self.tools)
        finally:
            server.context.close()
            shutil.rmtree(root.parent)


@dataclass
class Session:
    portal: BlockingPortal
    client: Client
    root: Path
    tools: dict[str, Any]

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        async def guarded() -> Any:
            with anyio.fail_after(HANG_GUARD):
                return await self.client.call_tool(name, arguments)

        return self.portal.call(guarded)


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[Fuzzed]:
    with start_blocking_portal() as portal:
        lister = Fuzzed(portal, DATA, {}, [], [])
        with lister.session() as session:
            tools = {tool.name: tool for tool in portal.call(session.client.list_tools).tools}
            rows = session.call("list_tasks", {"limit": 1000}).structured_content["tasks"]
        projects = sorted({row["project"] for row in rows if "project" in row})
        yield Fuzzed(portal, DATA, tools, [row["id"] for row in rows], projects)


def strings(schema: dict[str, Any], key: str | None, fuzzed: Fuzzed) -> st.SearchStrategy[str]:
    if schema.get("format") == "date-time":
        return st.datetimes(timezones=st.just(UTC)).map(lambda moment: moment.isoformat())
    text = st.text(min_size=schema.get("minLength", 0), max_size=30)
    if key in ID_KEYS and fuzzed.ids:
        return st.one_of(st.sampled_from(fuzzed.ids), text)
    if key == "project" and fuzzed.projects:
        return st.one_of(st.sampled_from(fuzzed.projects), text)
    return text


def from_schema(
    schema: dict[str, Any], defs: dict[str, Any], fuzzed: Fuzzed, key: str | None = None
) -> st.SearchStrategy[Any]:
    """Values valid under `schema` (the subset of JSON Schema our tools publish)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return st.deferred(lambda: from_schema(defs[name], defs, fuzzed, key))
    if "anyOf" in schema:
        return st.one_of([from_schema(branch, defs, fuzzed, key) for branch in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        return objects(schema, defs, fuzzed)
    if kind == "array":
        items = from_schema(schema.get("items", {}), defs, fuzzed, key)
        low = schema.get("minItems", 0)
        return st.lists(items, min_size=low, max_size=max(low, schema.get("maxItems", 3)))
    if kind == "string":
        return strings(schema, key, fuzzed)
    scalars: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
        "integer": lambda: st.integers(schema.get("minimum"), schema.get("maximum")),
        "number": lambda: st.floats(
            schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False
        ),
        "boolean": st.booleans,
        "null": st.none,
    }
    return scalars[str(kind)]()


def objects(
    schema: dict[str, Any], defs: dict[str, Any], fuzzed: Fuzzed
) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    values = {name: from_schema(prop, defs, fuzzed, name) for name, prop in properties.items()}
    return st.fixed_dictionaries(
        {name: values[name] for name in sorted(required)},
        optional={name: values[name] for name in sorted(set(properties) - required)},
    )


def valid_arguments(fuzzed: Fuzzed, name: str) -> st.SearchStrategy[dict[str, Any]]:
    schema = fuzzed.tools[name].input_schema
    return objects(schema, schema.get("$defs", {}), fuzzed)


def takes_strings(schema: dict[str, Any]) -> bool:
    return "string" in json.dumps(schema)


def pick(options: list[Any], turn: int) -> Any:
    return options[turn % len(options)]


def hostile_cases(
    fuzzed: Fuzzed, name: str, arguments: dict[str, Any], turn: int
) -> list[tuple[dict[str, Any], bool]]:
    """Schema-valid `arguments` made hostile each way that applies to the tool (the hostile
    value picked by `turn`), and whether the schema refuses them outright."""
    schema = fuzzed.tools[name].input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    cases = [({**arguments, pick(["__proto__", "x" * 300, "a\u2028b", ""], turn): 1}, True)]
    key = pick(sorted(properties) or ["deep"], turn)
    nested = Deep(pick([16, 64, 200], turn), turn % 2 == 0)
    check = Draft202012Validator(properties.get(key, False))
    cases.append(({**arguments, key: nested}, not check.is_valid(nested.build())))
    if properties:
        wrong = [
            text
            for text in WRONG_JSON
            if not Draft202012Validator(properties[key]).is_valid(json.loads(text))
        ]
        cases.append(({**arguments, key: json.loads(pick(wrong, turn))}, True))
    if schema.get("required"):
        missing = pick(sorted(schema["required"]), turn)
        cases.append(({k: v for k, v in arguments.items() if k != missing}, True))
    stringy = sorted(k for k, v in properties.items() if takes_strings(v))
    if stringy:
        key = pick(stringy, turn)
        huge = Huge(
            pick(["x", "a\u2028b", "\x00", "id-"], turn), pick([HUGE, 3 * HUGE, 10 * HUGE], turn)
        )
        for value in (pick(HOSTILE_STRINGS, turn), huge):
            wrapped = [value] if "array" in json.dumps(properties[key]) else value
            cases.append(({**arguments, key: wrapped}, False))
    return cases


def json_leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in json_leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in json_leaves(item)]
    return [value]


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def check_answer(session: Session, name: str, arguments: dict[str, Any], refused: bool) -> None:
    """Call `name`; the answer is clean and a failure changes nothing on disk."""
    before = tree_state(session.root)
    result = session.call(name, {key: built(value) for key, value in arguments.items()})
    if result.is_error:
        error = error_of(result)["error"]
        assert error["code"] in STABLE_CODES, (name, error)
        assert not refused or error["code"] == "INVALID_ARGUMENT", (name, error)
        after = tree_state(session.root)
        changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
        assert not changed, f"{name} failed with {error['code']} and changed {sorted(changed)}"
    else:
        assert not refused, f"{name} accepted arguments its schema refuses"
        data = result.structured_content
        assert data is not None and data["success"] is True, name
        Draft202012Validator(session.tools[name].output_schema).validate(data)
    if any(isinstance(value, Huge) for value in json_leaves(arguments)):
        assert len(text_of(result)) < 64 * 1024, f"{name} echoed a huge input"


def test_the_fuzz_covers_every_tool_the_server_lists(fuzzed: Fuzzed) -> None:
    assert len(fuzzed.tools) >= 60
    assert any(name.startswith("story_bot_") for name in fuzzed.tools)


@pytest.mark.deep  # 40-85 s under load; quick: test_every_call, test_hostile_answers
@seed(20261122)
@FUZZ
@given(data=st.data())
def test_every_tool_answers_schema_valid_arguments_with_a_clean_result(
    fuzzed: Fuzzed, data: st.DataObject
) -> None:
    names = sorted(fuzzed.tools)
    calls = [data.draw(valid_arguments(fuzzed, name), label=name) for name in names]
    with fuzzed.session() as session:
        for name, arguments in zip(names, calls, strict=True):
            check_answer(session, name, arguments, refused=False)


@pytest.mark.deep  # 40-85 s under load; quick: test_every_call, test_hostile_answers
@seed(20261122)
@FUZZ
@given(data=st.data())
def test_every_tool_answers_hostile_arguments_with_a_clean_error_that_changes_nothing(
    fuzzed: Fuzzed, data: st.DataObject
) -> None:
    turn = data.draw(st.integers(0, 10_000), label="turn")
    with fuzzed.session() as session:
        for name in sorted(fuzzed.tools):
            base = data.draw(valid_arguments(fuzzed, name), label=name)
            for arguments, refused in hostile_cases(fuzzed, name, base, turn):
                check_answer(session, name, arguments, refused)
