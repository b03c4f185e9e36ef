"""Paging, in one place: every tool whose result holds lists goes through `page`.

A paged tool's input extends `PageArgs` (the one declaration of `limit` and `cursor`; a tool
whose default page size differs says only that number). Its handler never reads them: it returns
a `Listing`, the graph's `Sections` (whole named lists in task order, and scalar facts) with the
guidance for the result. The toolset then calls `page`, which ties the cursor to the tool and
its other arguments, cuts one window over the lists read one after another (so a page holds at
most `limit` items in all), turns ids into rows, and fills the tool's output model by field
name: each list under its name, its whole length under `<name>_total` (or `<stem>_total` for a
list named `<stem>_tasks`), `count`, `total`, `totals` and `next_cursor` where the model has
them. A list field that may also hold `Columns` gives its rows in columns when the input asks
for `format: "columns"`. See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import attrgetter
from types import UnionType
from typing import Annotated, Any, ClassVar, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, Field, TypeAdapter

from graph.sections import Sections
from graph.windowing import window_named
from tasks_server.context import ServerContext
from tasks_server.guidance import Guidance
from tasks_server.models import Columns, Count, Input, RowFormat, Unset
from tasks_server.paging import open_window
from tasks_server.views import FIELDS_DESCRIPTION, Fields, TaskBrief, TaskView

__all__ = ["MAX_PAGE", "Limit", "Listing", "PageArgs", "Rows", "TaskListArgs", "page"]

MAX_PAGE = 1000
"""The largest page any tool gives."""

M = TypeVar("M", bound=BaseModel)
Rows = Callable[[Sequence[str]], Sequence[Any]]


Limit = Annotated[int, Field(ge=1, le=MAX_PAGE, description="Page size (all lists together).")]
"""The page size, declared once: a tool whose default differs writes `limit: Limit = 25`. One
description for every tool, so that the server's instructions say it once."""


class PageArgs(Input):
    """`limit` and `cursor`, declared once for every paged tool."""

    NOT_QUERY: ClassVar[frozenset[str]] = frozenset(
        {"limit", "cursor", "fields", "max_body_chars", "format"}
    )

    limit: Limit = 50
    cursor: str | Unset = Field(None, description="A page's next_cursor.")

    def selection(self) -> dict[str, Any]:
        """The arguments that choose what is listed (a cursor is tied to them); how rows are
        shown (`fields`, `max_body_chars`, `format`) and where the page starts are not among
        them: a cursor from a page of objects goes on in columns, and the other way."""
        return self.model_dump(mode="json", exclude=set(self.NOT_QUERY))

    def row_fields(self) -> tuple[Fields, int | None]:
        """How task rows are shown: brief unless the input asks for `fields`."""
        return getattr(self, "fields", "brief"), getattr(self, "max_body_chars", None)


@dataclass(frozen=True)
class Listing(Generic[M]):
    """What a paged tool's handler returns.

    `hidden` lists are left out of the pages (their totals still count them); `rows` turns a
    page's ids into the rows the output holds when they are not task views of the index (rows
    it builds pass through as they are); `more` replaces the guidance's next action while
    pages remain; `shape` moves page values where the output nests them under other names;
    `key` is what else the answer was read from, outside the arguments (the commit a
    revision named): a cursor cut under another key is refused. `state` pins the pages to
    a state the answer names itself (a feed answer's end step): its cursors then stay good
    while the tree moves on, instead of being refused at the next change.
    """

    sections: Sections
    guidance: Guidance
    more: str | None = None
    rows: Rows | None = None
    hidden: frozenset[str] = frozenset()
    shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    key: object = None
    state: int | None = None


class TaskListArgs(PageArgs):
    """A page of task rows: `fields` and `max_body_chars` choose how each row is shown,
    `format` how the rows are written (objects, or `Columns`)."""

    fields: Fields = Field("brief", description=FIELDS_DESCRIPTION)
    max_body_chars: Count | Unset = Field(2000, description="Full rows: bodies cut past this.")
    limit: Limit = 50
    format: RowFormat | Unset = Field(None, description="'columns': {columns, rows, same}.")


