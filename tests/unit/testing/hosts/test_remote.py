"""The plugin's choice of server and what a running server cannot do: refused before anything starts, by name."""

from pathlib import Path

import pytest

from aftersales.testing.hosts.remote import ServerUnavailable, remote_refusal
from aftersales.testing.loader import load
from aftersales.testing.servers import open_host
from aftersales.testing.tasks import WorldStart

CUSTOMER = load("refund-tshirts-store-credit")[0].customer


def test_a_start_with_only_a_source_and_a_clock_is_made_by_a_running_server() -> None:
    start = WorldStart.model_validate({"from": "baseline", "clock": "2026-12-05T10:00:00Z"})
    assert remote_refusal(start, None) is None


@pytest.mark.parametrize(
    ("start", "named"),
    [
        ({"settings": {"review_recent_tickets": 1}}, "world.settings (a running server has one set of settings"),
        ({"rows": {"tickets": [{"id": "T-2026-9001"}]}}, "world.rows (extra rows are written straight into"),
        ({"events": [{"after": "after_sales_create_ticket", "lose_response": True}]}, "world.events (events are"),
        ({"client": {"url_mode": False}}, "world.client (the client a task plays is set by middleware"),
    ],
)
def test_each_task_field_a_running_server_cannot_honour_is_named_with_what_to_do(start: dict, named: str) -> None:
    refusal = remote_refusal(WorldStart.model_validate(start), None, "refund-x")
    assert refusal is not None and refusal.startswith(f"refund-x needs the in-process server for {named}")
    assert refusal.endswith("Run it on the in-process server (leave those options out).")


def test_forms_the_world_answers_are_refused_pointing_to_the_clients_callback() -> None:
    refusal = remote_refusal(WorldStart(), CUSTOMER, "refund-tshirts-store-credit")
    assert refusal is not None and 'forms answered by the world (forms="world"' in refusal
    assert 'or pass forms="client" and answer with world.elicitation_callback()' in refusal


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "http://127.0.0.1:9"}, "--aftersales-url http://127.0.0.1:9 was given without an admin token"),
        ({"url": "http://127.0.0.1:9", "admin_token": "t", "mode": "subprocess"}, "were both given"),
        ({"mode": "docker"}, "--aftersales-server 'docker' is not a mode: choose in-process or subprocess."),
    ],
)
def test_options_that_cannot_name_one_usable_server_are_refused_before_anything_starts(
    options: dict, message: str, tmp_path: Path
) -> None:
    with pytest.raises(ServerUnavailable, match=message), open_host(tmp_path, **options):
        pass


def test_conversation_trials_on_a_running_server_are_refused_before_any_world_is_made() -> None:
    from aftersales.testing.fixtures import AgentTrials
    from aftersales.testing.hosts.interface import NoChannel
    from aftersales.testing.hosts.remote import RemoteHost

    host = RemoteHost("http://127.0.0.1:9/mcp", "unused")  # never reached: the refusal comes first
    try:
        with pytest.raises(NoChannel, match="Conversation trials need the in-process server"):
            AgentTrials(host, lambda run: None).run(
                "refund-tshirts-store-credit", lambda w, b: None, mode="conversation"
            )
    finally:
        host.client.close()
