"""The computed facts of one task, as `TaskIndex.facts` returns them.

>>> TaskFacts().is_leaf, BlockedReasons().any()
(True, False)
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

__all__ = ["CYCLE_SHOWN", "BlockedReasons", "TaskFacts"]

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)
CYCLE_SHOWN = 20
"""Members of a dependency cycle one answer lists (a cycle may hold every task there is)."""


def _absent(value: object) -> bool:
    return value is None


class BlockedReasons(BaseModel):
    """Why a task is blocked; all empty when it is not (a terminal task is never blocked)."""

    model_config = _FROZEN

    unmet_dependencies: list[str] = Field(
        default_factory=list,
        description="Ids in depends_on whose task is not done or cancelled, sorted.",
    )
    dangling_dependencies: list[str] = Field(
        default_factory=list, description="Ids in depends_on that no task has, sorted."
    )
    cycle: list[str] = Field(
        default_factory=list,
        description=f"Members of the depends_on cycle this task sits on, sorted; empty if none."
        f" At most the first {CYCLE_SHOWN}: cycle_length says how many there are.",
    )
    cycle_length: int = Field(
        default=0, description="How many tasks that cycle has (0 when there is none)."
    )
    blocked_ancestor: str | None = Field(
        default=None, description="Id of the nearest blocked ancestor (via parent), if any."
    )
    status_blocked: bool = Field(default=False, description="The task's own status is blocked.")

    def any(self) -> bool:
        """True when at least one reason is present."""
        return bool(
            self.unmet_dependencies
            or self.dangling_dependencies
            or self.cycle
            or self.blocked_ancestor
            or self.status_blocked
        )


class TaskFacts(BaseModel):
    """Computed, never read from the file: hierarchy, degrees and readiness of one task."""

    model_config = _FROZEN

    depth: int | None = Field(
        default=0,
        description="Parent hops to a root (0 at a root); null on or under a parent cycle.",
    )
    child_count: int = Field(default=0, description="Tasks whose parent is this task (any status).")
    open_child_count: int = Field(default=0, description="Children that are not done or cancelled.")
    is_leaf: bool = Field(default=True, description="No child that is not done or cancelled.")
    is_root: bool = Field(default=True, description="No parent, or a parent id that no task has.")
    is_orphan: bool = Field(default=True, description="No parent and no depends_on entries.")
    blocking_count: int = Field(default=0, description="Tasks whose depends_on names this task.")
    blocked_by_count: int = Field(
        default=0, description="Entries in this task's depends_on, dangling ones included."
    )
    soft_blocking_count: int = Field(
        default=0, description="Tasks whose soft_depends_on names this task."
    )
    is_ready: bool = Field(
        default=False,
        description="Status in the ready set (active), not blocked, and no child is open.",
    )
    is_blocked: bool = Field(
        default=False, description="Not done or cancelled, and at least one reason applies."
    )
    reasons: BlockedReasons = Field(
        default_factory=BlockedReasons, description="Why the task is blocked (empty if not)."
    )
    ready_since: datetime | None = Field(
        default=None,
        description=(
            "When the task became ready: the latest of its modified time and the completed time"
            " of its dependencies; null when not ready."
        ),
    )
    deferred_until: datetime | SkipJsonSchema[None] = Field(
        default=None,
        description="When the task's defer_until ends, while it is still ahead (the task is"
        " then neither ready nor blocked); absent otherwise.",
        exclude_if=_absent,
    )
