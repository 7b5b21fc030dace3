"""Call patterns on a trace: which of the agent's calls a pattern selects, and a pattern as a person reads it (pure).

A call stands for its whole exchange: what it came to is the outcome of its last round (the retry that answered an
input_required round, which `resumes` it), so a create asked a form and then declined is `declined`, not
`input_required`.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from aftersales.domain.calls import FAILED, WRITES
from aftersales.testing.matching import MISSING, matches, show
from aftersales.testing.tasks import WRITE, CallPattern, FromResult, Outcome, Refused, Selector

Entry = Mapping[str, Any]
DECLINED = ("not_created", "not_cancelled")  # a create's or a cancel's outcome when the person said no to a form


def pattern(selector: Selector) -> CallPattern:
    """A tool's name (or "write") as the pattern it stands for."""
    return CallPattern(tool=selector) if isinstance(selector, str) else selector


def endings(trace: Sequence[Entry]) -> dict[int, Entry]:
    """Each call's last round by the call's seq: the entry that resumed it (and so on), else the call itself."""
    resumed = {entry["resumes"]: entry for entry in trace if entry.get("resumes") is not None}
    last: dict[int, Entry] = {}
    for entry in trace:
        end = entry
        while end["seq"] in resumed:  # a retry always comes later, so this ends
            end = resumed[end["seq"]]
        last[entry["seq"]] = end
    return last


def came_to(entry: Entry, ends: Mapping[int, Entry]) -> Entry:
    """The round a call ended on."""
    return ends.get(entry["seq"], entry)


def selects(selector: Selector, index: int, made: Sequence[Entry], ends: Mapping[int, Entry]) -> bool:
    """Whether the call `made[index]` fits the pattern (a `from` matcher looks at the calls before it)."""
    wanted, call = pattern(selector), made[index]
    if not (call["tool"] == wanted.tool or (wanted.tool == WRITE and call["tool"] in WRITES)):
        return False
    end = came_to(call, ends)
    if wanted.result is not None and not _came_as(end, wanted.result):
        return False
    if wanted.error_kind is not None and (
        end.get("outcome") not in FAILED or end.get("error_kind") != wanted.error_kind
    ):
        return False
    arguments = call.get("arguments") or {}
    for name, matcher in wanted.arguments.items():
        value = arguments.get(name, MISSING)
        if isinstance(matcher, FromResult):
            if not any(_same(value, given) for given in _given(matcher, made[:index], ends)):
                return False
        elif not matches(matcher, value):
            return False
    return True


def _came_as(end: Entry, wanted: Outcome | Refused) -> bool:
    """Whether a call's last round came to what a pattern's `result` asks: an outcome, or a refusal by one rule."""
    if isinstance(wanted, Refused):
        return end.get("outcome") == "tool_error" and end.get("error_code") == wanted.error_code
    return _result(end) in _results(wanted)


def _result(end: Entry) -> str:
    """What a call came to, declined told apart from the other calls that went through."""
    outcome = str(end.get("outcome"))
    if outcome == "ok" and (end.get("result") or {}).get("outcome") in DECLINED:
        return "declined"
    return outcome


def _results(wanted: str) -> tuple[str, ...]:
    """The outcomes a pattern's `result` accepts: ok includes declined (the call went through)."""
    return ("ok", "declined") if wanted == "ok" else (wanted,)


def _given(matcher: FromResult, earlier: Sequence[Entry], ends: Mapping[int, Entry]) -> list[Any]:
    """The values the field had in the results of the earlier calls of the tool that went through."""
    values = []
    for call in earlier:
        end = came_to(call, ends)
        if call["tool"] != matcher.tool or end.get("outcome") != "ok":
            continue
        found: Any = end.get("result")
        for part in matcher.field.split("."):
            found = found.get(part, MISSING) if isinstance(found, Mapping) else MISSING
        if found is not MISSING:
            values.append(found)
    return values


def _same(value: Any, given: Any) -> bool:
    return value is not MISSING and type(value) is type(given) and value == given


def label(selector: Selector) -> str:
    """A pattern as a person reads it: `after_sales_create_ticket with kind='refund_only' (tool_error, rule)`."""
    wanted = pattern(selector)
    shown = ", ".join(f"{name}={_shown(matcher)}" for name, matcher in wanted.arguments.items())
    result = f"tool_error {wanted.result.error_code}" if isinstance(wanted.result, Refused) else wanted.result
    came = ", ".join(part for part in (result, wanted.error_kind) if part)
    name = "a write" if wanted.tool == WRITE else wanted.tool
    return name + (f" with {shown}" if shown else "") + (f" ({came})" if came else "")


def _shown(matcher: Any) -> str:
    if isinstance(matcher, FromResult):
        return f"the {matcher.field} of an earlier {matcher.tool}"
    return show(matcher)
