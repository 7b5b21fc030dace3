"""A deterministic customer-service agent with no model: it reads the customer brief and makes the calls.

It speaks MCP (protocol 2026-07-28, stateless Streamable HTTP) with nothing but Python's standard library, as an
agent written in any language would; an SDK-based agent gets the same from `mcp.Client`.

Run by `aftersales eval --agent "python examples/scripted_agent.py"`, it reads the three variables the harness sets:
AFTERSALES_MCP_URL, AFTERSALES_TOKEN and AFTERSALES_TASK_FILE (the brief, docs/tasks.md). It prints its final words
to the customer on stdout. With `--mode conversation` the brief holds only the customer's opening message and the
harness sets AFTERSALES_CUSTOMER_URL too: the agent then asks the customer for what it needs
(scripted_conversation.py).

`--mistake` makes it wrong on purpose, so the harness can show that it catches each mistake:
  wrong-kind      refunds without taking the item back (refund_only instead of return_and_refund)
  double-create   opens the ticket a second time with a fresh idempotency key
  ignore-decline  when the customer declines or cancels a form, opens the ticket anyway
  no-lookup       without an order number, takes the order of the customer's newest ticket (after_sales_list_tickets
                  by customer ID) instead of finding their orders
  no-estimate     opens a refund without estimating it first (so with no quote)
  no-quote        estimates, then opens the refund without the estimate's quote_id
  stale-quote     when the quote expired, opens the ticket again without it instead of estimating afresh
  ask-again       when the customer declines or cancels a form, makes the same call again (they say no again)
  retry-refused   when a rule refuses the create, makes the same call once more
and, in a conversation, no-ask, no-tell and ignore-refusal (scripted_conversation.py).

`--no-forms` makes its client one that cannot show forms (as on a framework without elicitation): the server then
asks nothing mid-call, and the agent asks the customer itself, taking their answers from the brief's forms. It
confirms a refund or a cancellation before calling when the brief says how the customer answers that confirmation,
and when a create is refused for a refund method the server could not ask for (error kind "input_needed"), it asks
for one and calls again with the answer and the same idempotency key, as the error says.
"""

import argparse
import itertools
import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import scripted_conversation
from scripted_conversation import delivery_day

REFUNDS = ("refund_only", "return_and_refund")
PROTOCOL = "2026-07-28"
BRIEF_MISTAKES = (
    "wrong-kind",
    "double-create",
    "ignore-decline",
    "no-lookup",
    "no-estimate",
    "no-quote",
    "stale-quote",
    "ask-again",
    "retry-refused",
)
CONVERSATION_MISTAKES = ("no-ask", "no-tell", "ignore-refusal")


@dataclass
class Reply:
    """One tool call's answer: its structured content, or its error text; `lost` when no answer came back."""

    data: dict[str, Any] | None
    text: str
    error: bool
    lost: bool = False
    kind: str | None = None  # a tool error's kind, from _meta (input_needed: ask the customer, then call again)


