"""What a failed trial shows: the answer and stderr kept, the tool errors named, report.html and `trace view`."""

import json
import re
from pathlib import Path

import pytest

from aftersales.cli.main import main
from aftersales.testing import compare, report_html
from aftersales.testing.events import mark_faults
from aftersales.testing.report import Report, explain
from aftersales.testing.runner import STDERR_LINES, tail
from aftersales.worlds.timeline import describe
from tests.support.reports import CREATE, ESTIMATE, HOSTILE, a_run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report, str]:
    """The hand-made run (a pass, a refusal, a timeout, a customer miss), its report and its page."""
    folder = tmp_path_factory.mktemp("run")
    built = a_run(folder)
    return folder, built, report_html.page(built, folder)


def trial_of(page: str, task: str) -> str:
    """The HTML of a task's first trial."""
    start = page.index(f'id="trial-{task}-1"')
    return page[start : page.index("</details>", start)]


def test_the_report_keeps_the_agents_answer_and_the_last_lines_of_its_stderr(run):
    _, built, _ = run
    refused = built.tasks[1].results[0]
    assert refused.answer == HOSTILE and refused.stderr.endswith("ValueError: " + HOSTILE)
    long = "\n".join(f"line {number}" for number in range(1, 101)) + "\n"
    kept = tail(long).splitlines()
    assert len(kept) == STDERR_LINES and kept[-1] == "line 100" and kept[0] == f"line {101 - STDERR_LINES}"


def test_the_failure_text_names_the_tool_errors_and_says_when_every_call_of_a_tool_was_refused(run):
    _, built, _ = run
    text = explain(built.tasks[1].results[0])
    assert "tool errors: every after_sales_create_ticket call failed (2 of 2)" in text
    assert "tool error: call #2 after_sales_create_ticket (rule): Order O-2026-001200 line 1 is past" in text
    assert "agent stderr (last lines):" in text
    assert "every after_sales_find_orders" not in explain(built.tasks[2].results[0])  # that call did not fail


def test_the_page_is_self_contained_and_escapes_every_text_the_agent_wrote(run):
    _, _, page = run
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"<script|<img|<link|<iframe|https?://|url\(|@import", page, re.IGNORECASE)
    assert page.count("&lt;script&gt;alert(&quot;agent&quot;)&lt;/script&gt;") >= 4  # answer, stderr, problem, diff


def test_a_problem_naming_a_call_marks_that_call_on_the_timeline_and_links_to_it(run):
    _, _, page = run
    refused = trial_of(page, "refund-refused")
    marked = re.findall(r'<li class="([^"]*)" id="trial-refund-refused-1-(\d)"', refused)
    assert marked == [("call ok", "1"), ("call tool_error", "2"), ("call tool_error failed", "3")]
    assert '<a href="#trial-refund-refused-1-3">call #3</a>' in refused
    missed = trial_of(page, "customer-misses")
    assert re.search(r'<li class="turn customer failed" id="trial-customer-misses-1-2">', missed)
    assert re.search(r'<li class="call ok failed" id="trial-customer-misses-1-3">', missed)  # the conversation rule


def test_each_trial_shows_its_form_rounds_the_events_the_task_played_and_the_diff_by_row(run):
    _, _, page = run
    passing = trial_of(page, "refund-passes")
    assert "answered by script" in passing and "asked refund_method (input_required)" in passing
    assert "<details" in page and 'id="trial-refund-passes-1" open' not in page  # a pass starts folded
    refused = trial_of(page, "refund-refused")
    assert "the task moved the world&#x27;s clock 31m on after this call" in refused
    assert [row for row in ("added", "changed", "removed") if f'<tr class="{row}">' in refused] == [
        "added",
        "changed",
        "removed",
    ]
    assert "status: open → &lt;script&gt;" in refused
    assert "ran out of time" in trial_of(page, "slow-agent")
    assert "identical: the world did not change" in trial_of(page, "slow-agent")


def test_the_page_shows_the_comparison_with_a_base_run_when_one_is_given(run, tmp_path: Path):
    folder, built, _ = run
    base = a_run(tmp_path, hashes={"refund-refused": "sha256:dddd"})
    compared = compare.compare(base, built, "var/base", str(folder))
    page = report_html.page(built, folder, compared)
    section = page[page.index('<section id="comparison">') :]
    assert "Against var/base" in section and "sha256:dddd"[:12] in section
    assert "<code>sha256:cccc</code>" in section and "worse: <b>none</b>" in section


def test_the_task_events_are_marked_on_the_calls_they_followed():
    trace = [{"seq": 1, "tool": ESTIMATE, "outcome": "ok"}, {"seq": 2, "tool": CREATE, "outcome": "ok"}]
    marked = mark_faults(trace, [(CREATE, 1)], {(ESTIMATE, 1): "40m"})
    assert marked[0]["advanced"] == "40m" and "fault" not in marked[0]
    assert marked[1]["fault"] == "response_lost" and "advanced" not in marked[1]
    printed = describe(marked)
    assert "    event: the task moved the world's clock 40m on after this call" in printed
    assert "    event: the task dropped this call's answer: it took effect, the agent got an error" in printed


def test_trace_view_prints_any_trajectory_file_and_writes_its_page(run, tmp_path: Path, capsys):
    folder, _, _ = run
    assert main(["trace", "view", str(folder / "trajectories" / "refund-refused.1.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("#1  2026-12-01T09:00:00Z  agent  after_sales_estimate_refund  ok")
    assert "#3  2026-12-01T09:00:00Z  agent  after_sales_create_ticket  tool_error (rule)" in printed
    old = tmp_path / "old.jsonl"  # a line from before latency, protocol and rounds were written
    old.write_text(json.dumps({"seq": 1, "tool": CREATE, "outcome": "ok", "arguments": {}}) + "\n", encoding="utf-8")
    assert main(["trace", "view", str(old), "--html", str(tmp_path / "old.html")]) == 0
    assert "after_sales_create_ticket  ok  0.0 ms" in (tmp_path / "old.html").read_text(encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text('{"seq": 1}\nnot json\n', encoding="utf-8")
    assert main(["trace", "view", str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl line 2 is not JSON" in capsys.readouterr().err
