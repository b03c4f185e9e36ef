"""The edges of a field no graph algorithm runs on, stored from one side and only where they are.

The parent and soft_depends_on edges are only ever read as neighbours (parent cycles are found
by following `Task.parent`, not by networkx), so they need no `DiGraph`: a `Referrers` maps a
task to the tasks naming it (its children, its soft dependents), holds only the tasks somebody
names, and reads any other id as named by nobody. The other side, the ids a task names that
exist, is the task's own field (`Store.targets`). The names are a tuple (56 bytes for one
name where a dict takes 184; an edit copies it), and past `TUPLE_MOST` names a dict, so that
an edit of a task named by thousands costs no copy of them all.

>>> children = Referrers.gathered([("a", "p"), ("b", "p"), ("a", "p")])
>>> children["p"], children["a"], len(children)
(('a', 'b'), (), 1)
>>> children.link("c", "p"); children.unlink("a", "p"); children["p"]
('b', 'c')
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import ClassVar, Self

__all__ = ["Referrers"]

Names = tuple[str, ...] | dict[str, None]


class Referrers(dict[str, Names]):
    """Task id → the ids of the tasks naming it, each once, in the order their edges came
    (a tuple, or a dict used as an ordered set past `TUPLE_MOST` of them); an id nobody names
    is absent, and reads as `()`. Edit only through `link`, `unlink` and `forget`."""

    __slots__ = ()
    TUPLE_MOST: ClassVar[int] = 32
    """The most names kept as a tuple; a dict holding half as many goes back to one."""

    @classmethod
    def gathered(cls, edges: Iterable[tuple[str, str]]) -> Self:
        """The referrers of `edges` (source → target; a repeated edge counts once)."""
        found: dict[str, dict[str, None]] = {}
        for source, target in edges:
            names = found.get(target)
            if names is None:
                found[target] = {source: None}
            else:
                names[source] = None
        return cls((target, cls._kept(names)) for target, names in found.items())

    @classmethod
    def _kept(cls, names: Collection[str]) -> Names:
        """`names` (non-empty, in order) as a tuple, or as a dict when there are too many."""
        return tuple(names) if len(names) <= cls.TUPLE_MOST else dict.fromkeys(names)

    def __missing__(self, task_id: str) -> Names:
        return ()

    def link(self, source: str, target: str) -> None:
        """Note that `source` names `target` (again: no change)."""
        found = self.get(target, ())
        if isinstance(found, dict):
            found[source] = None
        elif source not in found:
            self[target] = self._kept((*found, source))

    def unlink(self, source: str, target: str) -> None:
        """Forget that `source` names `target` (KeyError when it was not noted)."""
        found = self.get(target, ())
        if source not in found:
            raise KeyError((source, target))
        rest: Names
        if isinstance(found, dict):
            del found[source]
            rest = found if len(found) > self.TUPLE_MOST // 2 else tuple(found)
        else:
            at = found.index(source)
            rest = found[:at] + found[at + 1 :]
        if rest:
            self[target] = rest
        else:
            del self[target]

    def forget(self, target: str) -> Names:
        """Take out everything noted as naming `target`; return it."""
        return self.pop(target, ())
