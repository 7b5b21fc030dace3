"""The replayed customer: the recorded replies while the agent says the same, then a fallback brought up to date."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from aftersales.testing.comparison import difference
from aftersales.testing.conversation import replies
from aftersales.testing.conversation.engines import check_engine, engine_for
from aftersales.testing.conversation.model import Reply
from aftersales.testing.conversation.replay import ReplayCustomer, ReplayMissing, Source, parse, recording
from aftersales.testing.conversation.scripted import ScriptedCustomer
from aftersales.testing.llm import Spend, Usage
from aftersales.testing.loader import load
from aftersales.testing.tasks import Customer, Task
from tests.support.replays import converse, turns, write

WRONG_ORDER = load("conv-wrong-order-number-airpods")[0]  # gives a wrong order number the first time
CHANGES_MIND = load("conv-changes-mind-store-credit")[0]  # card, then store credit when asked again
ASKED = [
    "Thanks for getting in touch. How can I help: a refund, an exchange or a repair?",
    "What's your order number, and which item on the order is it about?",
    "I could not find that order. Could you check the order number?",
]


class Paying:
    """An engine standing in for a model: it resumes from what was said, and spends per reply."""

    name = "paying"

    def __init__(self) -> None:
        self.resumed: tuple[str, Sequence[tuple[str, Reply]]] | None = None
        self.spent = Spend()

    def opening(self) -> str:
        raise AssertionError("a fallback that resumes is never asked to open")

    def reply(self, message: str) -> Reply:
        self.spent.add(Usage("paying", "v", 1, 3, 1, "0.5"))
        return Reply(f"paid answer to {message!r}", facts={"usage": {"tokens": 3}})

    def resume(self, opening: str, exchanges: Sequence[tuple[str, Reply]]) -> None:
        self.resumed = (opening, exchanges)


class Modelled(ScriptedCustomer):
    """A recorded engine of another name, whose replies carry a field the channel does not know."""

    name = "llm"

    def reply(self, message: str) -> Reply:
        said = super().reply(message)
        return Reply(said.text, said.revealed, said.ended, said.reason, said.miss, facts={"usage": {"cost": 0.5}})


def replayed(folder: Path, task: Task, messages: list[str]) -> list[dict[str, Any]]:
    """The turns of a replay of `folder`'s first trial of `task`, the agent saying `messages`."""
    return converse(engine_for(task, f"replay:{folder}", 1), messages, world="w-ffff0000")


def test_a_replay_name_names_its_folder_and_its_fallback_scripted_unless_told():
    assert parse("replay:runs/last") == Source(Path("runs/last"))
    assert parse("replay:runs/a,b,fallback=my.engines:Model") == Source(Path("runs/a,b"), "my.engines:Model")
    assert parse("scripted") is None
    with pytest.raises(ValueError, match="use replay:DIR"):
        parse("replay:")


def test_while_the_agent_says_the_same_the_replay_is_the_recorded_trajectory_with_every_recorded_field(
    tmp_path: Path,
):
    recorded = converse(Modelled(WRONG_ORDER.customer), ASKED)
    write(tmp_path, WRONG_ORDER.id, 1, recorded)
    # Other white space is still what the agent said then.
    again = replayed(tmp_path, WRONG_ORDER, [f"  {ASKED[0]}", ASKED[1].replace(" ", "\n  "), ASKED[2]])
    assert difference(turns(recorded, "customer"), turns(again, "customer")) is None
    assert {turn["engine"] for turn in again} == {"llm"}
    assert [turn["usage"] for turn in turns(again, "customer")[1:]] == [{"cost": 0.5}] * 3
    assert not any("diverged" in turn for turn in again)


def test_at_the_first_other_message_the_scripted_fallback_takes_over_knowing_what_was_said_and_is_marked(
    tmp_path: Path,
):
    write(tmp_path, WRONG_ORDER.id, 1, converse(ScriptedCustomer(WRONG_ORDER.customer), ASKED))
    live = [*ASKED[:2], "What is your order number again?"]
    again = turns(replayed(tmp_path, WRONG_ORDER, live), "customer")
    straight = turns(converse(ScriptedCustomer(WRONG_ORDER.customer), live), "customer")
    # It already gave the wrong number, so asked again it puts it right, as the scripted customer would have.
    assert again[3]["text"] == straight[3]["text"] == f"{replies.CORRECTED} My order number is O-2026-001374."
    assert again[3]["diverged"] == {"recorded": ASKED[2]} and again[3]["engine"] == "scripted"
    assert [turn.get("diverged") for turn in again[:3]] == [None] * 3


