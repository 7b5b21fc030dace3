"""Which engine plays a trial's customer: `engine_for(task, name, trial)`, the scripted customer unless told otherwise.

A name is "scripted" (the default, deterministic), "llm" (a language model, llm_customer.py), "replay:DIR" (an
earlier run's customer said again, with ",fallback=NAME" naming the engine that takes over where the agent says
something else: conversation.replay), or "module:Class" for an engine of one's own, built as
`Class(task.customer, turn_limit)`. Engines are imported only when a conversation trial asks for one.
"""

import importlib
from collections.abc import Iterable

from aftersales.testing.conversation.model import CustomerEngine
from aftersales.testing.tasks import Task

ENGINES = {
    "scripted": "aftersales.testing.conversation.scripted:ScriptedCustomer",
    "llm": "aftersales.testing.conversation.llm_customer:LlmCustomer",  # AFTERSALES_CUSTOMER_MODEL (testing.llm)
}
REPLAY = "replay:"


def turn_limit_for(task: Task) -> int:
    """The task's turn limit for a conversation (its conversation rules may set one), else the default 12."""
    return task.turn_limit


def engine_for(task: Task, name: str = "scripted", trial: int = 1) -> CustomerEngine:
    """A fresh engine playing `task`'s customer in trial `trial` (one per trial: it keeps the conversation's state)."""
    if name.startswith(REPLAY):
        from aftersales.testing.conversation import replay

        source = replay.parse(name)
        assert source is not None
        return replay.engine(task, trial, source, lambda fallback: engine_for(task, fallback, trial))
    where = ENGINES.get(name, name)
    module, _, attribute = where.partition(":")
    if not module or not attribute:
        known = ", ".join([*sorted(ENGINES), "replay:DIR"])
        raise ValueError(f"unknown customer engine {name!r}: use one of {known}, or module:Class for your own")
    engine: CustomerEngine = getattr(importlib.import_module(module), attribute)(task.customer, turn_limit_for(task))
    return engine


def check_engine(name: str, jobs: Iterable[tuple[str, int]]) -> None:
    """Before any world is made: that the engine can play every (task id, trial); a one-line ValueError if not."""
    if name.startswith(REPLAY):
        from aftersales.testing.conversation import replay

        replay.check(name, jobs)
