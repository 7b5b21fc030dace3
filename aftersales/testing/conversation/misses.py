"""Customer misses, read from a trial's timeline: where the simulated customer, not the agent, went wrong.

A miss makes a failed trial's verdict `customer_miss` (excused, pass^k is also given without them), so a simulator's
error never counts against the agent. Three kinds, whatever engine played the customer:

- unmapped: the engine could not map the agent's message to anything (the turn's `miss`).
- leaked: a customer reply states a fact of `knows` (a text value: an id, an email, a phone, a product) that the
  agent had not asked for, not said itself, and the customer had not given before: not in the opening, nor in a
  story or description it was asked for.
- ended early: the customer ended the conversation (need met, refused and told, nothing left) in reply to a message
  that asked it something, or to one saying the agent was still at work ("let me check", "one moment"). An ending
  in reply to anything else is the customer taking the agent at its word: if nothing was done, that is the agent's
  failure. The harness's own endings (turn_limit) and a task's scripted silence (stopped_answering) are not misses.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from aftersales.testing.conversation.reading import asked, statement_kind
from aftersales.testing.spoken import says_text
from aftersales.testing.tasks import Task
from aftersales.worlds.trace import is_turn

Entry = Mapping[str, Any]
EARLY = ("need_met", "refused_and_told", "nothing_left")  # endings the customer chose
GIVES_TEXT = ("story", "wants.description")  # asked for, these give their own words, facts in them included


def customer_misses(task: Task, trace: Sequence[Entry]) -> list[str]:
    """Each customer miss of the timeline, one line each naming the turn; empty when the customer kept its part."""
    timeline = sorted(trace, key=lambda entry: int(entry["seq"]))
    facts = {name: value for name, value in task.customer.knows.items() if isinstance(value, str) and value.strip()}
    heard: set[str] = set()  # facts the agent asked for or said, or the customer gave with leave
    allowed = task.customer.opening
    last_agent: Entry | None = None
    problems: list[str] = []
    for entry in timeline:
        if not is_turn(entry):
            continue
        text = str(entry.get("text") or "")
        if entry.get("speaker") == "agent":
            last_agent = entry
            wanted = asked(text)
            heard.update(wanted)
            heard.update(name for name, value in facts.items() if says_text(text, value))
            if set(wanted) & set(GIVES_TEXT):
                allowed += " " + " ".join(_own_words(task))
            continue
        if last_agent is None:  # the opening
            continue
        problems += _leaks(entry, text, facts, heard, allowed)
        heard.update(name for name, value in facts.items() if says_text(text, value))
        if entry.get("miss"):
            problems.append(f"turn #{entry['seq']}: the customer could not map the agent's message to anything")
        if entry.get("ended") and entry.get("reason") in EARLY:
            problems += _ended_early(entry, last_agent)
    return problems


def _leaks(entry: Entry, text: str, facts: dict[str, str], heard: set[str], allowed: str) -> list[str]:
    """The facts a customer turn states that nobody asked for."""
    return [
        f"turn #{entry['seq']}: the customer gave {name} ({value}) without being asked for it"
        for name, value in facts.items()
        if name not in heard and says_text(text, value) and not says_text(allowed, value)
    ]


def _ended_early(entry: Entry, agent: Entry) -> list[str]:
    """Why an ending the customer chose came too soon, if it did."""
    wanted = asked(str(agent.get("text") or ""))
    if wanted:
        return [
            f"turn #{entry['seq']}: the customer ended the conversation ({entry['reason']}) while the agent was "
            f"asking for {', '.join(wanted)}"
        ]
    if statement_kind(str(agent.get("text") or "")) == "holding":
        return [
            f"turn #{entry['seq']}: the customer ended the conversation ({entry['reason']}) while the agent was "
            "still at work on its request"
        ]
    return []


def _own_words(task: Task) -> list[str]:
    """The customer's story and description: giving them gives whatever facts they hold."""
    return [text for text in (task.customer.story, task.customer.wants.description) if text]