def test_a_fallback_that_resumes_is_told_the_conversation_so_far_and_only_its_own_turns_have_its_name(
    tmp_path: Path,
):
    write(tmp_path, WRONG_ORDER.id, 1, converse(Modelled(WRONG_ORDER.customer), ASKED[:2]))
    paying = Paying()
    engine = ReplayCustomer(recording(Source(tmp_path), WRONG_ORDER.id, 1), lambda: paying)
    assert engine.spent.requests == 0  # nothing spent while replaying
    again = converse(engine, ASKED)
    assert paying.resumed is not None and paying.resumed[0] == WRONG_ORDER.customer.opening
    assert [message for message, _ in paying.resumed[1]] == ASKED[:2]
    assert [(turn["speaker"], turn["engine"]) for turn in again[-2:]] == [("agent", "paying"), ("customer", "paying")]
    assert {turn["engine"] for turn in again[:-2]} == {"llm"}
    assert again[-1]["diverged"] == {"recorded": None} and again[-1]["usage"] == {"tokens": 3}
    assert engine.spent.as_json() == {"requests": 1, "input_tokens": 3, "output_tokens": 1, "cost_usd": "0.5"}
    assert engine.diverged_at == 3


def test_a_replayed_customer_changes_their_mind_for_the_worlds_forms_at_the_turn_they_did(tmp_path: Path):
    asked = [
        "Would you like the refund to your original payment method or as store credit?",
        "Shall I go ahead and open the return?",
    ]
    write(tmp_path, CHANGES_MIND.id, 1, converse(ScriptedCustomer(CHANGES_MIND.customer), asked))
    engine = engine_for(CHANGES_MIND, f"replay:{tmp_path}")
    changed: list[Customer] = []
    engine.on_change = changed.append  # type: ignore[attr-defined]  # as the host does when the world answers forms
    engine.reply(asked[0])
    assert changed == []
    assert "changed my mind" in engine.reply(asked[1]).text
    assert [customer.wants.refund_method for customer in changed] == ["store_credit"]


def test_a_folder_without_trajectories_or_without_a_trial_to_run_is_refused_in_one_line(tmp_path: Path):
    with pytest.raises(ReplayMissing, match=r"holds no trajectories \(replay the --out folder") as none:
        check_engine(f"replay:{tmp_path}", [(WRONG_ORDER.id, 1)])
    write(tmp_path, WRONG_ORDER.id, 1, converse(ScriptedCustomer(WRONG_ORDER.customer), ASKED))
    check_engine(f"replay:{tmp_path}", [(WRONG_ORDER.id, 1)])
    missing = rf"has no recorded trial {WRONG_ORDER.id}.2, {CHANGES_MIND.id}.1 \("
    with pytest.raises(ReplayMissing, match=missing) as gap:
        check_engine(f"replay:{tmp_path}", [(WRONG_ORDER.id, 1), (WRONG_ORDER.id, 2), (CHANGES_MIND.id, 1)])
    write(tmp_path, CHANGES_MIND.id, 1, [{"format": "aftersales-trace/1", "seq": 1, "tool": "x"}])
    with pytest.raises(ReplayMissing, match="holds no conversation") as brief:
        check_engine(f"replay:{tmp_path}", [(CHANGES_MIND.id, 1)])
    assert all("\n" not in str(problem.value) for problem in (none, gap, brief))


def test_an_llm_fallback_takes_over_with_one_paid_reply_that_knows_the_conversation_so_far(tmp_path: Path):
    from aftersales.testing.conversation.llm_customer import LlmCustomer
    from aftersales.testing.llm import ModelChoice

    write(tmp_path, WRONG_ORDER.id, 1, converse(ScriptedCustomer(WRONG_ORDER.customer), ASKED[:2]))
    model = ModelChoice("customer", "function:aftersales.testing.conversation.stand_in:scripted")
    llm = LlmCustomer(WRONG_ORDER.customer, choice=model)
    engine = ReplayCustomer(recording(Source(tmp_path), WRONG_ORDER.id, 1), lambda: llm)
    again = converse(engine, ASKED)
    # Told it gave a wrong order number two turns ago, the model's customer puts it right, as the script would.
    assert again[-1]["text"] == turns(converse(ScriptedCustomer(WRONG_ORDER.customer), ASKED), "customer")[-1]["text"]
    assert again[-1]["engine"] == "llm" and again[-1]["diverged"] == {"recorded": None}
    assert engine.spent.requests == 1  # the catch-up cost nothing: only the reply after the divergence was paid
