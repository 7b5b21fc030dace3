"""What makes two trajectories the same: wall clock, latencies and per-trial ids left out, everything else kept."""

from typing import Any

from aftersales.testing.comparison import Ids, comparable, difference


def call(world: str = "w-1a2b3c4d", **changes: Any) -> dict[str, Any]:
    """A tool call's entry, as a trajectory holds it."""
    entry = {
        "format": "aftersales-trace/1",
        "seq": 2,
        "world": world,
        "started_at": "2026-12-01T09:00:00.000000Z",
        "wall_started_at": "2026-12-01T22:54:57.311436Z",
        "request_id": 1,
        "tool": "after_sales_create_ticket",
        "arguments": {"quote_id": "fd20b020-f36a-4c6a-bfbd-aa42912acece", "idempotency_key": "k-1"},
        "result": {"ticket_id": "T-2026-0388", "next": f"ask again in world {world}"},
        "latency_ms": 6.674,
    }
    return entry | changes


def test_trajectories_that_differ_only_in_wall_clock_latency_and_per_trial_ids_are_the_same():
    again = call(
        "w-99999999",
        wall_started_at="2026-12-02T01:00:00.000000Z",
        latency_ms=11.0,
        request_id="req-7",
        arguments={"quote_id": "0b8f1a52-5d1e-4c3e-9a38-0d5b7a3f2c11", "idempotency_key": "another-key"},
        result={"ticket_id": "T-2026-0401", "next": "ask again in world w-99999999"},
    )
    assert comparable([call()]) == comparable([again])
    assert difference([call()], [again]) is None


def test_a_different_text_or_world_clock_makes_two_trajectories_differ():
    later = call(started_at="2026-12-01T09:00:01.000000Z")
    other = call(arguments={"quote_id": "fd20b020-f36a-4c6a-bfbd-aa42912acece", "idempotency_key": "k-1", "x": 1})
    assert "line 1 differs" in str(difference([call()], [later]))
    assert difference([call()], [other]) is not None
    assert difference([call()], [call(), call()]) == "one trajectory has 1 lines, the other 2"


def test_an_id_used_twice_must_be_the_same_id_again():
    twice = call(result={"ticket_id": "T-2026-0388", "next": "T-2026-0388"})
    two = call(result={"ticket_id": "T-2026-0388", "next": "T-2026-0389"})
    assert difference([twice], [two]) is not None


def test_ids_are_numbered_by_kind_in_order_of_first_appearance_and_task_data_is_left_alone():
    ids = Ids()
    said = ids.text("Ticket t-2026-0373 and T-2026-0373 for order O-2026-001425, world w-448e7ec3, again t-2026-0373")
    assert said == "Ticket <ticket-1> and <ticket-2> for order O-2026-001425, world <world-1>, again <ticket-1>"
    assert ids.text("token eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJl is a token") == "token <token-1> is a token"
