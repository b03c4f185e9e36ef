"""Asking the person through the client: MCP elicitation (form mode), when the client
declares it.

`consent_for` puts a tool's question (`tasks_server.consent`) to the person before the call
runs: on a handshake-era session as an `elicitation/create` request tied to the call; on a
2026-07-28 session, which has no back-channel, as an `InputRequiredResult` the client
answers by calling again with `input_responses` (read here on that second call). One yes/no
field: accept with `confirm` true (or no content) is "accepted", accept with `confirm` false
"declined"; decline and cancel are what they say. A client that does not declare elicitation
is not asked (None): the call runs as before and says so.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError
from mcp_types import (
    CallToolRequestParams,
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)

from tasks_server.consent import Consent

__all__ = ["CONFIRM_SCHEMA", "consent_for", "to_consent"]

KEY = "confirm"
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        KEY: {
            "type": "boolean",
            "title": "Confirm",
            "description": "Yes: go ahead. No: leave it as it is.",
            "default": True,
        }
    },
    "required": [KEY],
}


def can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    """True when the client declared the elicitation capability."""
    return ctx.session.check_client_capability(
        ClientCapabilities(elicitation=ElicitationCapability())
    )


async def consent_for(
    ctx: ServerRequestContext[Any], params: CallToolRequestParams, question: str
) -> Consent | InputRequiredResult | None:
    """The person's answer to `question`, a request for it (2026-07-28), or None when the
    client cannot ask."""
    given = (params.input_responses or {}).get(KEY)
    if isinstance(given, ElicitResult):
        return to_consent(given)
    if not can_elicit(ctx):
        return None
    try:
        return to_consent(await ctx.session.elicit_form(question, CONFIRM_SCHEMA, ctx.request_id))
    except NoBackChannelError:
        form = ElicitRequestFormParams(message=question, requested_schema=CONFIRM_SCHEMA)
        return InputRequiredResult(input_requests={KEY: ElicitRequest(params=form)})


def to_consent(result: ElicitResult) -> Consent:
    if result.action == "accept":
        agreed = (result.content or {}).get(KEY, True)
        return "accepted" if agreed is True else "declined"
    return "declined" if result.action == "decline" else "cancelled"
