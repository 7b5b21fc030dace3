"""One column of a case: the real MCP client on one protocol revision, against the demo server over HTTP.

On 2026-07-28 the column drives the input_required rounds itself (the SDK's `allow_input_required` loop), so the
person sees all questions of a round together; on 2025-11-25 the client's elicitation callback asks the person while
the call stays open. Everything the client sends and receives is recorded by the wire tap.
"""

import time
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    Implementation,
    InputRequiredResult,
    InputResponses,
)

from aftersales import __version__
from aftersales.demo import sealed
from aftersales.demo.cases import Case
from aftersales.demo.stage import Answer, Run
from aftersales.demo.telling import for_person
from aftersales.demo.wire import Tap
from aftersales.demo.worlds import Endpoint
from aftersales.domain.calls import CANCEL_TICKET, CREATE_TICKET

MODERN, LEGACY = "2026-07-28", "2025-11-25"
MODES = {MODERN: "auto", LEGACY: "legacy"}
MAX_ROUNDS = 10
FORGED = {"refund_method": "cash"}  # a choice the form never offered


class Column:
    """Plays `case` on `revision` and reports every step to `run`."""

    def __init__(self, run: Run, revision: str, endpoint: Endpoint, case: Case, hold_seconds: float) -> None:
        self.run, self.revision, self.endpoint, self.case = run, revision, endpoint, case
        self.hold_seconds = hold_seconds
        self.client: Client | None = None
        self.tamper = self.hold = False
        self.asked = 0
        self.tool = ""  # the tool being called: the page reads its annotations (destructiveHint) for the form

    async def play(self) -> None:
        """Connect, run the case's script, and say how it ended."""
        endpoint = self.endpoint
        start = {
            "url": endpoint.url,
            "caller": endpoint.caller,
            "world": endpoint.world,
            "remote": endpoint.remote,
            "forms": self.case.forms,
        }
        self.emit({"type": "start", **start})
        tap = Tap(lambda entry: self.emit(entry | {"type": "wire"}), self.describe)
        try:
            async with (
                httpx2.AsyncClient(
                    transport=tap,
                    headers={"Authorization": f"Bearer {endpoint.token}"},
                    # No read limit: on 2025-11-25 the call's stream stays open while the person thinks.
                    timeout=httpx2.Timeout(30, read=None),
                ) as http,
                Client(
                    streamable_http_client(endpoint.url, http_client=http),
                    mode=MODES[self.revision],
                    elicitation_callback=self.person if self.case.forms else None,
                    client_info=Implementation(name="aftersales-demo", version=__version__),
                ) as client,
            ):
                self.client = client
                self.emit({"type": "connected", "protocol": client.protocol_version})
                # Listed up front, as a host does before offering tools: the page reads each call's description
                # and input schema from this answer, and the client validates results against it.
                await client.list_tools()
                await self.case.script(self)
        except Exception as error:  # the page says what stopped the column instead of hanging
            self.emit({"type": "failed", "text": f"{type(error).__name__}: {error}"})
        finally:
            self.emit({"type": "end"})

    async def create(self, arguments: dict[str, Any], *, tamper: bool = False, hold: bool = False) -> dict[str, Any]:
        """Call after_sales_create_ticket, answering through the person; report and return what the model gets."""
        return await self.call(CREATE_TICKET, arguments, tamper=tamper, hold=hold)

    async def cancel(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call after_sales_cancel_ticket, the person confirming; report and return what the model gets."""
        return await self.call(CANCEL_TICKET, arguments)

    async def call(
        self, tool: str, arguments: dict[str, Any], *, tamper: bool = False, hold: bool = False
    ) -> dict[str, Any]:
        """Call `tool`, answering through the person; report and return what the model gets."""
        assert self.client is not None
        self.phase("call")
        self.tamper, self.hold, self.tool = tamper, hold, tool
        try:
            if self.revision == MODERN:
                result = await self.rounds(tool, arguments)
            else:
                result = await self.client.call_tool(tool, arguments)
        except MCPError as error:
            outcome: dict[str, Any] = {"error": {"code": error.error.code, "message": error.error.message}}
        else:
            structured = result.structured_content
            outcome = {"is_error": bool(result.is_error), "text": _text(result), "structured": structured}
        self.phase("result")
        event = {"type": "result", "tool": tool, "arguments": arguments, **outcome, "person": for_person(outcome)}
        self.emit(event)
        return outcome

    async def rounds(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """2026-07-28: call, and while the server answers input_required, ask the person and retry."""
        assert self.client is not None
        session = self.client.session
        result = await session.call_tool(tool, arguments, allow_input_required=True)
        for _ in range(MAX_ROUNDS):
            if not isinstance(result, InputRequiredResult):
                return result
            state, asked = result.request_state, result.input_requests or {}
            facts = self.describe(state) if state else {}
            questions = [
                question(key, request.params)
                for key, request in asked.items()
                if isinstance(request.params, ElicitRequestFormParams | ElicitRequestURLParams)
            ]
            answer = await self.ask(questions, expires_at=facts.get("expires_at"), ttl_seconds=facts.get("ttl_seconds"))
            accepted = answer.action == "accept"
            responses: InputResponses = {
                key: ElicitResult(action=answer.action, content=answer.contents.get(key) if accepted else None)
                for key in asked
            }
            if self.hold and facts.get("expires_unix"):
                await self.wait(float(facts["expires_unix"]) - time.time() + 1, expires_at=facts.get("expires_at"))
            if self.tamper and state:
                self.phase("tamper")
                middle = len(state) // 2
                was, now = state[middle], "A" if state[middle] != "A" else "B"
                state = state[:middle] + now + state[middle + 1 :]
                self.emit({"type": "tamper", "what": "requestState", "position": middle, "was": was, "now": now})
            self.phase("retry")
            result = await session.call_tool(
                tool, arguments, input_responses=responses, request_state=state, allow_input_required=True
            )
        raise RuntimeError(f"the server asked more than {MAX_ROUNDS} rounds")

    async def person(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        """2025-11-25: the server's elicitation/create, shown to the person while the call waits.

        A URL question is answered "accept" once the person agrees to open the page (the page then opens beside
        the question); the server says when it is done with notifications/elicitation/complete.
        """
        key = f"elicitation/create id {context.request_id}"
        answer = await self.ask([question(key, params)])
        if self.hold:
            await self.wait(self.hold_seconds)
        content = answer.contents.get(key) if answer.action == "accept" else None
        if isinstance(params, ElicitRequestURLParams):
            return ElicitResult(action=answer.action)
        if self.tamper and content is not None and "refund_method" in content:
            self.phase("tamper")
            self.emit({"type": "tamper", "what": "answer", "chosen": content, "sent": content | FORGED})
            content = content | FORGED
        return ElicitResult(action=answer.action, content=content)

    async def ask(self, questions: list[dict[str, Any]], **details: Any) -> Answer:
        """One round for the person, with the answer the case suggests."""
        self.asked += len(questions)
        self.phase("ask")
        answer = await self.run.ask(self.revision, questions, suggested=self.case.suggested, tool=self.tool, **details)
        self.phase("answer")
        return answer

    async def wait(self, seconds: float, expires_at: str | None = None) -> None:
        """Hold the answer back (the expired case), saying so, and until when the round lives if it has one."""
        seconds = max(seconds, 0.0)
        self.phase("wait")
        self.emit({"type": "hold", "seconds": round(seconds, 1), "expires_at": expires_at})
        await anyio.sleep(seconds)

    def describe(self, state: str) -> dict[str, Any]:
        """What the sealed requestState is bound to, opened with the world's keys."""
        return sealed.describe(state, self.endpoint.state_keys, self.endpoint.caller)

    def phase(self, name: str) -> None:
        """This column reached a step of the narration."""
        self.emit({"type": "phase", "phase": name})

    def emit(self, event: dict[str, Any]) -> int:
        return self.run.emit(event | {"column": self.revision})


def question(key: str, params: ElicitRequestParams) -> dict[str, Any]:
    """One question for the person's pane: a form (its schema) or a URL to open (shown with its domain)."""
    if isinstance(params, ElicitRequestURLParams):
        found: dict[str, Any] = {"key": key, "mode": "url", "message": params.message, "url": params.url}
        if params.elicitation_id is not None:
            found["elicitation_id"] = params.elicitation_id
        return found
    return {"key": key, "mode": "form", "message": params.message, "schema": params.requested_schema}


def _text(result: CallToolResult) -> str:
    """The result's text content."""
    return "\n".join(getattr(block, "text", "") for block in result.content)
