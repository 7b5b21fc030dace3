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
from tests.support import evals
from tests.support.descriptions import ALTERNATIVE, QUERY, write_set

LISTING = f"{sys.executable} {Path(__file__).parent / 'listing_agent.py'}"
TASK = "repair-rc-car-out-of-warranty"  # a task that needs no call, so an agent that only lists tools passes it


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
