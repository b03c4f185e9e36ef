"""The task graph: an index of tasks with typed edges, and pure deterministic queries over it.

`graph.index.TaskIndex` holds the tasks (from `storage.model`) and keeps their facts fresh
edit by edit; the topic modules (`metrics`, `readiness`, `topology`, `neighborhood`, `review`,
`signals`, `query`, `cycle_check`) are pure functions that take the index first and return
plain data or frozen pydantic models. networkx never leaves this package. No file I/O, no
clock: every time-dependent function takes `now`.
"""

__all__: list[str] = []
