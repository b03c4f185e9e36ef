"""The shape of a query's answer that pages: named lists and scalar facts.

A graph query that returns lists of tasks (a neighbourhood, a decomposition context, a
filtered listing) returns `Sections`: each list named as the result names it, holding ids
in the task order, and the scalar facts beside them (a parent id, a project). The lists are
whole; cutting them into pages is the tool runtime's job, done once for every tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Sections"]


@dataclass(frozen=True, slots=True)
class Sections:
    """Named lists, read one after another in this order, and scalar facts by name.

    >>> s = Sections({"children": ["a", "b"]}, {"parent": None})
    >>> s.with_facts(project="x").facts
    {'parent': None, 'project': 'x'}
    """

    lists: Mapping[str, Sequence[Any]]
    facts: Mapping[str, Any] = field(default_factory=dict)

    def with_facts(self, **facts: Any) -> Sections:
        """These sections with more facts (a fact of the same name is replaced)."""
        return replace(self, facts={**self.facts, **facts})
