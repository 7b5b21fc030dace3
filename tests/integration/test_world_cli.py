"""`aftersales world …` and `token issue --world` against a real control database, on both backends."""

import json
from datetime import timedelta

import pytest

from aftersales.app import App
from aftersales.cli.main import main
from aftersales.clock import iso, now
from aftersales.security import tokens
from aftersales.settings import Settings
from aftersales.worlds.model import parse_instant
from tests.support.worlds import PINNED, traced_call


@pytest.fixture
def cli(worlds, monkeypatch, capsys):
    """Run the command line on the `worlds` fixture's control database and folders; return (status, stdout)."""
    monkeypatch.setenv("AFTERSALES_DATABASE_URL", worlds.settings.resolved_database_url)
    monkeypatch.setenv("AFTERSALES_WORLDS_DIR", str(worlds.settings.worlds_dir))
    monkeypatch.setenv("AFTERSALES_WORLDS_PREFIX", str(worlds.settings.worlds_prefix))

    def run(*argv: str) -> tuple[int, str]:
        capsys.readouterr()
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.err + captured.out  # stderr first: a printed token stays the last line

    return run


def test_world_create_prints_the_world_and_a_token_bound_to_it(cli):
    status, out = cli("world", "create", "--at", "2026-12-01T09:00:00Z", "--caller", "harness", "--json")
    made = json.loads(out[out.index("{") :])
    assert status == 0
    assert (made["clock"], made["source"]) == (
        {"mode": "frozen", "now": "2026-12-01T09:00:00Z"},
        {"kind": "baseline", "name": "baseline"},
    )
    claims = tokens.verify(App(Settings()).caller_keys, made["token"], now())
    assert (claims.world, claims.caller.id) == (made["id"], "harness")
    assert made["size_bytes"] > 0


def test_the_world_commands_take_a_world_through_its_life(cli, tmp_path):
    assert cli("world", "create", "--at", "2026-12-01T09:00:00Z", "--id", "base", "--deterministic")[0] == 0
    status, out = cli("world", "fork", "base", "--id", "copy", "--json", "--lease", "2h")
    forked = json.loads(out[out.index("{") :])
    assert status == 0 and forked["deterministic"] is True
    assert forked["expires_at"] == iso(parse_instant(forked["created_at"]) + timedelta(hours=2))
    assert cli("world", "clock", "copy", "--advance", "31m") == (
        0,
        "world copy: clock frozen at 2026-12-01T09:31:00Z\n",
    )
    listed = json.loads(cli("world", "list", "--json")[1])["worlds"]
    assert [(w["id"], w["source"]["name"], w["clock"]["now"]) for w in listed] == [
        ("base", "baseline", "2026-12-01T09:00:00Z"),
        ("copy", "base", "2026-12-01T09:31:00Z"),
    ]
    table = cli("world", "list")[1].splitlines()
    assert table[0].split() == ["ID", "CREATED", "SOURCE", "CLOCK", "SIZE", "LAST", "USED", "LEASE", "ENDS"]
    assert "world base" in table[2] and "MB" in table[2]
    assert table[1].endswith(" -") and table[2].endswith(forked["expires_at"])  # base has no lease; copy ends then
    snapshot = tmp_path / "base.json"
    status, out = cli("world", "snapshot", "base", "--out", str(snapshot))
    assert status == 0 and out.strip().endswith(cli("world", "hash", "copy")[1].strip())
    diff = json.loads(cli("world", "diff", "copy", "--against", str(snapshot), "--json")[1])
    assert diff["identical"] and diff["before"]["label"] == str(snapshot)
    assert cli("world", "diff", "copy")[1].startswith("world copy against its source (world base as copied): identical")
    assert cli("world", "reset", "copy") == (0, "world copy reset: clock frozen at 2026-12-01T09:00:00Z\n")
    assert cli("world", "drop", "copy") == (0, "world copy dropped\n")
    assert [w["id"] for w in json.loads(cli("world", "list", "--json")[1])["worlds"]] == ["base"]


def test_token_issue_binds_a_token_to_a_live_world_and_refuses_any_other(cli):
    cli("world", "create", "--id", "target", "--at", "2026-12-01T09:00:00Z")
    status, out = cli("token", "issue", "--caller", "bot", "--world", "target", "--scopes", "tickets:read")
    claims = tokens.verify(App(Settings()).caller_keys, out.strip().splitlines()[-1], now())
    assert status == 0 and (claims.world, claims.caller.scopes) == ("target", frozenset({"tickets:read"}))
    status, out = cli("token", "issue", "--caller", "bot", "--world", "gone")
    assert status == 2 and 'aftersales: There is no world "gone".' in out and "Traceback" not in out