def page(ctx: ServerContext, tool: str, args: BaseModel, listing: Listing[M], target: type[M]) -> M:
    """`target` holding the page of `listing` that `args.cursor` points at."""
    if not isinstance(args, PageArgs):
        raise TypeError(f"{tool} returns a Listing, but its input has no limit and cursor")
    generation = ctx.live.generation if listing.state is None else -1 - listing.state
    query: tuple[object, ...] = (tool, args.selection())
    if listing.key is not None:
        query += (listing.key,)
    window = open_window(limit=args.limit, cursor=args.cursor, query=query, generation=generation)
    unfilled = set() if listing.shape else listing.sections.lists.keys() - _names(target)
    if unfilled:  # a list no field shows would be dropped without a word (a shape moves them)
        raise TypeError(f"{tool}: no field of {target.__name__} holds {sorted(unfilled)}")
    values = _page_values(ctx, args, listing, window.offset, window.limit)
    next_cursor = window.next_cursor(values["total"])
    guidance = listing.guidance
    if next_cursor and listing.more:
        guidance = guidance.model_copy(update={"next_action": listing.more})
    values |= {"next_cursor": next_cursor, "guidance": guidance}
    return _fill(ctx, target, values, args)


def check_totals(output: type[BaseModel]) -> None:
    """TypeError unless every `<x>_total` field of a paged tool's output (nested models
    too) counts a list of its model, `<x>` or `<x>_tasks`: what `page` fills it with. Run
    where the tool is registered."""
    for model in _models(output):
        fields = model.model_fields
        for name in fields:
            stem = name.removesuffix("_total")
            if stem != name and stem not in fields and f"{stem}_tasks" not in fields:
                raise TypeError(f"{model.__name__}.{name} counts no list: no {stem} field")


@cache  # an output model is fixed: read it once
def _models(output: type[BaseModel]) -> tuple[type[BaseModel], ...]:
    """`output` and the models nested in its fields, at any depth."""
    nested = (_model(info.annotation) for info in output.model_fields.values())
    return (output, *(m for model in nested if model is not None for m in _models(model)))


@cache
def _names(output: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for model in _models(output) for name in model.model_fields)


def _page_values(
    ctx: ServerContext, args: PageArgs, listing: Listing[Any], offset: int, limit: int
) -> dict[str, Any]:
    lists = listing.sections.lists
    shown = {name: ids for name, ids in lists.items() if name not in listing.hidden}
    totals = {name: len(ids) for name, ids in lists.items()}
    window = window_named(shown, offset, limit)
    values: dict[str, Any] = {}
    for name, total in totals.items():
        part = window.parts.get(name, [])
        values[name] = listing.rows(part) if listing.rows else part
        values[f"{name}_total"] = values[f"{name.removesuffix('_tasks')}_total"] = total
    values |= {
        "count": sum(map(len, window.parts.values())),
        "total": window.total,
        "totals": totals,
    }
    for name, fact in listing.sections.facts.items():  # a nested listing: its first page
        nested = isinstance(fact, Listing)
        values[name] = _page_values(ctx, args, fact, 0, limit) if nested else fact
    return listing.shape(values) if listing.shape else values


@dataclass
class _Ask:
    """The task rows one field holds, built once the ids of every field are known (all the
    page's briefs in one call, all its full views in another)."""

    ids: list[str]
    full: bool
    one: bool
    order: tuple[str, ...] | None
    rows: Sequence[Any] = ()

    def written(self) -> Any:
        if self.one:
            return self.rows[0]
        return self.rows if self.order is None else _in_columns(self.rows, self.order)


@dataclass(frozen=True)
class _Plan:
    """An output model and its fields' values, task rows still asked for (`_Ask`)."""

    model: type[BaseModel]
    fields: dict[str, Any]

    def built(self) -> Any:
        values = self.fields.items()
        return self.model(**{name: _built(value) for name, value in values})


