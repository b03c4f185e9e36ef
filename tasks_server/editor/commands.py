"""`tasks-server lsp`: the language server over stdio. The entry point (`tasks_server.cli`)
imports this module only for that command."""

from __future__ import annotations

import argparse

from tasks_server.editor.handlers import build_server

__all__ = ["run_lsp"]


def run_lsp(args: argparse.Namespace) -> int:
    """Serve the editor over stdin and stdout until it exits."""
    server = build_server(args.root, args.now)
    try:
        server.start_io()
    finally:
        server.stopping.set()
        if server.tree is not None:
            server.tree.close()
    return 0