def test_options_that_do_not_fit_are_one_line_and_exit_2(cli):
    status, out = cli("world", "create", "--clock", "real", "--at", "2026-12-01T09:00:00Z")
    assert status == 2 and "--at 2026-12-01T09:00:00Z was given with --clock real" in out
    status, out = cli("world", "create", "--caller", "no spaces allowed")
    assert status == 2 and "--caller 'no spaces allowed'" in out
    assert json.loads(cli("world", "list", "--json")[1]) == {"worlds": []}


OUT_OF_RANGE = [
    (("world", "create", "--at", "0001-01-01T00:00:00Z"), "--at 0001-01-01T00:00:00Z is outside the times"),
    (("world", "create", "--at", "9999-12-31T23:00:00Z"), "from 2000-01-01T00:00:00Z to 2999-12-31T23:59:59Z"),
    (("world", "create", "--seed", str(10**40)), "A seed is a whole number from 0 to 9223372036854775807"),
    (("world", "create", "--ttl", "99999999999d"), "'99999999999d' is too long"),
    (("world", "create", "--ttl", "3651d"), "--ttl '3651d': a token lives from 1 second to 3650 days"),
    (("world", "create", "--dataset-day", "0001-01-01"), "--dataset-day 0001-01-01 is outside the days"),
    (("world", "fork", "bounded", "--seed", "-1"), "--seed -1 is outside the seeds"),
    (("world", "clock", "bounded", "--advance", "99999999999d"), "'99999999999d' is too long"),
    (("world", "clock", "bounded", "--advance", "3651d"), "--advance '3651 days' is not a duration this accepts"),
    (("world", "clock", "bounded", "--set", "3000-01-01T00:00:00Z"), "--set 3000-01-01T00:00:00Z is outside"),
    (("token", "issue", "--caller", "bot", "--ttl", "99999999999d"), "'99999999999d' is too long"),
]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the command line's reading, not storage's
def test_values_out_of_range_are_one_line_naming_the_option_and_exit_2(cli):
    assert cli("world", "create", "--id", "bounded", "--at", "2026-12-01T09:00:00Z")[0] == 0
    for argv, words in OUT_OF_RANGE:
        status, out = cli(*argv)
        assert status == 2 and words in out and len(out.strip().splitlines()) == 1, (argv, out)
    assert [w["id"] for w in json.loads(cli("world", "list", "--json")[1])["worlds"]] == ["bounded"]
    assert "clock frozen at 2026-12-01T09:00:00Z" in cli("world", "list")[1]  # no refused move moved it


def test_world_trace_prints_a_worlds_calls_as_json_lines_or_for_a_person(cli, worlds):
    world = worlds.create(at=PINNED)
    worlds.append_trace(world, traced_call(world.id, "after_sales_query_ticket", {"ticket_id": "T-2026-0335"}))
    status, out = cli("world", "trace", world.id, "--json")
    [entry] = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and (entry["seq"], entry["format"], entry["arguments"]) == (
        1,
        "aftersales-trace/1",
        {"ticket_id": "T-2026-0335"},
    )
    status, out = cli("world", "trace", world.id)
    assert status == 0 and out.startswith("#1  2026-12-01T09:00:00Z  agent  after_sales_query_ticket  ok")


def test_world_diff_compares_only_the_tables_named_and_refuses_a_table_it_does_not_have(cli, worlds):
    world = worlds.create(at=PINNED)
    status, out = cli("world", "diff", world.id, "--tables", "tickets,quotes", "--json")
    assert status == 0 and json.loads(out)["identical"]
    status, out = cli("world", "diff", world.id, "--tables", "tickets,tickts")
    assert status == 2 and "The tables 'tickts' are not in a snapshot." in out


def test_token_issue_gives_the_worlds_admin_scope_on_its_own(cli):
    status, out = cli("token", "issue", "--caller", "harness", "--scopes", "worlds:admin")
    claims = tokens.verify(App(Settings()).caller_keys, out.strip().splitlines()[-1], now())
    assert status == 0 and claims.caller.scopes == frozenset({"worlds:admin"})