class Mcp:
    """Stateless MCP 2026-07-28 over Streamable HTTP with the standard library: one POST per request."""

    def __init__(self, url: str, token: str, forms: dict[str, Any], shows_forms: bool = True) -> None:
        self.url, self.token, self.forms, self.ids = url, token, forms, itertools.count(1)
        self.shows_forms = shows_forms

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Reply:
        """tools/call; an input_required round is answered from the customer's forms, when this client answers."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        for _ in range(4):
            message = self.post(params)
            if "error" in message:
                return Reply(None, message["error"]["message"], error=True, lost=True)
            result = message["result"]
            if result.get("resultType") != "input_required":
                text = " ".join(part.get("text", "") for part in result.get("content", []))
                kind = (result.get("_meta") or {}).get("aftersales/error")
                return Reply(result.get("structuredContent"), text, error=bool(result.get("isError")), kind=kind)
            # The question keys are readable (after_sales_create_ticket:confirm): answer each as the customer would.
            answers = {key: self.forms.get(key, {"action": "cancel"}) for key in result["inputRequests"]}
            params = {**params, "inputResponses": answers, "requestState": result.get("requestState")}
        return Reply(None, "too many rounds of questions", error=True)

    def post(self, params: dict[str, Any]) -> dict[str, Any]:
        """One JSON-RPC request; the answer from a JSON or an event-stream body."""
        # It can answer forms and open the shop's pages (URL mode; from the brief), unless told it cannot show forms.
        # When the world answers them itself, none ever reaches this client.
        capabilities = {"elicitation": {"form": {}, "url": {}}} if self.shows_forms else {}
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL,
                "io.modelcontextprotocol/clientInfo": {"name": "scripted-agent", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            },
        }
        body = {"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call", "params": params}
        request = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "authorization": f"Bearer {self.token}",
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": PROTOCOL,
                "mcp-method": "tools/call",
                "mcp-name": params["name"],
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                kind, text = response.headers.get("content-type", ""), response.read().decode()
        except urllib.error.HTTPError as error:
            return {"error": {"code": error.code, "message": error.read().decode(errors="replace")}}
        if not kind.startswith("text/event-stream"):
            return json.loads(text)
        events = [json.loads(line[5:]) for line in re.split(r"\r\n|\r|\n", text) if line.startswith("data:")]
        return next(event for event in events if "id" in event)


class ScriptedAgent:
    """Serves one customer from their brief."""

    def __init__(self, client: Mcp, brief: dict[str, Any], mistake: str | None) -> None:
        self.client, self.brief, self.mistake = client, brief, mistake
        self.customer = brief["customer"]
        self.wants, self.knows = self.customer["wants"], self.customer["knows"]
        self.key = f"agent-{brief['task_id']}"[:60]

    def asked(self, question: str) -> dict[str, Any]:
        """What the customer answers when the agent asks them what the server's form `question` would have."""
        return dict(self.customer.get("forms", {}).get(question, {"action": "cancel"}))

    def confirmed(self, question: str) -> bool:
        """Whether the customer, asked in the chat what a confirmation form would have asked, says yes."""
        answer = self.asked(question)
        return answer["action"] == "accept" and (answer.get("content") or {}).get("confirm") is True

    def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """Call a tool; a protocol error (a lost answer, a timeout) is a reply the agent can retry on."""
        return self.client.call_tool(tool, arguments)

    def serve(self) -> str:
        """Do what the customer wants; return what to tell them."""
        action = self.wants["action"]
        if action == "check_ticket":
            ticket_id = self.knows.get("ticket_id") or self.find_ticket()
            if ticket_id is None:
                return "I could not find that ticket; could you give me its number?"
            reply = self.call("after_sales_query_ticket", {"ticket_id": ticket_id})
            return reply.text if reply.error else f"Ticket {reply.data['ticket_id']}: {reply.data['next_step']}"
        if action == "cancel_ticket":
            if "ticket_id" not in self.knows:
                found = self.find_ticket()
                if found is None:
                    return "I could not find that ticket; could you give me its number?"
                self.knows["ticket_id"] = found
            if not self.client.shows_forms and not self.confirmed("after_sales_cancel_ticket:confirm"):
                return "All right, I have left the ticket as it is."  # a client without forms confirms first
            arguments = {
                "ticket_id": self.knows["ticket_id"],
                "reason": self.wants["description"],
                "idempotency_key": self.key,
            }
            reply = self.call("after_sales_cancel_ticket", arguments)
            return reply.text if reply.error or reply.data is None else str(reply.data.get("next_step", reply.text))
        return self.open_ticket()

    def find_ticket(self) -> str | None:
        """The newest ticket on the order line the customer means (tickets come newest first)."""
        where = self.find_line()
        if where is None:
            return None
        order_id, line_no = where
        listed = self.call("after_sales_list_tickets", {"order_id": order_id})
        tickets = [t for t in (listed.data or {}).get("tickets", []) if t["item"].get("line_no", line_no) == line_no]
        return str(tickets[0]["ticket_id"]) if tickets else None

    def orders(self) -> list[str]:
        """The customer's orders: the number they gave, or those found by their email, phone or customer id."""
        if "order_id" in self.knows:
            return [self.knows["order_id"]]
        product = self.knows.get("product", "")
        if self.mistake == "no-lookup" and "customer_id" in self.knows:
            listed = self.call("after_sales_list_tickets", {"customer_id": self.knows["customer_id"]})
            return [ticket["order_id"] for ticket in (listed.data or {}).get("tickets", [])][:1]
        for field in ("email", "phone", "customer_id"):
            if field in self.knows:
                found = self.call("after_sales_find_orders", {field: self.knows[field]})
                orders = [order for order in (found.data or {}).get("orders", []) if product in order.get("items", "")]
                day = delivery_day(str(self.knows.get("delivered_on", "")))  # which of several, when they said
                orders = [order for order in orders if str(order.get("delivered_at", "")).startswith(day)] or orders
                return [order["order_id"] for order in orders]
        return []

    def find_line(self) -> tuple[str, int] | None:
        """The order and line the customer means; None when they never said which item of several."""
        product = self.knows.get("product")
        for order_id in self.orders():
            if "line_no" in self.knows:
                return order_id, int(self.knows["line_no"])
            lines = (self.call("after_sales_get_order", {"order_id": order_id}).data or {}).get("lines", [])
            if product is None and len(lines) == 1:
                return order_id, int(lines[0]["line_no"])
            for line in lines:
                if line["name"] == product:
                    return order_id, int(line["line_no"])
        return None

    def open_ticket(self) -> str:
        """Estimate (for refunds), then create; a repair when the window closed and the customer accepts one."""
        where = self.find_line()
        if where is None:
            return "I could not tell which order and item this is about; which one is it?"
        order_id, line_no = where
        kind = self.wants["kind"]
        if self.mistake == "wrong-kind" and kind == "return_and_refund":
            kind = "refund_only"
        arguments: dict[str, Any] = {
            "order_id": order_id,
            "line_no": line_no,
            "kind": kind,
            "reason_code": self.wants["reason_code"],
            "quantity": self.wants.get("quantity", 1),
            "description": self.wants["description"],
            "idempotency_key": self.key,
        }
        if self.wants.get("refund_method"):
            arguments["refund_method"] = self.wants["refund_method"]
        if kind in REFUNDS and self.mistake != "no-estimate":
            estimate = self.estimate(arguments)
            if estimate.error:
                if self.wants.get("accepts_repair") and "repair" in estimate.text.lower():
                    repair = {**arguments, "kind": "repair", "idempotency_key": f"{self.key}-repair"}
                    repair.pop("refund_method", None)
                    return self.tell(self.create(repair))
                return f"I am sorry, that is not possible: {estimate.text}"
            if self.mistake != "no-quote":
                arguments["quote_id"] = estimate.data["quote_id"]
            # Without forms the agent confirms a refund itself before calling; it asks when the brief says how the
            # customer answers a confirmation (a model would read the threshold in the tool's description).
            confirmation = "after_sales_create_ticket:confirm"
            scripted = confirmation in self.customer.get("forms", {})
            if not self.client.shows_forms and scripted and not self.confirmed(confirmation):
                return f"All right, I have not opened anything. The refund would be {estimate.data['total_display']}."
        reply = self.create(arguments)
        if self.mistake == "ignore-decline" and (reply.data or {}).get("outcome") == "not_created":
            forced = {**arguments, "refund_method": "original_payment", "idempotency_key": f"{self.key}-forced"}
            reply = self.create(forced)
        if self.mistake == "ask-again" and (reply.data or {}).get("outcome") == "not_created":
            reply = self.create(arguments)
        return self.tell(reply)

    def estimate(self, arguments: dict[str, Any]) -> Reply:
        """Estimate the refund of the line."""
        keys = ("order_id", "line_no", "reason_code", "quantity")
        return self.call("after_sales_estimate_refund", {key: arguments[key] for key in keys})

    def create(self, arguments: dict[str, Any]) -> Reply:
        """Create with one key: retry a lost answer unchanged, and an expired quote with a fresh estimate."""
        reply = self.call("after_sales_create_ticket", arguments)
        for _ in range(3):
            if reply.lost:
                reply = self.call("after_sales_create_ticket", arguments)
            elif reply.kind == "expired" and "quote_id" in arguments and self.mistake == "stale-quote":
                arguments.pop("quote_id")
                reply = self.call("after_sales_create_ticket", arguments)
            elif reply.kind == "expired" and "quote_id" in arguments:
                fresh = self.estimate(arguments)
                if fresh.error:
                    return fresh
                arguments["quote_id"] = fresh.data["quote_id"]
                reply = self.call("after_sales_create_ticket", arguments)
            else:
                break
        if reply.kind == "input_needed" and not self.client.shows_forms and "refund_method" not in arguments:
            # The server could not ask where the refund goes: ask the customer, then call again with the same key.
            answer = self.asked("after_sales_create_ticket:refund_method")
            if answer["action"] != "accept":
                return Reply(
                    {"outcome": "not_created", "next_step": "Then I will not open the ticket for now."}, "", False
                )
            return self.create({**arguments, "refund_method": answer["content"]["refund_method"]})
        if self.mistake == "retry-refused" and reply.kind == "rule":
            self.call("after_sales_create_ticket", arguments)  # the same call again, as if no were not an answer
        if self.mistake == "double-create" and not reply.error:
            self.call(
                "after_sales_create_ticket", {**arguments, "idempotency_key": f"{arguments['idempotency_key']}-2"}
            )
        return reply

    def tell(self, reply: Reply) -> str:
        """What to say after a create."""
        if reply.error or reply.data is None:
            return f"I am sorry, that did not work: {reply.text}"
        ticket = reply.data.get("ticket") or {}
        return f"{reply.data['outcome']}: ticket {ticket.get('ticket_id', '-')}. {reply.data['next_step']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mistake", choices=(*BRIEF_MISTAKES, *CONVERSATION_MISTAKES))
    parser.add_argument("--no-forms", action="store_true", help="a client that cannot show forms (no elicitation)")
    args = parser.parse_args()
    with open(os.environ["AFTERSALES_TASK_FILE"], encoding="utf-8") as file:
        brief = json.load(file)
    token = os.environ["AFTERSALES_TOKEN"]
    if brief["format"] == scripted_conversation.FORMAT:
        # The customer's form answers (forms == "client") are theirs to give when the client shows them a form.
        client = Mcp(os.environ["AFTERSALES_MCP_URL"], token, brief.get("form_answers", {}), not args.no_forms)
        channel = scripted_conversation.Channel(os.environ["AFTERSALES_CUSTOMER_URL"], token)
        mistake = args.mistake if args.mistake in CONVERSATION_MISTAKES else None
        print(scripted_conversation.ConversationAgent(client, channel, brief, mistake).serve())
        return
    # When the world does not answer its own forms (brief["forms"] == "client"), this client answers as the customer.
    forms = brief["customer"].get("forms", {})
    client = Mcp(os.environ["AFTERSALES_MCP_URL"], token, forms, not args.no_forms)
    mistake = args.mistake if args.mistake in BRIEF_MISTAKES else None
    print(ScriptedAgent(client, brief, mistake).serve())


if __name__ == "__main__":
    main()
