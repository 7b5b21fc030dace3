"""The scripted agent's conversation mode: it asks the customer for what it needs, makes the calls, tells the outcome.

Run by `aftersales eval --mode conversation`, the agent's brief holds only the customer's opening message; the rest it
learns by asking over the trial's customer channel (AFTERSALES_CUSTOMER_URL: POST {"message": ...} with the trial's
bearer token, docs/tasks.md). It asks in ordinary English, one or two things a message: what they would like, the
order number (or the email or phone to look the order up with), which item, how many when they bought several, the
reason and what happened, where the refund goes, and whether to go ahead before any write (forms or not, so the
customer's yes, or change of mind, is in the conversation). A number or email that finds nothing is told to the
customer so they can correct it; an item on several orders is picked by the delivery day they name; an item never
named on an order of several lines is not guessed. It reads the customer's answers with a few patterns, as a simple
rule-based bot would, then tells the customer the ticket number, the refund, or why the policy refuses, and says
goodbye.

Deliberate mistakes (`--mistake`), so the harness can show each conversation rule catching one:
  no-ask          asks only for the order number (or the email or phone to find it) and guesses the rest from the
                  lookups and the opening: the first line that fits, one unit, a return for "other"
  no-tell         never tells the customer a ticket number
  ignore-refusal  when the server refuses, tells the customer their refund is on its way instead of why not
"""

import json
import re
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripted_agent import Mcp, Reply

FORMAT = "aftersales-conversation-brief/1"
REFUNDS = ("refund_only", "return_and_refund")
ORDER = re.compile(r"\bO-\d{4}-\d{3,}\b")
TICKET = re.compile(r"\bT-\d{4}-\d{3,}\b")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE = re.compile(r"\+?\d[\d ()-]{7,}\d")
CUSTOMER = re.compile(r"\bC-\d{4,}\b")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# What the customer's words say about the help they want, most specific first.
KINDS = (
    ("cancel", "cancel_ticket"),
    ("getting on", "check_ticket"),
    ("how my ticket", "check_ticket"),
    ("without sending", "refund_only"),
    ("keep it", "refund_only"),
    ("exchange", "exchange"),
    ("swap", "exchange"),
    ("replace", "exchange"),
    ("repair", "repair"),
    ("send it back", "return_and_refund"),
    ("return", "return_and_refund"),
    ("refund", "return_and_refund"),
)
REASONS = (
    ("damaged", "damaged"),
    ("broken", "damaged"),
    ("faulty", "defective"),
    ("defective", "defective"),
    ("wrong item", "wrong_item"),
    ("as described", "not_as_described"),
    ("missing", "missing_parts"),
    ("too late", "late_delivery"),
    ("need it any more", "no_longer_needed"),
    ("don't need", "no_longer_needed"),
    ("changed my mind", "no_longer_needed"),
)
METHODS = (
    ("store credit", "store_credit"),
    ("original payment", "original_payment"),
    ("my card", "original_payment"),
    ("bank account", "bank_transfer"),
)
WHERE = {
    "store_credit": " as store credit",
    "original_payment": " to your original payment method",
    "bank_transfer": " by bank transfer",  # to the account given on the shop's own page, never in the chat
}
# A next_step sentence meant for the agent ("Tell the customer ...", "Do not call again; use after_sales_...").
AGENT_ADVICE = re.compile(
    r"^(Tell the customer|Do not|Nothing more to do|This request was already handled)|after_sales_|idempotency",
    re.IGNORECASE,
)
METHOD_QUESTION = "Would you like the refund to your original payment method or as store credit?"
PROMISE = "Good news: your refund is on its way, and you will have your money back within a few days."


class Ended(Exception):
    """The customer has ended the conversation: nothing more can be said."""


