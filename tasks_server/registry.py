"""The tool registry: one registration path for every tool, hand-written or generated.

A tool is a plain function `fn(ctx, args) -> Output` declared with `@tool(...)` next to its
input and output models; `discover()` imports every module of `tasks_server.tools`, so
there is no hand-kept list (what a spec holds: `spec.py`); a `serve` start takes
`DeferredSpec`s instead, from what the declarations said at the last start, and imports a
tool's module at its first call (`edge.schema_cache.declared_tools`). Nothing here knows
the MCP SDK: `tasks_server.edge.server` turns specs into MCP tools, and the human CLI calls
the same specs directly (`Toolset.run`).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from tasks_server.guidance import ACTION_HELP
from tasks_server.listing import Listing, check_totals
from tasks_server.models import KnownProject
from tasks_server.spec import DuplicateTool, Handler, Hints, Tier, ToolSpec, by_name

if TYPE_CHECKING:
    from tasks_server.consent import Question
    from tasks_server.context import ServerContext

__all__ = [
    "DeferredSpec",
    "DuplicateTool",
    "Handler",
    "Hints",
    "Tier",
    "ToolSpec",
    "by_name",
    "declared_in",
    "deferred",
    "discover",
    "facts_of",
    "is_declared",
    "purpose_of",
    "tool",
]

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel | Listing[Any])


_DECLARED: dict[str, ToolSpec] = {}
EMPTY_CALL: dict[str, Any] = {}


def tool(
    tier: Tier,
    *,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    waits: bool = False,
    confirm: Question | None = None,
    example: dict[str, Any] | None = EMPTY_CALL,
) -> Callable[[Callable[[ServerContext, In], Out]], Callable[[ServerContext, In], Out]]:
    """Declare a tool: its name is the function's, its description the docstring's, its input
    model the type of `args`, its output model the return type (for a paged tool returning
    `Listing[Output]`, that `Output`); `confirm`, what to ask the person before a call
    (`tasks_server.consent`); `example`, the arguments of a call that succeeds on a copy of the
    bundled tree (no arguments by default; None: the call needs a value only another answer
    gives). mypy checks every handler against this signature."""

    def declare(fn: Callable[[ServerContext, In], Out]) -> Callable[[ServerContext, In], Out]:
        hints = inspect.get_annotations(fn, eval_str=True)
        returned = hints["return"]
        origin: object = get_origin(returned)
        if origin is Listing:  # a paged tool: its totals count its lists
            check_totals(get_args(returned)[0])
        spec = ToolSpec(
            name=fn.__name__,
            tier=tier,
            description=inspect.cleandoc(fn.__doc__ or ""),
            input_model=hints["args"],
            output_model=get_args(returned)[0] if origin is Listing else returned,
            handler=fn,
            hints=Hints(read_only, destructive, idempotent),
            project_arg=project_arg(hints["args"], read_only=read_only),
            confirm=confirm,
            example=example,
            origin=f"{fn.__module__}.{fn.__qualname__}",
            waits=waits,
        )
        known = _DECLARED.get(spec.name)
        if known is not None and known.origin != spec.origin:  # a reloaded module is no twin
            raise DuplicateTool(known, spec)
        _DECLARED[spec.name] = spec
        ACTION_HELP.setdefault(spec.name, purpose_of(spec.description))
        return fn

    return declare


def purpose_of(description: str) -> str:
    """The line guidance names a tool by when `guidance.ACTION_HELP` has none for it (a new
    tool): its description's first sentence, as a phrase.

    >>> purpose_of("Tasks ready to start: active, nothing blocking. More here.")
    'tasks ready to start: active, nothing blocking'
    """
    first = description.split(". ", 1)[0].strip().rstrip(".")
    return first[:1].lower() + first[1:]


def project_arg(model: type[BaseModel], *, read_only: bool) -> str | None:
    """The argument of `model` declared `ProjectArg`, if any. A reading tool's argument
    named `project` that is not declared so is refused here, where it is registered: the
    toolset checks the declaration, never a name."""
    marked = [name for name, info in model.model_fields.items() if _marked(info)]
    if len(marked) > 1:
        raise TypeError(f"{model.__name__} declares {marked} ProjectArg: one at most")
    if read_only and not marked and "project" in model.model_fields:
        raise TypeError(
            f"{model.__name__}.project is not declared ProjectArg: a reading tool's project "
            "must name one some task has (or rename the argument)"
        )
    return marked[0] if marked else None


def _marked(info: FieldInfo) -> bool:
    """Whether a field's declaration carries the `KnownProject` mark (in a union too)."""
    pending: list[Any] = [info.annotation, *info.metadata]
    while pending:
        kind = pending.pop()
        if isinstance(kind, KnownProject):
            return True
        pending.extend(get_args(kind))
        pending.extend(getattr(kind, "__metadata__", ()))
    return False


