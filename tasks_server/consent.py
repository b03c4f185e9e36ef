"""A person's agreement to a step, asked where the client can ask (MCP elicitation).

A tool that wants a person to agree before it acts declares a `Question` (`@tool(...,
confirm=...)`, or a bot tool's spec): what to ask for these arguments, or None when there is
nothing to ask. `Toolset.run` asks it before the call takes any lock, through the `Ask` the
face gives (the MCP edge asks the person through the client; a face that cannot ask gives
none), and the handler reads the answer with `answer()`:

    accepted     go ahead
    declined     the person said no     `require_agreement` raises `Declined`: nothing written
    cancelled    the person dismissed it (the same)
    not_asked    the client cannot ask: the call goes ahead as before, and its guidance says
                 that the person's agreement was not asked
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from tasks_server.errors import ToolFailure

if TYPE_CHECKING:
    from tasks_server.context import ServerContext

__all__ = [
    "NOT_ASKED",
    "Ask",
    "Asked",
    "Consent",
    "Declined",
    "Question",
    "answer",
    "answering",
    "ask_about",
    "require_agreement",
]

Consent = Literal["accepted", "declined", "cancelled", "not_asked"]
Ask = Callable[[str], Consent]
"""The face's: put the question to the person, return their answer."""
Question = Callable[["ServerContext", Any], "str | None"]
"""A tool's: the question for these arguments, or None when there is nothing to ask."""

NOT_ASKED = (
    "The person's agreement was not asked: this client cannot ask (no MCP elicitation); "
    "confirm with them before relying on this step"
)


@dataclass(frozen=True, slots=True)
class Asked:
    """A call's question, worked out once before the call runs, and the person's answer
    once a face has put it (the MCP edge: the answer arrives outside the worker thread, so
    it asks first): `Toolset.run` then neither works the question out again nor asks it.
    `question` None: this call has nothing to ask."""

    question: str | None
    consent: Consent | None = None

    def answered(self, consent: Consent | None) -> Asked:
        """This question with the person's answer (None: the client cannot ask)."""
        return Asked(self.question, consent or "not_asked")


_ANSWER: ContextVar[Consent | None] = ContextVar("consent", default=None)


class Declined(ToolFailure):
    """The person declined (or dismissed) the question: the step was not taken."""

    def __init__(self, question: str, consent: Consent) -> None:
        said = "declined" if consent == "declined" else "dismissed the question"
        super().__init__("DECLINED", f"the person {said}: {question} Nothing was changed.")
        self.consent = consent


@contextmanager
def answering(consent: Consent | None) -> Iterator[None]:
    """Within: `answer()` is `consent` (the answer to this call's question, if it had one)."""
    token = _ANSWER.set(consent)
    try:
        yield
    finally:
        _ANSWER.reset(token)


def answer() -> Consent | None:
    """The person's answer to this call's question; None when the call asked nothing."""
    return _ANSWER.get()


def require_agreement(question: str) -> None:
    """Declined unless the person accepted or could not be asked."""
    consent = answer()
    if consent in ("declined", "cancelled"):
        raise Declined(question, consent)


def ask_about(question: str | None, ask: Ask | None) -> Consent | None:
    """The answer to `question` (None when there is none): the person's, or not_asked."""
    if question is None:
        return None
    return ask(question) if ask is not None else "not_asked"
