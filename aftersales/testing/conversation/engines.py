"""Which engine plays a trial's customer: `engine_for(task, name)`, the scripted customer unless told otherwise.

A name is "scripted" (the default, deterministic), "llm" (a language model, llm_customer.py) or "module:Class" for an
engine of one's own, built as
`Class(task.customer, turn_limit)`. Engines are imported only when a conversation trial asks for one.
"""

import importlib

from aftersales.testing.conversation.model import CustomerEngine
from aftersales.testing.tasks import Task

ENGINES = {
    "scripted": "aftersales.testing.conversation.scripted:ScriptedCustomer",
    "llm": "aftersales.testing.conversation.llm_customer:LlmCustomer",  # AFTERSALES_CUSTOMER_MODEL (testing.llm)
}


def turn_limit_for(task: Task) -> int:
    """The task's turn limit for a conversation (its conversation rules may set one), else the default 12."""
    return task.turn_limit


def engine_for(task: Task, name: str = "scripted") -> CustomerEngine:
    """A fresh engine playing `task`'s customer (one per trial: an engine keeps the conversation's state)."""
    where = ENGINES.get(name, name)
    module, _, attribute = where.partition(":")
    if not module or not attribute:
        known = ", ".join(sorted(ENGINES))
        raise ValueError(f"unknown customer engine {name!r}: use one of {known}, or module:Class for your own")
    engine: CustomerEngine = getattr(importlib.import_module(module), attribute)(task.customer, turn_limit_for(task))
    return engine