def is_declared(spec: ToolSpec) -> bool:
    """True for a tool declared here with `@tool` (or known from what its declaration said,
    `DeferredSpec`): everything it publishes follows from the code (a bot's tools follow
    from its config file too)."""
    return isinstance(spec, DeferredSpec) or _DECLARED.get(spec.name) is spec


class DeferredSpec(ToolSpec):
    """A declared tool known from what its declaration said at an earlier start
    (`facts_of`): its name, tier, description, hints and origin, all that listing it,
    filtering it by role and naming it in guidance take. Its module is imported at the
    first use of anything else (its models, handler, question, example): a start lists
    the tools without importing the tool modules, and a call imports only its own."""

    def __init__(self, facts: dict[str, Any]) -> None:
        read_only, destructive, idempotent = facts["hints"]
        known = {
            "name": facts["name"],
            "tier": facts["tier"],
            "description": facts["description"],
            "hints": Hints(read_only, destructive, idempotent),
            "meta": None,
            "origin": facts["origin"],
            "waits": facts["waits"],
        }
        for key, value in known.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_spec", None)

    _spec: ToolSpec | None
    """The declared spec, once its module is loaded: every later access reads it directly."""

    def loaded(self) -> ToolSpec:
        """The spec its module declares (its module imported at the first access)."""
        spec = self._spec
        if spec is None:
            importlib.import_module(self.origin.rpartition(".")[0])
            spec = _DECLARED[self.name]
            object.__setattr__(self, "_spec", spec)
        return spec

    @property
    def input_model(self) -> type[BaseModel]:
        return self.loaded().input_model

    @property
    def output_model(self) -> type[BaseModel]:
        return self.loaded().output_model

    @property
    def handler(self) -> Handler:
        return self.loaded().handler

    @property
    def example(self) -> dict[str, Any] | None:
        return self.loaded().example

    @property
    def confirm(self) -> Question | None:
        return self.loaded().confirm

    @property
    def project_arg(self) -> str | None:
        return self.loaded().project_arg


FACT_KEYS = frozenset({"name", "tier", "description", "hints", "origin", "waits"})


def facts_of(spec: ToolSpec) -> dict[str, Any]:
    """What `DeferredSpec` needs of a declared tool, JSON-ready."""
    hints = spec.hints
    return {
        "name": spec.name,
        "tier": spec.tier,
        "description": spec.description,
        "hints": [hints.read_only, hints.destructive, hints.idempotent],
        "origin": spec.origin,
        "waits": spec.waits,
    }


def deferred(facts: list[dict[str, Any]]) -> list[ToolSpec]:
    """The declared tools these facts describe, sorted by name as `discover` gives them:
    a tool whose module is imported already is its own spec, any other a `DeferredSpec`.
    Guidance names each as its declaration would have (`tool`)."""
    specs = [_DECLARED.get(fact["name"]) or DeferredSpec(fact) for fact in facts]
    for spec in specs:
        ACTION_HELP.setdefault(spec.name, purpose_of(spec.description))
    return sorted(specs, key=lambda s: s.name)


def discover() -> list[ToolSpec]:
    """Every tool declared in the modules of `tasks_server.tools`, sorted by name."""
    import pkgutil  # noqa: PLC0415 - a start that lists DeferredSpecs never walks the package

    package = importlib.import_module("tasks_server.tools")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return sorted(_DECLARED.values(), key=lambda s: s.name)


def declared_in(modules: Iterable[str]) -> list[ToolSpec]:
    """The tools declared in these modules of `tasks_server.tools` (by their names there),
    sorted by name: a command that calls a few tools imports only their modules."""
    names = {f"tasks_server.tools.{module}" for module in modules}
    for name in sorted(names):
        importlib.import_module(name)
    found = (spec for spec in _DECLARED.values() if spec.origin.rpartition(".")[0] in names)
    return sorted(found, key=lambda s: s.name)