class Channel:
    """The trial's customer channel: one POST per agent message, the customer's reply back."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token, self.ended = url, token, False

    def say(self, message: str) -> str:
        """Post one message to the customer; their reply (Ended once they have ended the conversation)."""
        if self.ended:
            raise Ended
        request = urllib.request.Request(
            self.url,
            data=json.dumps({"message": message}).encode(),
            method="POST",
            headers={"authorization": f"Bearer {self.token}", "content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = json.loads(response.read().decode())
        except urllib.error.HTTPError as error:
            if error.code == 409:  # conversation_ended
                self.ended = True
                raise Ended from error
            raise
        self.ended = bool(answer["ended"])
        return str(answer["reply"])


def first(pattern: re.Pattern[str], text: str) -> str | None:
    """The first match of `pattern` in `text`, if any."""
    found = pattern.search(text)
    return found.group(0) if found else None


def keyword(table: tuple[tuple[str, str], ...], text: str) -> str | None:
    """The value of the first keyword of `table` in `text` (case-blind)."""
    lowered = text.lower().replace("\u2019", "'")
    return next((value for word, value in table if word in lowered), None)


def sentences(text: str) -> list[str]:
    """The sentences of a text."""
    return [part for part in re.split(r"(?<=[.!?])\s+", text.strip()) if part]


def refusal(text: str) -> str:
    """A server refusal as the customer should hear it: what was wrong and the rule, not the advice to the agent."""
    return " ".join(sentences(text)[:2])


def next_step(data: dict[str, Any]) -> str:
    """A result's next step as the customer should hear it: what happens next, not the advice to the agent."""
    said = [
        sentence
        for sentence in sentences(str(data.get("next_step", "")))
        if not AGENT_ADVICE.search(sentence) and not TICKET.fullmatch(sentence.rstrip("."))
    ]
    return " ".join(said)


def delivery_day(text: str) -> str:
    """The day an answer names ("It arrived on 25 November 2026.") as YYYY-MM-DD, or "" when it names none."""
    found = re.search(r"\b(\d{1,2}) ([A-Z][a-z]+) (\d{4})\b", text)
    if found is None or found.group(2) not in MONTHS:
        return ""
    return f"{found.group(3)}-{MONTHS.index(found.group(2)) + 1:02d}-{int(found.group(1)):02d}"


def words(text: str) -> set[str]:
    """The words of a name, for matching what the customer calls an item against the order's lines."""
    return {word for word in re.findall(r"[a-z0-9]+", text.lower()) if len(word) > 1}


