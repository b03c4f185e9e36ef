"""Listing and searching over the index: `list_tasks` and `search_tasks` (`query` re-exports
them with the tree views).

Filters are mechanical (equal, at most, contains); lists are in the task order (priority,
order, id), except `search_tasks`, which is ordered by id and never by a score. Kept apart
from the tree views so a first `list_tasks` does not define their result model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from graph.errors import InvalidArgument
from graph.index import TaskIndex
from storage.model import Task, body_unpacker, normalise_status

__all__ = ["list_tasks", "search_tasks"]


def _check_priority(name: str, value: int | None) -> None:
    if value is not None and not 0 <= value <= 4:
        raise InvalidArgument(name, f"must be 0 to 4, got {value}")


def _start(
    index: TaskIndex, project: str | None, status: str | None, parent: str | None
) -> Sequence[str]:
    """The smallest candidate group the filters allow, already in the task order."""
    if parent is not None:
        index.require(parent)
        return index.in_order("parent", parent)
    if project is not None:
        return index.in_order("project", project)
    if status is not None:
        return index.sorted_until_edit(f"status {status}", index.tally.by_status.get(status, ()))
    return index.ordered_ids()


def _matches(
    task: Task, wanted: Mapping[str, object], priority_max: int | None, tag: str | None
) -> bool:
    if any(getattr(task, name) != value for name, value in wanted.items()):
        return False
    if priority_max is not None and task.priority > priority_max:
        return False
    return tag is None or tag in task.tags


def list_tasks(
    index: TaskIndex,
    *,
    project: str | None = None,
    status: str | None = None,
    type: str | None = None,
    priority: int | None = None,
    priority_max: int | None = None,
    assignee: str | None = None,
    tag: str | None = None,
    parent: str | None = None,
) -> Sequence[str]:
    """Ids of the tasks matching every given filter (status aliases like `todo` accepted),
    remembered until the next edit so that paging through them costs a slice per page.

    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
    ...                          Task(id="b", title="B", path="b.md", status="done")])
    >>> list(list_tasks(index, status="open")), list(list_tasks(index, status="closed"))
    (['a'], ['b'])
    """
    _check_priority("priority", priority)
    _check_priority("priority_max", priority_max)
    status = None if status is None else normalise_status(status)
    wanted = {
        name: value
        for name, value in (
            ("project", project),
            ("status", status),
            ("type", type),
            ("priority", priority),
            ("assignee", assignee),
        )
        if value is not None
    }
    candidates = _start(index, project, status, parent)
    if not (wanted or priority_max is not None or tag is not None):
        return candidates
    key = repr(("list_tasks", sorted(wanted.items()), priority_max, tag, parent))
    return index.until_edit(
        key,
        lambda: [
            task_id
            for task_id in candidates
            if _matches(index.require(task_id), wanted, priority_max, tag)
        ],
    )


def search_tasks(index: TaskIndex, query: str) -> Sequence[str]:
    """Ids of the tasks whose title or body contains `query`, any case; ordered by id, and
    remembered until the next edit, so that paging through them costs a slice per page
    (a search reads every body its titles do not answer). Do not change the list.

    >>> from storage.model import Task, pack_text
    >>> notes = pack_text("parser notes")
    >>> index = TaskIndex.build([Task(id="a", title="Fix the Parser", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", packed_body=notes)])
    >>> list(search_tasks(index, "PARSER"))
    ['a', 'b']
    """
    needle = query.casefold()
    if not needle.strip():
        raise InvalidArgument("query", "must not be empty")
    holds = _body_search(needle)
    return index.until_edit(
        repr(("search_tasks", needle)),
        lambda: sorted(
            t.id
            for t in index.unordered_tasks()
            if needle in t.title.casefold() or holds(t.packed_body)
        ),
    )


def _body_search(needle: str) -> Callable[[bytes], bool]:
    """`needle in body.casefold()` for a body given packed (`needle` casefolded, not empty).

    An ASCII body is searched as its bytes, never decoded: ASCII casefolds as `lower()` does,
    and a needle with any other character is not in it (its UTF-8 bytes are all over 127).
    Only a body with other characters is decoded and casefolded."""
    raw_needle = needle.encode("utf-8", "surrogatepass")
    unpack = body_unpacker()

    def holds(packed: bytes) -> bool:
        if not packed:
            return False
        data = unpack(packed)
        if data.isascii():
            return raw_needle in data.lower()
        return needle in data.decode("utf-8", "surrogatepass").casefold()

    return holds
