"""Call rules checked on a trace: pure functions over trace entries (dicts in the aftersales-trace/1 shape).

The rules judge tool calls only: a conversation trial's turns, in the same trace, are left out here.

A client that cannot show forms is never asked anything mid-call: where a form would have asked, the call fails with
error kind `input_needed` (not a rule refusal), and the agent asks the customer and calls again with the answer and
the same idempotency key. The rules treat that retry as a form's answering round: the same call, not a new one.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from aftersales.domain.calls import ARGUMENT_ERRORS, CREATE_TICKET
from aftersales.domain.errors import InputNeeded, RuleViolation
from aftersales.testing.patterns import endings, label, selects
from aftersales.testing.tasks import Before, CallPattern, CallRules, FollowedBy, NeverAfter, RequiredCall
from aftersales.worlds.trace import is_turn, tool_calls

Entry = Mapping[str, Any]
INVALID_PARAMS = "jsonrpc_-32602"


def calls(trace: Sequence[Entry]) -> list[Entry]:
    """The calls an agent made: a retry answering a round of questions is the same call, not a new one.

    A round is an input_required result (its retry `resumes` it), or, for a client without forms, an `input_needed`
    error: the next call of that tool with the same idempotency key and other arguments (the answer added) answers
    it, and stands for the call, as it carries what was asked.
    """
    made: list[Entry] = []
    unanswered: dict[tuple[str, str], Entry] = {}  # (tool, key) -> the call an input_needed error answered
    for entry in tool_calls(trace):
        if entry.get("resumes") is not None:
            continue
        arguments = entry.get("arguments") or {}
        asked = (str(entry["tool"]), str(arguments.get("idempotency_key")))
        earlier = unanswered.pop(asked, None)
        if earlier is not None and earlier.get("arguments") != entry.get("arguments"):
            made.remove(earlier)
        if entry.get("error_kind") == InputNeeded.kind:
            unanswered[asked] = entry
        made.append(entry)
    return made


def rule_problems(rules: CallRules, trace: Sequence[Entry]) -> list[str]:
    """Every rule the calls broke; empty when all hold (a conversation's turns are not calls)."""
    # A conversation's agent can confirm in the chat as a client without forms does (only_with_forms excuses both).
    conversing = any(is_turn(entry) for entry in trace)
    trace = tool_calls(trace)
    made = calls(trace)
    forms = any(entry.get("client_forms") for entry in trace) and not conversing
    ends = endings(trace)
    problems = [_missing(pattern, made, ends, forms) for pattern in rules.must_call]
    problems += [_forbidden(pattern, made, ends) for pattern in rules.must_not_call]
    problems += [problem for order in rules.order for problem in _order_problems(order, made, ends)]
    if rules.max_calls is not None and len(made) > rules.max_calls:
        problems.append(f"made {len(made)} calls, at most {rules.max_calls} allowed")
    for tool, limit in rules.max_calls_per_tool.items():
        if _count(made, tool) > limit:
            problems.append(f"called {tool} {_count(made, tool)} times, at most {limit} allowed")
    if rules.no_invalid_arguments:
        problems += [
            f"call #{entry['seq']} ({entry['tool']}) was refused for its arguments: {_first_line(entry)}"
            for entry in trace
            if entry.get("error_kind") in (*ARGUMENT_ERRORS, INVALID_PARAMS)
        ]
    creates = [entry for entry in made if entry["tool"] == CREATE_TICKET]
    if rules.no_create_after_refusal:
        problems += _creates_after_refusal(creates)
    if rules.one_key_per_ticket:
        problems += _keys_per_ticket(creates)
    return [problem for problem in problems if problem]


def _missing(required: str | RequiredCall, made: list[Entry], ends: Mapping[int, Entry], forms: bool) -> str:
    """Why `required` was not called as often as it must be (`forms`: the client could show forms), or ""."""
    wanted = RequiredCall(tool=required) if isinstance(required, str) else required
    if wanted.only_with_forms and not forms:
        return ""
    count = sum(selects(wanted, index, made, ends) for index in range(len(made)))
    if count == 0 and wanted.min_calls > 0:
        return f"never called {label(wanted)}"
    if count < wanted.min_calls:
        return f"must_call: called {label(wanted)} {_times(count)}, at least {_times(wanted.min_calls)} wanted"
    if wanted.max_calls is not None and count > wanted.max_calls:
        return f"must_call: called {label(wanted)} {_times(count)}, at most {_times(wanted.max_calls)} allowed"
    return ""


def _forbidden(pattern: str | CallPattern, made: list[Entry], ends: Mapping[int, Entry]) -> str:
    """The calls that fit a forbidden pattern, or ""."""
    seqs = [f"#{made[index]['seq']}" for index in range(len(made)) if selects(pattern, index, made, ends)]
    if not seqs:
        return ""
    if isinstance(pattern, str):
        return f"called {pattern}, which the task forbids"
    return f"must_not_call: call {', '.join(seqs)} is {label(pattern)}, which the task forbids"


def _order_problems(order: Before | NeverAfter | FollowedBy, made: list[Entry], ends: Mapping[int, Entry]) -> list[str]:
    """Each call that breaks one order rule, one line each."""
    fits = {name: [index for index in range(len(made)) if selects(side, index, made, ends)] for name, side in order}
    problems = []
    if isinstance(order, Before):
        firsts = fits["first"]
        for index in fits["then"]:
            if not any(earlier < index for earlier in firsts):
                problems.append(
                    f"order: call #{made[index]['seq']} ({label(order.then)}) has no {label(order.first)} before it"
                )
    elif isinstance(order, NeverAfter):
        if fits["after"]:
            start = fits["after"][0]
            problems += [
                f"order: call #{made[index]['seq']} ({label(order.never)}) comes after call #{made[start]['seq']} "
                f"({label(order.after)})"
                for index in fits["never"]
                if index > start
            ]
    else:
        for index in fits["after"]:
            if not any(later > index for later in fits["followed_by"]):
                shown = f"({label(order.after)}) is not followed by {label(order.followed_by)}"
                problems.append(f"order: call #{made[index]['seq']} {shown}")
    return problems


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _count(made: list[Entry], tool: str) -> int:
    return sum(1 for entry in made if entry["tool"] == tool)


def _line(entry: Entry) -> tuple[Any, Any]:
    arguments = entry.get("arguments") or {}
    return arguments.get("order_id"), arguments.get("line_no")


def _creates_after_refusal(creates: list[Entry]) -> list[str]:
    """A create refused by a rule is not retried for that line and kind; a declined one not for that line."""
    problems, refused, declined = [], set(), set()
    for entry in creates:
        line, kind = _line(entry), (entry.get("arguments") or {}).get("kind")
        if line in declined or (line, kind) in refused:
            why = "the customer declined" if line in declined else "a rule refused it"
            problems.append(f"call #{entry['seq']} opens a ticket for {line[0]} line {line[1]} again after {why}")
        # Only a business rule refuses; a question the server could not ask (input_needed) is answered and retried.
        if entry["outcome"] == "tool_error" and entry.get("error_kind") == RuleViolation.kind:
            refused.add((line, kind))
        if (entry.get("result") or {}).get("outcome") == "not_created":
            declined.add(line)
    return problems


def _keys_per_ticket(creates: list[Entry]) -> list[str]:
    """Retries of one intended ticket (same line and kind) reuse one idempotency key."""
    keys: dict[tuple[Any, ...], set[str]] = {}
    for entry in creates:
        arguments = entry.get("arguments") or {}
        keys.setdefault((*_line(entry), arguments.get("kind")), set()).add(str(arguments.get("idempotency_key")))
    return [
        f"{len(used)} different idempotency keys for one ticket ({order} line {line}, {kind}): retries must reuse one"
        for (order, line, kind), used in keys.items()
        if len(used) > 1
    ]


def _first_line(entry: Entry) -> str:
    message = str((entry.get("error") or {}).get("message") or "")
    return message.splitlines()[0][:160] if message else "no message"