class ConversationAgent:
    """Serves one customer who opened with one message, asking them for the rest."""

    def __init__(self, client: "Mcp", channel: Channel, brief: dict[str, Any], mistake: str | None) -> None:
        self.client, self.channel, self.brief, self.mistake = client, channel, brief, mistake
        self.opening = str(brief["opening"])
        self.key = f"agent-{brief['task_id']}"[:60]

    # -- talking ------------------------------------------------------------------------------------------------
    def ask(self, question: str) -> str:
        """Ask the customer something; their reply ("" once they have ended the conversation)."""
        if self.mistake == "no-tell":  # not even a ticket number a server's sentence holds
            question = TICKET.sub("your ticket", question)
        try:
            return self.channel.say(question)
        except Ended:
            return ""

    def finish(self, message: str) -> None:
        """Tell the customer the outcome, then close politely if they have not ended the conversation."""
        for line in (message, "Is there anything else I can help you with?", "Thank you for contacting us. Goodbye!"):
            if self.channel.ended:
                return
            self.ask(line)

    def ticket(self, ticket_id: str) -> str:
        """How to name a ticket to the customer (never, with --mistake no-tell)."""
        return "your ticket" if self.mistake == "no-tell" else f"ticket {ticket_id}"

    def refused(self, text: str, what: str) -> str:
        """The sentence telling the customer the server refused (or, with --mistake ignore-refusal, a promise)."""
        if self.mistake == "ignore-refusal":
            return PROMISE
        return f"I'm sorry, but I can't {what}: {refusal(text)}"

    # -- the conversation ---------------------------------------------------------------------------------------
    def serve(self) -> str:
        """Find out what the customer wants, do it, tell them; return the last thing said."""
        need = self.need()
        if need in ("cancel_ticket", "check_ticket"):
            return self.about_ticket(need)
        return self.open_ticket(need)

    def need(self) -> str:
        """What the customer would like: asked (guessed from the opening with --mistake no-ask)."""
        if self.mistake == "no-ask":
            if TICKET.search(self.opening):
                return "cancel_ticket" if "cancel" in self.opening.lower() else "check_ticket"
            return keyword(KINDS, self.opening) or "return_and_refund"
        answer = self.ask("Thanks for getting in touch. How can I help: a refund, an exchange or a repair?")
        return keyword(KINDS, answer) or "return_and_refund"

    def about_ticket(self, need: str) -> str:
        """Check or cancel a ticket: its number from the opening, asked, or found through the customer's orders."""
        ticket_id = first(TICKET, self.opening)
        if ticket_id is None and self.mistake != "no-ask":
            ticket_id = first(TICKET, self.ask("What's the ticket number?"))
        if ticket_id is None:
            ticket_id = self.find_ticket()
        if ticket_id is None:
            message = "I'm sorry, I could not find that ticket, so I cannot do anything with it yet."
            self.finish(message)
            return message
        if need == "check_ticket":
            return self.check(ticket_id)
        return self.cancel(ticket_id)

    def check(self, ticket_id: str) -> str:
        """Tell the customer where their ticket stands."""
        reply = self.client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
        if reply.error or reply.data is None:
            message = f"I'm sorry, I cannot find {ticket_id}: {refusal(reply.text)}"
        else:
            data = reply.data
            status = str(data["status"]).replace("_", " ")
            stage = str(data.get("stage") or data["status"]).replace("_", " ")
            message = f"{self.ticket(data['ticket_id']).capitalize()} is at the {stage} stage (status {status})."
            if data.get("refund"):
                message += f" The refund is {data['refund']['display']}."
            message += f" {next_step(data)}"
        self.finish(message)
        return message

    def cancel(self, ticket_id: str) -> str:
        """Cancel a ticket, asking why (and, without forms, whether to go ahead) first."""
        reason = "The customer asked to cancel it."
        if self.mistake != "no-ask":
            reason = self.ask("What happened, and why would you like to cancel?")
        # Asked in the chat before every write, forms or not (with where the ticket stands): the yes is on the timeline.
        if self.mistake != "no-ask" and not self.yes(f"{self.standing(ticket_id)} Shall I go ahead and cancel it?"):
            message = f"All right, I have left {self.ticket(ticket_id)} as it is."
            self.finish(message)
            return message
        reason = reason or "Cancelled at the customer's request."
        arguments = {"ticket_id": ticket_id, "reason": reason, "idempotency_key": self.key}
        reply = self.retrying("after_sales_cancel_ticket", arguments)
        if reply.error or reply.data is None:
            message = self.refused(reply.text, f"cancel {self.ticket(ticket_id)}")
        elif reply.data.get("outcome") not in ("cancelled", "replayed"):  # declined or closed the confirmation
            message = f"All right, I have left {self.ticket(ticket_id)} as it is."
        else:
            message = f"Done: {self.ticket(ticket_id)} is now cancelled. {next_step(reply.data)}"
        self.finish(message)
        return message

    def standing(self, ticket_id: str) -> str:
        """Where a ticket stands, in a sentence for the customer (looked up; its number when the lookup fails)."""
        reply = self.client.call_tool("after_sales_query_ticket", {"ticket_id": ticket_id})
        if reply.error or reply.data is None:
            return f"That is {self.ticket(ticket_id)}."
        stage = str(reply.data.get("stage") or reply.data["status"]).replace("_", " ")
        return f"{self.ticket(ticket_id).capitalize()} is at the {stage} stage."

    def yes(self, question: str) -> bool:
        """Ask a yes-or-no question; whether the customer said yes."""
        return self.ask(question).lower().startswith("yes")

    def retrying(self, tool: str, arguments: dict[str, Any]) -> "Reply":
        """Call a tool, calling again unchanged (same key) when its answer was lost."""
        reply = self.client.call_tool(tool, arguments)
        for _ in range(3):
            if not reply.lost:
                break
            reply = self.client.call_tool(tool, arguments)
        return reply

    # -- finding the order ---------------------------------------------------------------------------------------
    def find_ticket(self) -> str | None:
        """The newest ticket on the order line the customer means."""
        where = self.find_line()
        if where is None:
            return None
        order_id, line_no = where[0], where[1]["line_no"]
        listed = self.client.call_tool("after_sales_list_tickets", {"order_id": order_id})
        tickets = [t for t in (listed.data or {}).get("tickets", []) if t["item"].get("line_no", line_no) == line_no]
        return str(tickets[0]["ticket_id"]) if tickets else None

    def find_line(self) -> tuple[str, dict[str, Any]] | None:
        """The order and line the customer means: the order number, or their orders found by email or phone."""
        item = ""
        order_id = first(ORDER, self.opening)
        if order_id is None:
            if self.mistake == "no-ask":  # only what no lookup can give
                answer = self.ask("What's your order number?")
            else:
                answer = self.ask("What's your order number, and which item on the order is it about?")
            order_id, item = first(ORDER, answer), answer
        order: dict[str, Any] = {}
        for _ in range(2):  # a number the server does not know is told, so the customer can check it
            if order_id is None:
                order_id = self.look_up(item)
            if order_id is None:
                return None
            found = self.client.call_tool("after_sales_get_order", {"order_id": order_id})
            if found.data is not None and not found.error:
                order = found.data
                break
            order_id = first(ORDER, self.ask(f"I can't find order {order_id}. Could you check the number?"))
        lines = order.get("lines", [])
        line = self.pick_line(lines, item)
        if line is None and self.mistake != "no-ask":
            line = self.pick_line(lines, self.ask("Which item on the order is it about?"))
        if line is None and self.mistake == "no-ask" and lines:
            line = lines[0]  # the guess a careless agent makes
        return (order_id, line) if line else None

    def look_up(self, item: str) -> str | None:
        """The customer's order found by the email or phone on their account (asked one at a time)."""
        for question, pattern, field in (
            ("No problem. What's the email address on your account?", EMAIL, "email"),
            ("What's the phone number on your account, then?", PHONE, "phone"),
            ("What's your customer ID?", CUSTOMER, "customer_id"),
        ):
            value = first(pattern, self.ask(question))
            for _ in range(2):  # one that finds nothing is told, so the customer can check it
                if value is None:
                    break
                found = self.client.call_tool("after_sales_find_orders", {field: value})
                orders = (found.data or {}).get("orders", [])
                if orders:
                    return self.pick_order(orders, item)
                value = first(pattern, self.ask(f"I can't find any orders for {value}. Could you check it?"))
        return None

    def pick_order(self, orders: list[dict[str, Any]], item: str) -> str:
        """The order holding the item the customer named; asked when it arrived if several do (newest first)."""
        named = words(self.item_name(item) or "")
        fitting = [order for order in orders if named & words(order.get("items", ""))] or orders
        if len(fitting) > 1 and named and self.mistake != "no-ask":
            question = f"I can see that item on {len(fitting)} of your orders. When did the one you mean arrive?"
            answer = self.ask(question)
            day = delivery_day(answer)
            fitting = [order for order in fitting if str(order.get("delivered_at", "")).startswith(day)] or fitting
        return str(fitting[0]["order_id"])

    def item_name(self, answer: str) -> str | None:
        """The item the customer named in an answer ("It's the Sony WH-1000XM5."), if they did."""
        found = re.search(r"It's the (.+?)\.(?:\s|$)", answer)
        if found is None or "item on the order" in found.group(1):
            return None
        return found.group(1)

    def pick_line(self, lines: list[dict[str, Any]], answer: str) -> dict[str, Any] | None:
        """The line the customer means: by its place, by the words of its name, or the only one; None if unsaid."""
        if not lines:
            return None
        place = re.search(r"the (\w+) item on the order", answer)
        if place and place.group(1) in ORDINALS:
            number = ORDINALS.index(place.group(1)) + 1
            return next((line for line in lines if line["line_no"] == number), None)
        if len(lines) == 1:
            return lines[0]
        named = words(self.item_name(answer) or self.opening)
        scored = sorted(lines, key=lambda line: -len(named & words(line["name"])))
        return scored[0] if named & words(scored[0]["name"]) else None

    # -- opening a ticket ----------------------------------------------------------------------------------------
    def open_ticket(self, kind: str) -> str:
        """Find the line, ask what is needed, estimate a refund, create the ticket, tell the customer."""
        where = self.find_line()
        if where is None:
            message = "I'm sorry, I could not find that order, so I have not opened anything."
            self.finish(message)
            return message
        order_id, line = where
        quantity = 1
        if line.get("units_available", line["quantity"]) > 1 and self.mistake != "no-ask":
            quantity = self.how_many(self.ask("How many of them is it about?"))
        reason_code, description = "other", self.opening
        if self.mistake != "no-ask":
            answer = self.ask("What's the reason for your request, and what happened?")
            said = sentences(answer) or [""]
            reason_code = keyword(REASONS, said[0]) or "other"
            description = " ".join(said[1:]) or answer or self.opening  # what happened, without the reason
        arguments: dict[str, Any] = {
            "order_id": order_id,
            "line_no": line["line_no"],
            "kind": kind,
            "reason_code": reason_code,
            "quantity": quantity,
            "description": description[:500],
            "idempotency_key": self.key,
        }
        method = keyword(METHODS, self.opening)
        if kind in REFUNDS and method is None and self.mistake != "no-ask":
            method = keyword(METHODS, self.ask(METHOD_QUESTION))
        if method:
            arguments["refund_method"] = method
        if self.channel.ended:  # they stopped answering: nothing they did not tell us is written
            return "The customer left before telling me what I needed, so I have not opened anything."
        if kind in REFUNDS:
            return self.refund(arguments, line)
        if self.mistake != "no-ask" and not self.yes("Shall I go ahead and open that for you?"):
            message = "All right, I have not opened anything."
            self.finish(message)
            return message
        return self.tell(self.create(arguments))

    def how_many(self, answer: str) -> int:
        """The number of units in an answer ("Two of them.", "Just one.", "3")."""
        lowered = answer.lower()
        digits = re.search(r"\b\d+\b", lowered)
        if digits:
            return int(digits.group(0))
        return next((NUMBERS.index(w) + 1 for w in re.findall(r"[a-z]+", lowered) if w in NUMBERS), 1)

    def refund(self, arguments: dict[str, Any], line: dict[str, Any]) -> str:
        """Estimate, then create; a warranty repair when a refund is refused, the line allows one and it will do."""
        estimate = self.estimate(arguments)
        if estimate.error or estimate.data is None:
            option = next((option for option in line.get("options", []) if option["kind"] == "repair"), {})
            if option.get("possible") and self.mistake != "no-ask":
                told = self.refused(estimate.text, "refund it")
                if self.yes(f"{told} Would a warranty repair be OK instead?"):
                    repair = {**arguments, "kind": "repair", "idempotency_key": f"{self.key}-repair"}
                    repair.pop("refund_method", None)
                    return self.tell(self.create(repair))
                message = "All right, I have not opened anything."
            else:
                message = self.refused(estimate.text, "open that for you")
                closed = option.get("why_not") and "window" in estimate.text.lower()  # the usual way out is shut too
                if closed and self.mistake != "ignore-refusal":
                    message += f" A repair is not possible either: {refusal(option['why_not'])}"
            self.finish(message)
            return message
        arguments["quote_id"] = estimate.data["quote_id"]
        total = estimate.data["total_display"]
        # The agent confirms in the chat before calling, forms or not, so the customer's yes is on the timeline.
        if self.mistake != "no-ask" and not self.agrees(arguments, total):
            message = f"All right, I have not opened anything. The refund would have been {total}."
            self.finish(message)
            return message
        return self.tell(self.create(arguments), total)

    def agrees(self, arguments: dict[str, Any], total: str) -> bool:
        """Ask the customer to confirm the refund; a change of refund method is taken, then confirmed again."""
        for _ in range(3):
            where = WHERE.get(str(arguments.get("refund_method")), "")
            answer = self.ask(f"You would get {total} back{where}. Shall I go ahead and open the return?")
            changed = keyword(METHODS, answer)
            if changed is None or changed == arguments.get("refund_method"):
                return answer.lower().startswith("yes")
            arguments["refund_method"] = changed
        return False

    def estimate(self, arguments: dict[str, Any]) -> "Reply":
        """Estimate the refund of the line."""
        keys = ("order_id", "line_no", "reason_code", "quantity")
        return self.client.call_tool("after_sales_estimate_refund", {key: arguments[key] for key in keys})

    def create(self, arguments: dict[str, Any]) -> "Reply | None":
        """Create with one key: a lost answer retried unchanged, an expired quote re-estimated, a method asked.

        None when the customer, asked where the refund goes, would not say (so nothing is opened)."""
        reply = self.retrying("after_sales_create_ticket", arguments)
        for _ in range(3):
            if reply.error and "expired" in reply.text and "quote_id" in arguments:
                fresh = self.estimate(arguments)
                if fresh.error or fresh.data is None:
                    return fresh
                arguments["quote_id"] = fresh.data["quote_id"]
                reply = self.retrying("after_sales_create_ticket", arguments)
            elif reply.kind == "input_needed" and "refund_method" not in arguments:
                # The server could not ask where the refund goes: ask the customer, then call again with the same key.
                method = keyword(METHODS, self.ask(METHOD_QUESTION))
                if method is None:
                    return None
                arguments["refund_method"] = method
                reply = self.retrying("after_sales_create_ticket", arguments)
            else:
                break
        return reply

    def tell(self, reply: "Reply | None", total: str | None = None) -> str:
        """Tell the customer what came of a create."""
        data = (reply.data if reply else None) or {}
        ticket = data.get("ticket") or {}
        if reply is not None and (reply.error or not data):
            message = self.refused(reply.text, "open that for you")
        elif data.get("outcome") == "not_created" or not ticket:
            message = "All right, I have not opened anything."
        else:
            message = f"Done: I have opened {self.ticket(ticket['ticket_id'])}."
            refund = ticket.get("refund") or {}
            amount = refund.get("display") or total
            if amount:
                message += f" You will get {amount} back{WHERE.get(str(refund.get('method')), '')}."
            message += f" {next_step(data)}"
        self.finish(message)
        return message
