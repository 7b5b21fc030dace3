"""`aftersales eval --descriptions FILE`: every trial world serves the set, and report.json names it and its hash."""

import json
import sys
from pathlib import Path

import jsonschema

from aftersales.cli.eval import descriptions_used
from aftersales.mcp.described import definitions
from aftersales.mcp.descriptions import defaults, parse
from aftersales.settings import Settings
from aftersales.testing import schemas
from aftersales.testing.comparison import difference, read
from tests.support import ROOT, evals
from tests.support.descriptions import ALTERNATIVE, CREATE, QUERY, write_set

LISTING = f"{sys.executable} {Path(__file__).parent / 'listing_agent.py'}"
TASK = "repair-rc-car-out-of-warranty"  # a task that needs no call, so an agent that only lists tools passes it
STATUS = "status-awaiting-return"  # one query: the reference agent's test model reads a ticket


def test_each_trial_world_serves_the_set_and_the_report_names_it_with_the_hash_of_its_texts(tmp_path: Path):
    shown, chosen = tmp_path / "shown.json", write_set(tmp_path)
    code, report = evals.run(tmp_path / "out", f"{LISTING} {shown}", "--descriptions", str(chosen), tasks=[TASK])
    assert code == 0, evals.failed(report)
    assert json.loads(shown.read_text(encoding="utf-8"))[QUERY] == "Ticket status"
    jsonschema.Draft202012Validator(schemas.load("report.schema.json")).validate(report)
    today = definitions(Settings())
    terse = parse(ALTERNATIVE, "terse-v2.yaml", today).completed(today)
    assert report["tool_descriptions"] == {"name": "terse-v2", "sha256": terse.sha256}


def test_a_run_without_a_set_records_todays_texts_by_the_name_default():
    today = definitions(Settings())
    assert descriptions_used(None, Settings()) == {"name": "default", "sha256": defaults(today).sha256}


def test_the_reference_agents_test_model_runs_the_same_task_against_both_sets_and_sees_each_sets_texts(
    tmp_path: Path,
):
    # The review flow: the same task, the same agent, two description sets; the runs are told apart by their sets.
    agent = f"{sys.executable} {ROOT / 'examples' / 'llm_agent'} --model test"
    runs = {}
    for name, options in (("today", ()), ("terse", ("--descriptions", str(write_set(tmp_path))))):
        usage = tmp_path / f"{name}.jsonl"
        code, report = evals.run(tmp_path / name, f"{agent} --usage-log {usage}", *options, tasks=[STATUS])
        assert code == 0, evals.failed(report)
        [line] = [json.loads(text) for text in usage.read_text(encoding="utf-8").splitlines()]
        runs[name] = report, line["descriptions"], read(tmp_path / name / "trajectories" / f"{STATUS}.1.jsonl")
    (today, seen_today, calls_today), (terse, seen_terse, calls_terse) = runs["today"], runs["terse"]
    assert seen_terse[QUERY] == ALTERNATIVE["tools"][QUERY]["description"] != seen_today[QUERY]
    assert seen_terse[CREATE] == seen_today[CREATE]  # a set changes only what it names
    assert today["tool_descriptions"]["name"] == "default" and terse["tool_descriptions"]["name"] == "terse-v2"
    assert today["tool_descriptions"]["sha256"] != terse["tool_descriptions"]["sha256"]
    assert difference(calls_today, calls_terse) is None  # a scripted model makes the same calls whatever it reads
