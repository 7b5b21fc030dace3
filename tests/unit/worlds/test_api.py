"""The admin API's reading of request bodies: every mistake refused in three parts before any world is touched."""

from datetime import timedelta

import pytest
from sqlalchemy.exc import OperationalError

from aftersales.domain.errors import ServiceUnavailable
from aftersales.worlds import api
from aftersales.worlds.world_errors import WorldRequestError
from tests.support.worlds import PINNED, a_world


class Untouched:
    """A worlds service that fails the test if an operation reaches it."""

    def __getattr__(self, name: str):
        def operation(*_args, **_options):
            raise AssertionError(f"the body should have been refused before Worlds.{name} was called")

        return operation


class Recording:
    """A worlds service that remembers what it was asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def create(self, **options):
        self.calls.append(("create", (), options))
        return a_world("w-made")

    def token(self, world_id, caller, scopes, ttl):
        self.calls.append(("token", (world_id, caller, scopes, ttl), {}))
        return "signed"

    def size(self, world):
        return 1024

    def advance(self, world_id, by):
        self.calls.append(("advance", (world_id, by), {}))
        return a_world(world_id)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"clok": "frozen"}, "fields this operation does not take: clok"),
        ({"deterministic": "yes"}, "\"deterministic\" 'yes' is not true or false"),
        ({"seed": 1.5}, '"seed" 1.5 is not a whole number'),
        ({"seed": True}, '"seed" True is not a whole number'),
        ({"at": "next tuesday"}, "\"at\" 'next tuesday' is not an ISO 8601 time"),
        ({"clock": "sideways"}, "\"clock\" 'sideways' is not one of real, frozen, offset"),
        ({"clock": "real", "at": "2026-12-01T09:00:00Z"}, '"at" was given with "clock": "real"'),
        ({"clock": "offset"}, '"clock": "offset" was given without "at"'),
        ({"id": "Has Capitals"}, "\"id\" 'Has Capitals' is not a world id"),
        ({"dataset_day": "2026-11-30"}, "fields this operation does not take: dataset_day"),
        ({"from": 7}, '"from" 7 is not text'),
        ({"caller": "two words"}, "\"caller\" 'two words' is not a caller id"),
        ({"scopes": ["tickets:delete"]}, "are not scopes a token can hold"),
        ({"scopes": "tickets:read,tickets:read:all"}, "are not scopes a token can hold"),
        ({"scopes": [1, 2]}, "are not scopes a token can hold"),
        ({"ttl": "forever"}, "\"ttl\" 'forever' is not a duration"),
        ({"ttl": "0s"}, "is not a lifetime"),
        ({"lease": "a while"}, "\"lease\" 'a while' is not a duration"),
        ({"lease": "0s"}, "\"lease\" '0s' is not a duration this accepts"),
        ({"lease": "3651d"}, "\"lease\" '3651d' is not a duration this accepts"),
    ],
)
def test_a_create_body_that_cannot_be_read_is_refused_naming_the_field(body, words):
    with pytest.raises(WorldRequestError) as refused:
        api.create(Untouched(), body, "http://127.0.0.1:8000/mcp")  # type: ignore[arg-type]
    assert words in str(refused.value) and refused.value.rule and refused.value.next_step


def test_a_clock_is_moved_by_exactly_one_of_advance_and_set_and_only_forward():
    for body in ({}, {"advance": "1m", "set": "2027-01-01T00:00:00Z"}):
        with pytest.raises(WorldRequestError, match="exactly one of"):
            api.move_clock(Untouched(), "w-1", body)  # type: ignore[arg-type]
    with pytest.raises(WorldRequestError, match="does not move the clock forward"):
        api.move_clock(Untouched(), "w-1", {"advance": "0s"})  # type: ignore[arg-type]
    worlds = Recording()
    api.move_clock(worlds, "w-1", {"advance": "31m"})  # type: ignore[arg-type]
    assert worlds.calls == [("advance", ("w-1", timedelta(minutes=31)), {})]


def test_a_good_create_body_reaches_the_service_and_answers_with_a_token_and_where_to_connect():
    worlds = Recording()
    body = {"clock": "frozen", "at": "2026-12-01T09:00:00Z", "deterministic": True, "seed": 4, "scopes": "tickets:read"}
    made = api.create(worlds, body, "http://127.0.0.1:8000/mcp")  # type: ignore[arg-type]
    assert worlds.calls[0] == (
        "create",
        (),
        {
            "source": "baseline",
            "clock_mode": "frozen",
            "at": PINNED,
            "deterministic": True,
            "seed": 4,
            "world_id": None,
            "tool_descriptions": None,
            "lease": None,
        },
    )
    assert worlds.calls[1] == ("token", ("w-made", "agent", ["tickets:read"], timedelta(days=1)), {})
    assert (made["id"], made["token"], made["mcp_url"], made["size_bytes"]) == (
        "w-made",
        "signed",
        "http://127.0.0.1:8000/mcp",
        1024,
    )


def test_a_create_body_s_lease_reaches_the_service_as_a_duration():
    worlds = Recording()
    api.create(worlds, {"lease": "30m"}, "http://127.0.0.1:8000/mcp")  # type: ignore[arg-type]
    assert worlds.calls[0][2]["lease"] == timedelta(minutes=30)


def test_a_create_body_s_tool_descriptions_reach_the_service_as_the_texts_reader_stores_them():
    worlds, asked = Recording(), {"format": "aftersales-tool-descriptions/1"}
    api.create(worlds, {"tool_descriptions": asked}, "http://127.0.0.1:8000/mcp", lambda given: f"stored {given}")  # type: ignore[arg-type]
    assert worlds.calls[0][2]["tool_descriptions"] == f"stored {asked}"
    with pytest.raises(WorldRequestError, match="fields this operation does not take: tool_descriptions"):
        api.create(Untouched(), {"tool_descriptions": asked}, "http://127.0.0.1:8000/mcp")  # type: ignore[arg-type]


def test_over_http_a_world_is_compared_with_its_source_or_a_world_never_with_a_file_on_the_server():
    with pytest.raises(WorldRequestError, match="neither `source` nor a world id"):
        api.diff(Untouched(), "w-1", "/etc/passwd", audit=False)  # type: ignore[arg-type]
    with pytest.raises(WorldRequestError, match="not in a snapshot"):
        api.diff(Untouched(), "w-1", "source", audit=False, tables=["tickets", "passwords"])  # type: ignore[arg-type]
    with pytest.raises(WorldRequestError, match="is not a world snapshot"):
        api.diff_snapshot(Untouched(), "w-1", {"format": "something else", "tables": {}})  # type: ignore[arg-type]


def test_an_operation_on_a_database_that_does_not_answer_raises_the_projects_retryable_error():
    def unanswered():
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))

    with pytest.raises(ServiceUnavailable):
        api.run(unanswered)
    assert api.run(lambda: {"worlds": []}) == {"worlds": []}
