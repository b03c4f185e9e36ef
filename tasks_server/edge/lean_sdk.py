"""The SDK's two top packages opened without running their re-exports until a name needs them.

Importing any `mcp.server...` module runs `mcp/__init__.py` first, which imports the SDK's
whole client side (its HTTP client among it), then `mcp/server/__init__.py`, which imports
the high-level `MCPServer`. A server made of the low-level `Server` uses neither: they are
120-190 ms of a 600 ms start on this machine (docs/performance.md, "Start").

`open_lean()` puts `mcp` and `mcp.server` in `sys.modules` as their import would before
running their `__init__`: a package whose submodules import as usual. The first name asked
of either that no submodule import has bound runs its `__init__` then (PEP 562's module
`__getattr__`), so `from mcp import Client` still works, at the old price, once.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["LEAN", "open_lean"]

LEAN = ("mcp", "mcp.server")
"""The packages opened lean, parents first."""

_COMPLETING = threading.RLock()  # completing `mcp` completes `mcp.server` inside it


def open_lean() -> None:
    """Open each of `LEAN` not imported yet without its `__init__` (see the module)."""
    for name in LEAN:
        if name not in sys.modules:
            _open(name)


def _open(name: str) -> None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not an installed package: its import will say so
    package = importlib.util.module_from_spec(spec)
    package.__getattr__ = _completing(package)  # type: ignore[method-assign]
    sys.modules[name] = package
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, package)


def _completing(package: ModuleType) -> Any:
    """The package's `__getattr__`: run its `__init__` into it once, then answer as it."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name != "__all__":  # introspection (`__wrapped__`...)
            raise AttributeError(name)
        with _COMPLETING:
            if "__getattr__" in vars(package):  # not completed by another thread meanwhile
                del package.__getattr__
                spec = package.__spec__
                assert spec is not None and spec.loader is not None
                spec.loader.exec_module(package)
        return getattr(package, name)

    return __getattr__
