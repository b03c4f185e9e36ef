"""Places in a document as the protocol counts them (lines, and columns in the editor's
units: UTF-16 by default), and a finding of `tasks_server.findings` as a diagnostic there."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

from tasks_server.editor.text import line_of_key
from tasks_server.findings import Problem

__all__ = ["Ranges", "diagnostic_of"]

SOURCE = "tasks-server"
_KEY_OF = {"dependency_cycle": "depends_on", "parent_cycle": "parent", "duplicate_id": "id"}


class Ranges:
    """Converts (line, column) in characters of a text to and from the editor's units."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.codec = codec

    def span(self, line: int, start: int, end: int) -> lsp.Range:
        """Characters start to end of `line`, clamped to the text (never past its end)."""
        line = max(0, min(line, len(self.lines) - 1))
        width = len(self.lines[line].rstrip("\r"))
        start, end = max(0, min(start, width)), max(0, min(end, width))
        plain = lsp.Range(lsp.Position(line, start), lsp.Position(line, end))
        return self.codec.range_to_client_units(self.lines, plain)

    def whole_line(self, line: int) -> lsp.Range:
        return self.span(line, 0, 1 << 30)

    def position(self, position: lsp.Position) -> tuple[int, int]:
        """The editor's position as (line, character), clamped to the text."""
        line = max(0, min(position.line, len(self.lines) - 1))
        clamped = lsp.Position(line, max(0, position.character))
        try:
            found = self.codec.position_from_client_units(self.lines, clamped)
        except (IndexError, ValueError):
            return line, len(self.lines[line])
        return found.line, min(found.character, len(self.lines[line]))


def _line_of(problem: Problem, relative: str, ranges: Ranges) -> int:
    """0-based: the finding's line when it is about this file, else the key it is about."""
    if problem.path == relative and problem.line is not None:
        return problem.line - 1
    key = _KEY_OF.get(problem.kind)
    found = line_of_key(ranges.text, key) if key else None
    return found if found is not None else 0


def diagnostic_of(
    problem: Problem, relative: str, ranges: Ranges, uri_of: Callable[[str], str] | None = None
) -> lsp.Diagnostic:
    """A finding as the editor shows it: at the id or key it names when the line holds it,
    at the parser's column for YAML, else the whole line; the other files it touches (the
    other holder of an id, the other members of a cycle) as related places (`uri_of`)."""
    line = _line_of(problem, relative, ranges)
    text = ranges.lines[min(line, len(ranges.lines) - 1)] if ranges.lines else ""
    at = text.find(problem.needle) if problem.needle else -1
    if at >= 0 and problem.needle:
        where = ranges.span(line, at, at + len(problem.needle))
    elif problem.column is not None:
        where = ranges.span(line, problem.column - 1, 1 << 30)
    else:
        where = ranges.whole_line(line)
    severity = lsp.DiagnosticSeverity.Error if problem.is_error else lsp.DiagnosticSeverity.Warning
    start = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    related = [
        lsp.DiagnosticRelatedInformation(location=lsp.Location(uri_of(path), start), message=path)
        for path in dict.fromkeys(problem.files)
        if path != relative and uri_of is not None and not path.startswith("(")
    ]
    return lsp.Diagnostic(
        range=where,
        message=problem.message,
        severity=severity,
        code=problem.kind,
        source=SOURCE,
        related_information=related or None,
    )