def _built(value: Any) -> Any:
    return (
        value.built()
        if isinstance(value, _Plan)
        else value.written()
        if isinstance(value, _Ask)
        else value
    )


def _fill(ctx: ServerContext, target: type[M], values: Mapping[str, Any], args: PageArgs) -> M:
    """`target` from `values` by field name, the rows of every field built together."""
    asks: list[_Ask] = []
    plan = _plan(target, values, args, asks)
    _answer(ctx, asks, args)
    built: M = plan.built()
    return built


def _plan(
    target: type[BaseModel], values: Mapping[str, Any], args: PageArgs, asks: list[_Ask]
) -> _Plan:
    """`target`'s fields from `values` by name; a nested model is filled from the same values
    (or from its own, for a section paged on its own); ids become asks for rows."""
    filled: dict[str, Any] = {}
    for name, info in target.model_fields.items():
        value = values.get(name, _ABSENT)
        nested = _model(info.annotation)
        if nested is not None and isinstance(value, dict):  # a section paged on its own
            filled[name] = _plan(nested, value, args, asks)
        elif nested is not None and value is _ABSENT:
            filled[name] = _plan(nested, values, args, asks)
        elif value is not _ABSENT:
            filled[name] = _written(info.annotation, value, args, asks)
    return _Plan(target, filled)


def _written(annotation: Any, value: Any, args: PageArgs, asks: list[_Ask]) -> Any:
    """The rows of a field (asked for, when ids become task rows), in columns when the
    input asks and the field may hold them."""
    order = _column_order(annotation) if getattr(args, "format", None) == "columns" else None
    ask = _ask(annotation, value, args, order)
    if ask is not None:
        asks.append(ask)
        return ask
    return value if order is None else _in_columns(value, order)


def _answer(ctx: ServerContext, asks: list[_Ask], args: PageArgs) -> None:
    """The rows of every ask: the briefs in one call, the full views in another."""
    asks = sorted(asks, key=attrgetter("full"))  # the briefs first, then the full views
    brief_ids = [i for ask in asks if not ask.full for i in ask.ids]
    view_ids = [i for ask in asks if ask.full for i in ask.ids]
    rows: list[Any] = ctx.briefs(brief_ids) if brief_ids else []
    if view_ids:
        _, max_body_chars = args.row_fields()
        rows += ctx.views(view_ids, "full", max_body_chars=max_body_chars)
    start = 0
    for ask in asks:
        ask.rows, start = rows[start : start + len(ask.ids)], start + len(ask.ids)


@cache
def _dump() -> TypeAdapter[list[Any]]:
    """The dump of rows of any model, made at its first use (not at start)."""
    return TypeAdapter(list[Any])


def _in_columns(rows: Sequence[Any], order: Sequence[str]) -> Columns:
    """`rows` (models) in columns: the fields some row has, in `order`, and each row's
    values in that order (null where the row leaves the field out); on a page of two
    rows or more, a field with one value on every row goes once into `same` instead."""
    values = _values(rows, order)
    same = {name: cells[0] for name, cells in values.items() if _one_value(cells)}
    columns = [name for name in values if name not in same]
    if not columns:  # no row has a field (an empty page), or no field differs between rows
        return Columns.model_construct(columns=[], rows=[[] for _ in rows], same=same)
    cells = list(map(list, zip(*(values[name] for name in columns), strict=True)))
    return Columns.model_construct(columns=columns, rows=cells, same=same)


def _values(rows: Sequence[Any], order: Sequence[str]) -> dict[str, list[Any]]:
    """Each field some row has, in `order`, with its JSON value on every row (None where
    the row leaves it out). Briefs, the rows of most pages, are read by attribute (a page
    of 1,000 in a third of the time); other rows are dumped in one call, each as its own
    model writes it."""
    if rows and all(type(row) is TaskBrief for row in rows):
        return _brief_values(rows, order)
    objects: list[dict[str, Any]] = _dump().dump_python(list(rows), mode="json")
    present = set().union(*objects)
    return {name: [row.get(name) for row in objects] for name in order if name in present}


