"""Conversation rules checked on a trial's timeline: the world's trace with the customer's and the agent's turns.

A turn entry has `"type": "turn"` (a tool call has no type, or `"call"`), a `speaker` (agent or customer), its
`text` and the fact names a customer turn `revealed`; turns and calls share one `seq` numbering. A brief-mode trial
has no turns and is not judged on these rules. docs/tasks.md ("Conversation rules") says what each rule checks.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from aftersales.domain.calls import ESTIMATE_REFUND, QUERY_TICKET, WRITES
from aftersales.domain.errors import RuleViolation
from aftersales.domain.money import format_money
from aftersales.testing.spoken import SENTENCE_END, reason, says_amount, says_text, says_value, tells_refusal
from aftersales.testing.tasks import Task
from aftersales.worlds.trace import is_turn, tool_calls

Entry = Mapping[str, Any]


def conversed(trace: Sequence[Entry]) -> bool:
    """Whether the trial ran as a conversation (its trace has turns)."""
    return any(is_turn(entry) for entry in trace)


def conversation_problems(task: Task, trace: Sequence[Entry]) -> list[str]:
    """Every conversation rule the trial broke; empty when all hold, the task has none, or nobody conversed."""
    if task.conversation is None or not conversed(trace):
        return []
    timeline = sorted(trace, key=lambda entry: int(entry["seq"]))
    problems = [_unasked(fact, timeline) for fact in task.conversation.must_ask]
    for fact in task.conversation.communicate:
        problems += _untold(fact, task, timeline)
    return [problem for problem in problems if problem]


def _unasked(fact: str, timeline: list[Entry]) -> str:
    """Why `fact` was not obtained from the customer before the first write, or "" if it was."""
    write = next((entry for entry in tool_calls(timeline) if entry.get("tool") in WRITES), None)
    given = [
        turn
        for turn in timeline
        if is_turn(turn) and turn.get("speaker") == "customer" and fact in (turn.get("revealed") or ())
    ]
    if write is None:
        return "" if given else f"must_ask: the customer never gave {fact}"
    if any(turn["seq"] < write["seq"] for turn in given):
        return ""
    return f"must_ask: call #{write['seq']} ({write['tool']}) wrote before the customer gave {fact}"


def _untold(fact: str, task: Task, timeline: list[Entry]) -> list[str]:
    """Why the agent did not tell `fact` (one line per thing left untold); empty when it did."""
    if fact == "ticket_id":
        return _produced_and_told(timeline, "the ticket number", _ticket_ids, says_text)
    if fact == "refund_amount":
        shown = [amount for entry in tool_calls(timeline) for amount in _amounts(entry)]
        latest = shown[-1:]  # what the customer gets back is the latest figure the calls showed

        def refund(entry: Entry) -> list[tuple[int, str]]:
            return [amount for amount in _amounts(entry) if amount in latest]

        return _produced_and_told(
            timeline, "the refund amount", refund, lambda text, amount: says_amount(text, *amount)
        )
    if fact == "refusal":
        return _refusals_told(timeline)
    if fact == "stage":
        return _produced_and_told(timeline, "the ticket's stage", _stages, says_text)
    value = task.customer.knows[fact]  # a fact the customer gave (Task checks it is text or a number)
    assert isinstance(value, str | int | float)
    if any(_agent_says(turn) and says_value(_text(turn), value) for turn in timeline):
        return []
    return [f"communicate: no agent turn told {fact} ({value})"]


def _produced_and_told(
    timeline: list[Entry], what: str, found: Callable[[Entry], list[Any]], says: Callable[[str, Any], bool]
) -> list[str]:
    """Each value `found` in a call's result is told by an agent turn after the first call that showed it."""
    first: dict[Any, Entry] = {}
    for entry in tool_calls(timeline):
        for value in found(entry):
            first.setdefault(value, entry)
    if not first:
        return [f"communicate: no call produced {what} to tell"]
    return [
        f"communicate: no agent turn after call #{entry['seq']} ({entry['tool']}) told {what}, {_shown(value)}"
        for value, entry in first.items()
        if not any(_agent_says(turn, after=entry) and says(_text(turn), value) for turn in timeline)
    ]


