"""Hostile input kept as a standing corpus: the same real servers and clients as the tool tests."""

from __future__ import annotations

from tests.tasks_server.conftest import client, server

__all__ = ["client", "server"]
