"""The edges of a field no graph algorithm runs on, stored from one side and only where they are.

The parent and soft_depends_on edges are only ever read as neighbours (parent cycles are found
by following `Task.parent`, not by networkx), so they need no `DiGraph`: a `Referrers` maps a
task to the tasks naming it (its children, its soft dependents), holds only the tasks somebody
names, and reads any other id as named by nobody. The other side, the ids a task names that
exist, is the task's own field (`Store.targets`). The names are a tuple: 56 bytes for one
name where a dict takes 184, and an edit copies it, which costs no more than the count of
open children the same edit recomputes.

>>> children = Referrers.gathered([("a", "p"), ("b", "p"), ("a", "p")])
>>> children["p"], children["a"], len(children)
(('a', 'b'), (), 1)
>>> children.link("c", "p"); children.unlink("a", "p"); children["p"]
('b', 'c')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

__all__ = ["Referrers"]


class Referrers(dict[str, tuple[str, ...]]):
    """Task id → the ids of the tasks naming it, each once, in the order their edges came;
    an id nobody names is absent, and reads as `()`. Edit only through `link`, `unlink` and
    `forget`."""

    __slots__ = ()

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
        return cls((target, tuple(names)) for target, names in found.items())

    def __missing__(self, task_id: str) -> tuple[str, ...]:
        return ()

    def link(self, source: str, target: str) -> None:
        """Note that `source` names `target` (again: no change)."""
        found = self.get(target, ())
        if source not in found:
            self[target] = (*found, source)

    def unlink(self, source: str, target: str) -> None:
        """Forget that `source` names `target` (KeyError when it was not noted)."""
        found = self.get(target, ())
        if source not in found:
            raise KeyError((source, target))
        rest = tuple(name for name in found if name != source)
        if rest:
            self[target] = rest
        else:
            del self[target]

    def forget(self, target: str) -> tuple[str, ...]:
        """Take out everything noted as naming `target`; return it."""
        return self.pop(target, ())
