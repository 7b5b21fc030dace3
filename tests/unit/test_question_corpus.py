"""The question corpus (seed/conversation/questions.yaml): its shape, and each entry against an all-knowing customer."""

from typing import Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from aftersales.testing.conversation import vocabulary
from aftersales.testing.conversation.model import EndReason
from aftersales.testing.conversation.scripted import ScriptedCustomer
from aftersales.testing.loader import load_file, shipped_tasks
from aftersales.testing.tasks import Customer

CORPUS = shipped_tasks().parent / "conversation" / "questions.yaml"
FACT_NAMES = set(vocabulary.FACTS) | {"wants.action"}
Action = Literal["open_ticket", "cancel_ticket", "check_ticket"]


class Entry(BaseModel):
    """One agent message and what the customer's reply must come to."""

    model_config = ConfigDict(extra="forbid")

    say: str = Field(min_length=1)
    reveals: list[str] = Field(default_factory=list)
    miss: bool = False
    ends: EndReason | None = None
    action: Action = "open_ticket"

    @model_validator(mode="after")
    def _consistent(self) -> "Entry":
        unknown = set(self.reveals) - FACT_NAMES
        if unknown:
            raise ValueError(f"unknown fact names {sorted(unknown)}")
        if self.miss and (self.reveals or self.ends):
            raise ValueError("a miss reveals nothing and ends nothing")
        return self


class Corpus(BaseModel):
    """The corpus file."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["aftersales-question-corpus/1"]
    questions: list[Entry] = Field(min_length=300)


def corpus() -> Corpus:
    """The shipped corpus, validated."""
    return Corpus.model_validate(yaml.safe_load(CORPUS.read_text(encoding="utf-8")))


def all_knowing(action: Action) -> Customer:
    """A real task's customer (three faulty FreeBuds) who also knows a phone, a ticket and the dates."""
    customer = load_file(shipped_tasks() / "refund-headphones-all-three-review.yaml").customer
    knows = customer.knows | {
        "phone": "+86 138 0000 0002",
        "ticket_id": "T-2026-0325",
        "delivered_on": "26 November",
        "ordered_on": "21 November",
    }
    wants = (
        customer.wants
        if action == "open_ticket"
        else customer.wants.model_copy(update={"action": action, "kind": None})
    )
    return customer.model_copy(update={"knows": knows, "wants": wants})


def test_the_corpus_has_at_least_300_distinct_messages_of_a_known_shape():
    questions = corpus().questions
    messages = [entry.say.strip().lower() for entry in questions]
    assert len(set(messages)) == len(messages), [m for m in set(messages) if messages.count(m) > 1]
    assert len(questions) >= 300


def test_the_corpus_asks_for_every_fact_the_customer_can_reveal():
    asked = {name for entry in corpus().questions for name in entry.reveals}
    assert FACT_NAMES - asked == set()


def test_a_corpus_entry_that_is_both_a_miss_and_a_reveal_is_refused():
    with pytest.raises(ValueError, match="a miss reveals nothing"):
        Entry.model_validate({"say": "x", "miss": True, "reveals": ["email"]})
    with pytest.raises(ValueError, match="unknown fact names"):
        Entry.model_validate({"say": "x", "reveals": ["favourite_colour"]})


def test_every_corpus_message_gets_the_reply_it_should():
    mismatches = []
    for entry in corpus().questions:
        reply = ScriptedCustomer(all_knowing(entry.action)).reply(entry.say)
        got = (sorted(reply.revealed), reply.miss, reply.reason if reply.ended else None)
        wanted = (sorted(entry.reveals), entry.miss, entry.ends)
        if got != wanted:
            mismatches.append(f"{entry.say!r}: wanted {wanted}, got {got} ({reply.text!r})")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)
