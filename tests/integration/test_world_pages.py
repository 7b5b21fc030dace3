"""A world answers the bank-account page (a URL question) as the task's customer, on both revisions, in its trace.

The harness's own host, in process: the reference solution of a shipped task is replayed by the real MCP client,
and the world's script visits the page and submits it. The account typed never appears in the trace or the diff.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from aftersales.testing.hosts.in_process import Host
from aftersales.testing.loader import load
from aftersales.testing.reference import replay
from aftersales.testing.scoring import score
from tests.support.harness import hosting

GIVEN, EXPIRED = load("refund-cod-tshirts-bank-account,refund-cod-speaker-page-expired")
NUMBERS = ("GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432", "6222 0212 3456 7890 128", "6222021234567890128")
VIA = {"auto": "input_required", "legacy": "elicitation/create"}


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    """One harness host for the module (worlds are fresh per trial)."""
    with hosting(Path(tmp_path_factory.mktemp("pages"))) as started:
        yield started


def played(host: Host, task, protocol: str) -> tuple[list[dict], dict]:
    """Replay the task's reference on `protocol` in a fresh world; (its trace, its diff), the world dropped."""
    trial = host.open_trial(task)
    try:
        steps = anyio.run(replay, task, trial.url, trial.token, None, protocol)
        assert all(step.as_expected for step in steps), [step.text for step in steps]
        return host.trace(trial), host.diff(trial)
    finally:
        host.close_trial(trial)


def page_round(trace: list[dict]) -> dict:
    """The round of the trace whose question is the bank-account page."""
    return next(r for entry in trace for r in entry["rounds"] if r["questions"][0].get("mode") == "url")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_world_visits_and_submits_the_bank_account_page_as_its_customer_and_traces_only_the_masked_account(
    host: Host, protocol: str
):
    trace, diff = played(host, GIVEN, protocol)
    assert score(GIVEN, diff, trace).passed
    asked = page_round(trace)
    assert (asked["via"], asked["answered_by"]) == (VIA[protocol], "script")
    assert "url" not in asked["questions"][0]  # the one-time link is not kept
    (answer,) = asked["answers"]
    page = answer.pop("page")
    assert answer == {
        "key": "after_sales_create_ticket:bank_account" if protocol == "auto" else None,
        "action": "accept",
        "content": None,
    }
    assert page["reference"].startswith("PO-") and page == {
        "visited": True,
        "submitted": True,
        "status": 200,
        "heading": "Thank you: the account was received",
        "accepted": True,
        "account": "•••• 5432",
        "reference": page["reference"],
    }
    written = json.dumps([trace, diff], ensure_ascii=False)
    assert not [number for number in NUMBERS if number in written]


def test_a_customer_who_steps_away_past_the_pages_lifetime_finds_it_expired_and_nothing_is_created(host: Host):
    # On 2025-11-25 the call waits for the page mid-call: it must see the time the customer was away.
    trace, diff = played(host, EXPIRED, "legacy")
    assert score(EXPIRED, diff, trace).passed
    (answer,) = page_round(trace)["answers"]
    assert answer["page"] == {
        "visited": True,
        "submitted": True,
        "waited": "20m",
        "status": 410,
        "heading": "This link has expired",
        "accepted": False,
    }
    create = trace[-1]
    assert create["result"]["outcome"] == "not_created"
    assert "expired before the customer submitted it" in json.dumps(create["result"])
