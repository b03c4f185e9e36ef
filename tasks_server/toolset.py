"""The tools one session may call, and the one way every call runs.

`Toolset.run(name, arguments)` is the whole life of a call: the name is checked against our
own registry (UNKNOWN_TOOL, TOOL_NOT_ALLOWED), the arguments are validated once by the tool's
input model (unknown keys are refused by the model itself), the tree is brought up to date
(read-your-writes: `LiveTree.snapshot`; a tool that writes takes the tree-wide write lock
first, so what it checks still holds when its write lands), the handler runs on it, a paged
result is cut to the page the cursor asks for (`tasks_server.listing.page`), and the output
model is dumped to JSON-ready data whose guidance names only tools this session can call,
and cut to the size of one answer (`answer.py`). Any exception becomes an error payload
through `errors.classify`. The MCP face (`tasks_server.edge.server`) and the human CLI both
call this; neither knows the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from graph.errors import GraphError, InvalidArgument, UnknownTask
from storage.errors import ConflictedFile, StorageError, TaskNotFound
from tasks_server.answer import bound_answer, bounded_json
from tasks_server.bots.errors import UnknownBot
from tasks_server.consent import NOT_ASKED, Ask, Asked, Consent, answering, ask_about
from tasks_server.context import ServerContext
from tasks_server.errors import (
    RECOVERY,
    ErrorResult,
    ReadOnlyRoot,
    ToolFailure,
    ToolNotAllowed,
    UnknownTool,
    classify,
    shorten,
)
from tasks_server.guidance import Guidance, for_session, guide, nearest_tools, similar_names
from tasks_server.listing import Listing, page
from tasks_server.registry import ToolSpec, by_name, declared_in, discover
from tasks_server.roles import check_allowlist, tool_filter
from tasks_server.task_guidance import blocked_sentence

M = TypeVar("M", bound=BaseModel)

__all__ = ["MAX_ARGUMENT_CHARS", "Outcome", "Toolset", "open_toolset"]

WRITING_TIERS = frozenset({"mutation", "workflow"})
"""The tiers whose tools write files (tasks, or a bot's state): refused on a read-only root."""

MAX_ARGUMENT_CHARS = 1024 * 1024
"""The longest string an argument may hold (a task file is at most 1 MiB): longer ones are
refused before any work, so a request's cost stays bounded by what could ever be stored."""


def check_sizes(arguments: dict[str, Any]) -> None:
    """INVALID_ARGUMENT when any string in `arguments` (keys too, at any depth) is too long.
    Runs on every call: the path to a value is only spelled out for the error."""
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), arguments)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            pending.extend(((*path, str(k)), k) for k in value)
            pending.extend(((*path, str(k)), v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend(((*path, i), item) for i, item in enumerate(value))
        elif isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            raise ToolFailure(
                "INVALID_ARGUMENT",
                f"{_spelled(path)}: {len(value)} characters, over the {MAX_ARGUMENT_CHARS} limit",
            )


def _spelled(path: tuple[str | int, ...]) -> str:
    parts = (f"[{p}]" if isinstance(p, int) else f".{shorten(p, 40)}" for p in path)
    return "arguments" + "".join(parts)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A call's result: the structured data of a success, or an error payload."""

    data: dict[str, Any]
    is_error: bool
    text: bytes | None = None
    """`data` as compact JSON when the call wrote it already (the answer's text copy)."""


class Toolset:
    """Every known tool, the ones this session may call, and the context they run on."""

    def __init__(
        self, specs: Sequence[ToolSpec], context: ServerContext, allowed: Callable[[str, str], bool]
    ) -> None:
        self.context = context
        self._allow = allowed
        self._use(specs)
        self._bots_seen = self._bots_version()

    def _use(self, specs: Sequence[ToolSpec]) -> None:
        self.specs = by_name(specs)  # one tool per name: a twin is refused, never replaces
        allowed = self._allow
        self.names = [name for name, spec in sorted(self.specs.items()) if allowed(name, spec.tier)]
        self.allowed = frozenset(self.names)
        self._hidden = frozenset(self.specs) - self.allowed  # once, not on every call

    def _bots_version(self) -> int:
        bots = getattr(self.context, "bots", None)
        return bots.version if bots is not None else 0

    def sync(self) -> bool:
        """Take in the bot tools a restart_server changed; True when the listed tools changed
        (an integer compare when nothing did)."""
        version = self._bots_version()
        if version == self._bots_seen:
            return False
        self._bots_seen = version
        listed = [(spec.name, spec.description) for spec in self.visible()]
        fixed = [spec for spec in self.specs.values() if spec.tier != "workflow"]
        self._use([*fixed, *self.context.bot_specs()])
        return listed != [(spec.name, spec.description) for spec in self.visible()]

    def visible(self) -> list[ToolSpec]:
        """The specs this session lists, sorted by name."""
        return [self.specs[name] for name in self.names]

    def spec(self, name: str) -> ToolSpec:
        """The spec of a tool this session may call."""
        if name not in self.specs:
            raise UnknownTool(name)
        if name not in self.allowed:
            raise ToolNotAllowed(name)
        spec = self.specs[name]
        if self.context.read_only and spec.tier in WRITING_TIERS:
            raise ReadOnlyRoot()
        return spec

    def run(
        self,
        name: str,
        arguments: dict[str, Any],
        ask: Ask | None = None,
        *,
        asked: Asked | None = None,
    ) -> Outcome:
        """Run one call; never raises. `ask` puts a tool's question to the person; without
        it a question is answered `not_asked`. `asked`: the question already worked out
        (`question`) and answered by the face, which is neither worked out nor asked again."""
        try:
            spec = self.spec(name)
            check_sizes(arguments)
            args = spec.input_model.model_validate(arguments)
            # asked before any lock is taken
            consent = asked.consent if asked is not None else self._consent(spec, args, ask)
            data = self._synced(name, spec, args, arguments, consent)
            if consent == "not_asked":
                _warn(data, NOT_ASKED)
            text = bounded_json(data)
        except Exception as exc:
            return Outcome(self._error(name, self._named_conflict(exc)), True)
        return Outcome(data, False, text)

    def _synced(
        self,
        name: str,
        spec: ToolSpec,
        args: Any,
        arguments: dict[str, Any],
        consent: Consent | None,
    ) -> dict[str, Any]:
        """The call's data; with `serve --sync`, run again on the tree as the remote left
        it when the remote took this call's change first (`sync.WriteLost`)."""
        sync = self.context.sync
        if sync is None:
            return self._once(name, spec, args, arguments, consent=consent)
        from tasks_server.sync import PUSH_ATTEMPTS, WriteLost  # noqa: PLC0415 - git, if synced

        for attempt in range(PUSH_ATTEMPTS):
            try:
                data = self._once(name, spec, args, arguments, consent=consent, lost=attempt)
            except WriteLost as lost:
                last = lost
                continue
            if (warnings := sync.take_warnings()) and "guidance" in data:
                data["guidance"]["warnings"] = [*data["guidance"].get("warnings", []), *warnings]
            return data
        raise ToolFailure("CONFLICT", f"{name}: {last}")

    def _once(
        self,
        name: str,
        spec: ToolSpec,
        args: Any,
        arguments: dict[str, Any],
        *,
        consent: Consent | None,
        lost: int = 0,
    ) -> dict[str, Any]:
        writes = not spec.hints.read_only  # checks and write under the tree's write lock
        asked = answering(consent) if consent is not None else nullcontext()
        with self.context.live.snapshot(write=writes), asked:  # every finished change is in it
            self.context.lost_races = lost  # read by claim_next, under the same locks
            if writes and self.context.sync is not None and self.context.sync.before(name):
                self.context.live.refresh(thorough=True)
            if spec.project_arg is not None and spec.hints.read_only:
                self._check_project(getattr(args, spec.project_arg))
            try:
                output = spec.handler(self.context, args)
            finally:
                if writes and self.context.sync is not None:
                    self.context.sync.committed(name, arguments)
            if isinstance(output, Listing):
                output = page(self.context, name, args, output, spec.output_model)
            data: dict[str, Any] = self._limit_guidance(output).model_dump(mode="json")
            self._explain_blocked(args, data)
        return data

    def _named_conflict(self, exc: Exception) -> Exception:
        """An unknown id that a conflicted file holds: that file, named as conflicted."""
        task_id = exc.task_id if isinstance(exc, UnknownTask | TaskNotFound) else None
        path = self.context.conflicted(task_id) if task_id else None
        return exc if path is None or task_id is None else ConflictedFile(path, task_id)

    def may_ask(self, name: str) -> bool:
        """Whether a call of `name` may put a question to the person (most tools never do:
        the edge then skips asking, and the thread hop it takes)."""
        spec = self.specs.get(name)
        return spec is not None and spec.confirm is not None

    def question(self, name: str, arguments: dict[str, Any]) -> Asked | None:
        """What the tool would ask the person before this call, worked out once (for `run`'s
        `asked`); None when the call fails anyway (`run` reports that, working it out again
        to fail the same way, through the one mapping)."""
        try:
            spec = self.spec(name)
            args = spec.input_model.model_validate(arguments)
            return Asked(self._question(spec, args))
        except (ToolFailure, GraphError, StorageError, ValidationError):
            return None

    def _question(self, spec: ToolSpec, args: Any) -> str | None:
        """The tool's question for `args`, read from a fresh snapshot (None: it asks nothing)."""
        if spec.confirm is None:
            return None
        with self.context.live.snapshot():
            return spec.confirm(self.context, args)

    def _consent(self, spec: ToolSpec, args: Any, ask: Ask | None) -> Consent | None:
        """The person's answer to the tool's question for `args` (None: it asks nothing),
        the answer awaited outside every lock."""
        return ask_about(self._question(spec, args), ask)

    def _check_project(self, project: str | None) -> None:
        """A reading tool filtering by a project no task has is INVALID_ARGUMENT, never an
        empty success (a writer may name a new project)."""
        if project is not None and not self.context.index.project_members(project):
            raise InvalidArgument("project", f"no task has project {shorten(project)!r}")

    def _explain_blocked(self, args: Any, data: dict[str, Any]) -> None:
        """A result about one task that is blocked says why in `blocked_reason`, whatever
        tool gave it (the handler's own reason, when it has one, stays)."""
        guidance = data.get("guidance")
        if guidance is None or "blocked_reason" in guidance:
            return
        index = self.context.index
        for key in ("task_id", "parent_id", "scope_id", "scope"):  # the first task named
            task_id = getattr(args, key, None)
            if isinstance(task_id, str) and task_id in index:
                reason = blocked_sentence(task_id, index.reasons(task_id))
                if reason is not None:
                    guidance["blocked_reason"] = reason
                return

    def _recovery(self, name: str, code: str, exc: Exception) -> tuple[str, list[str]]:
        """The step and tools that recover from an error: the error's own, else its code's
        (`{tool}` is the tool called); the nearest allowed tools when none is open here."""
        if isinstance(exc, UnknownTool):
            return _misspelt(name, similar_names(name, self.names))
        own: tuple[str, list[str]] | None = getattr(exc, "recovery", None)
        step, tools = own or RECOVERY.get(code, ("Read error.message, then retry", ["{tool}"]))
        tools = [tool.replace("{tool}", name) for tool in tools]
        if code in {"TOOL_NOT_ALLOWED", "UNKNOWN_TOOL"} or not self.allowed.intersection(tools):
            tools = [*tools, *nearest_tools(name, self.names)]
        open_here = [tool for tool in tools if tool in self.allowed]
        if code in {"TOOL_NOT_ALLOWED", "UNKNOWN_TOOL"} and open_here:
            step = f"Call {open_here[0]} instead, or another tool listed here"
        return step.replace("{tool}", name), tools

    def _error(self, name: str, exc: Exception) -> dict[str, Any]:
        info = classify(exc)
        next_action, tools = self._recovery(name, info.code, exc)
        guidance = guide(
            f"error_{info.code.lower()}", next_action, tools, blocked_reason=info.message
        )
        result = ErrorResult(success=False, error=info, guidance=guidance)
        data = self._limit_guidance(result).model_dump(mode="json", exclude_none=True)
        bound_answer(data)
        return data

    def _limit_guidance(self, output: M) -> M:
        """`output` with guidance that names only tools this session can call."""
        guidance = getattr(output, "guidance", None)
        if not self._hidden or not isinstance(guidance, Guidance):
            return output
        return output.model_copy(update={"guidance": for_session(guidance, self._hidden)})


def _misspelt(name: str, near: list[str]) -> tuple[str, list[str]]:
    """The step after an unknown tool name: the session's names spelled nearest to it, or,
    when none is close, tools/list (no tool is offered in its place)."""
    shown = shorten(name, 60)
    if not near:
        return f"Use a name tools/list shows: no tool here is spelled like {shown!r}", []
    return f"Call {' or '.join(near)} if you meant it (spelled nearest to {shown!r})", near


def open_toolset(
    root: Path,
    *,
    role: str | None = None,
    tools: list[str] | None = None,
    bots: Path | None = None,
    bot: str | None = None,
    watch: bool = True,
    modules: Sequence[str] | None = None,
    declared: Callable[[], list[ToolSpec]] = discover,
) -> Toolset:
    """The tools over the tree at `root` that `role`/`tools` allow; with `bot`, only that
    bot's workflow tools (the others stay known, so guidance never names them); with
    `modules` (names in `tasks_server.tools`), only the tools declared there and no bots
    (a human command that calls a few tools loads no others); `declared` gives the tools
    declared in code otherwise (the MCP edge's imports their modules at their first call)."""
    context = ServerContext.open(root, bots=bots, watch=watch, with_bots=modules is None)
    builtin = declared() if modules is None else declared_in(modules)
    if context.bots is not None:
        context.bots.check_names(by_name(builtin))  # a bot never takes a built-in's name
    specs: list[ToolSpec] = [*builtin, *context.bot_specs()]
    check_allowlist(tools or [], [spec.name for spec in specs])
    check = tool_filter(role, tools or [])
    if bot is None:
        return Toolset(specs, context, check)
    if context.bots is None:
        raise UnknownBot(bot, [])
    runtime = context.bots.bot(bot)  # its registered tools change on a restart_server
    return Toolset(
        specs, context, lambda name, tier: name in runtime.registered and check(name, tier)
    )


def _warn(data: dict[str, Any], line: str) -> None:
    """Add `line` to the result's guidance warnings."""
    guidance = data.get("guidance")
    if isinstance(guidance, dict):
        guidance["warnings"] = [*(guidance.get("warnings") or []), line]