def _brief_values(rows: Sequence[TaskBrief], order: Sequence[str]) -> dict[str, list[Any]]:
    """The values of briefs by field, as `TaskBrief` dumps them: a field that is None on
    every row is left out (a brief leaves out a None field), and a field whose values are
    not JSON (a claim's expiry) is dumped by its own type."""
    names = [name for name in order if name in TaskBrief.model_fields]
    values: dict[str, list[Any]] = {}
    for name, cells in zip(names, zip(*map(attrgetter(*names), rows), strict=True), strict=True):
        if cells.count(None) == len(cells):
            continue
        dump = _brief_dumps().get(name)
        values[name] = list(cells) if dump is None else dump.dump_python(list(cells), mode="json")
    return values


def _not_json(annotation: Any) -> bool:
    """Whether a field's values may be other than JSON's own (str, int, bool, None)."""
    union = get_origin(annotation) in (Union, UnionType)
    kinds = [
        get_args(k)[0] if get_origin(k) is Annotated else k
        for k in (get_args(annotation) if union else (annotation,))
    ]
    return any(kind not in (str, int, bool, type(None)) for kind in kinds)


@cache
def _brief_dumps() -> dict[str, TypeAdapter[list[Any]]]:
    """The brief fields whose values are not already JSON, each with its type's dump (made
    at the first page that has one, not at start)."""
    return {
        name: TypeAdapter(list[info.annotation])  # type: ignore[name-defined]
        for name, info in TaskBrief.model_fields.items()
        if _not_json(info.annotation)
    }


def _one_value(cells: list[Any]) -> bool:
    """Whether a column of two cells or more holds one value (of one type: 1 is not true)."""
    first = cells[0]
    kind = type(first)
    return (
        len(cells) > 1
        and cells.count(first) == len(cells)  # most columns fail here, at C speed
        and all(type(cell) is kind for cell in cells)
    )


@cache  # a field's annotation is fixed: read it once
def _column_order(annotation: Any) -> tuple[str, ...] | None:
    """The fields of the rows a list field holds, in declared order, when the field may
    hold `Columns`; None when it may not."""
    if get_origin(annotation) not in (Union, UnionType) or Columns not in get_args(annotation):
        return None
    (listed,) = [arg for arg in get_args(annotation) if get_origin(arg) is list]
    (item,) = get_args(listed)
    model = _task_kind(item) or _model(item)
    if model is None:
        raise TypeError(f"rows of {annotation} are not models: no columns to give")
    return tuple(model.model_fields)


_ABSENT = object()


def _model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _ask(annotation: Any, value: Any, args: PageArgs, order: tuple[str, ...] | None) -> _Ask | None:
    """The rows `value` asks for as the field declared `annotation` holds them: ids become
    briefs or task rows (brief or full, as the arguments ask), an optional id an optional
    brief; None when the value is not ids of task rows."""
    kind = _task_kind(annotation)
    if kind is None or value is None or isinstance(value, BaseModel):
        return None  # not task rows, or a row already built (the task view of a fact)
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        return None  # rows a Listing's `rows` built (tasks not in the index)
    if isinstance(value, str):
        return _Ask([value], full=False, one=True, order=None)
    full = kind is not TaskBrief and args.row_fields()[0] == "full"
    return _Ask(list(value), full=full, one=False, order=order)


@cache  # a field's annotation is fixed: read it once
def _task_kind(annotation: Any) -> type[BaseModel] | None:
    """TaskBrief or TaskView when `annotation` holds task rows (a list of them, or an
    optional brief); None for anything else, which passes through as it is."""
    origin = get_origin(annotation)
    if origin is list:
        (item,) = get_args(annotation)
        return _task_kind(item)
    if origin in (Union, UnionType):
        found = {_task_kind(arg) for arg in get_args(annotation)} - {None}
        return TaskView if TaskView in found else found.pop() if found else None
    base = getattr(annotation, "__origin__", annotation)  # Annotated[...] (TaskRow)
    if base is not annotation:
        return _task_kind(base)
    return annotation if annotation in (TaskBrief, TaskView) else None