def _refusals_told(timeline: list[Entry]) -> list[str]:
    """Each rule refusal that stands (no later call of that tool for that thing went through) is told."""
    calls = tool_calls(timeline)
    standing: dict[str, Entry] = {}
    for index, entry in enumerate(calls):
        if entry.get("error_kind") != RuleViolation.kind:
            continue
        overcome = any(
            later.get("tool") == entry.get("tool") and later.get("outcome") == "ok" and _target(later) == _target(entry)
            for later in calls[index + 1 :]
        )
        if not overcome:
            standing.setdefault(reason(str((entry.get("error") or {}).get("message") or "")), entry)
    if not standing:
        return ["communicate: no rule refusal stood (none came, or the agent got past it), so none was told"]
    return [
        f"communicate: no agent turn after call #{entry['seq']} ({entry['tool']}) told why it was refused: "
        f"{_first_sentence(why)}"
        for why, entry in standing.items()
        if not any(_agent_says(turn, after=entry) and tells_refusal(_text(turn), why) for turn in timeline)
    ]


def _agent_says(turn: Entry, after: Entry | None = None) -> bool:
    """Whether an entry is an agent turn (after the given call, when one is given)."""
    if not is_turn(turn) or turn.get("speaker") != "agent":
        return False
    return after is None or int(turn["seq"]) > int(after["seq"])


def _ticket_ids(entry: Entry) -> list[str]:
    """The ticket a call's result shows: one created, cancelled or queried."""
    result = entry.get("result")
    if not isinstance(result, Mapping):
        return []
    if entry.get("tool") == QUERY_TICKET:
        return [str(result["ticket_id"])] if result.get("ticket_id") else []
    ticket = result.get("ticket") if entry.get("tool") in WRITES else None
    return [str(ticket["ticket_id"])] if isinstance(ticket, Mapping) and ticket.get("ticket_id") else []


def _stages(entry: Entry) -> list[str]:
    """The stage of a ticket a query showed ("awaiting_return" is told as "awaiting return")."""
    result = entry.get("result")
    if entry.get("tool") != QUERY_TICKET or not isinstance(result, Mapping) or not result.get("stage"):
        return []
    return [str(result["stage"])]


def _amounts(entry: Entry) -> Iterator[tuple[int, str]]:
    """The refund amounts (minor units, currency) a call's result shows: an estimate's total, a ticket's refund."""
    result = entry.get("result")
    if not isinstance(result, Mapping):
        return
    if entry.get("tool") == ESTIMATE_REFUND and isinstance(result.get("total"), int):
        yield result["total"], str(result.get("currency"))
        return
    ticket = result if entry.get("tool") == QUERY_TICKET else result.get("ticket")
    refund = ticket.get("refund") if isinstance(ticket, Mapping) else None
    if isinstance(refund, Mapping) and isinstance(refund.get("amount"), int):
        yield refund["amount"], str(refund.get("currency"))


def _target(entry: Entry) -> tuple[Any, ...]:
    """What a call is about: its order line, or its ticket."""
    arguments = entry.get("arguments") or {}
    return arguments.get("order_id"), arguments.get("line_no"), arguments.get("ticket_id")


def _text(turn: Entry) -> str:
    return str(turn.get("text") or "")


def _shown(value: Any) -> str:
    """A value as the problem names it: an amount formatted for people."""
    return format_money(*value) if isinstance(value, tuple) else str(value)


def _first_sentence(text: str) -> str:
    sentence = SENTENCE_END.split(text, maxsplit=1)[0]
    return sentence if len(sentence) <= 160 else sentence[:159] + "…"
