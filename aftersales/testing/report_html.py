"""report.html: one self-contained page of an eval run (inline CSS, no script, nothing fetched), for a team to read.

The run's pass^k table; the comparison with a base run when one is given; per task its trials; per trial why it
failed, the agent's answer and the end of its stderr, the timeline (customer turns, tool calls with arguments and
results, form rounds with who answered, the events the task played), each problem that names a call or turn
(`call #3`) marked on that entry, and the world's diff as added, changed and removed rows. Every text the page
shows comes from the report, the trajectories or the agent, so all of it is escaped.
"""

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from aftersales.testing.compare import Comparison, Side
from aftersales.testing.comparison import read
from aftersales.testing.report import Report, TaskReport, TrialReport, problems, refusals
from aftersales.testing.scoring import Verdict
from aftersales.worlds.timeline import EMPTY, Shown, timeline

NAMED = re.compile(r"\b(?:call|turn) #(\d+)")  # how a problem names the entry it is about
STYLE = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #59636e; --line: #d1d9e0; --mark: #fff1e5; }
* { box-sizing: border-box; }
body {
    margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa;
}
main { max-width: 1400px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0; }
h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
section > h2:first-child { margin-top: 0; }
section, details.trial {
    background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin: 12px 0;
}
details.trial { padding: 0; }
details.trial > summary { padding: 10px 16px; cursor: pointer; font-weight: 600; }
details.trial > .body { padding: 0 16px 12px; border-top: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
pre, code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre {
    white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; background: #f6f8fa; padding: 6px 8px;
    border-radius: 4px;
}
.meta { display: flex; flex-wrap: wrap; gap: 4px 20px; color: var(--muted); margin: 0; }
.verdict {
    display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff;
    background: var(--bad);
}
.verdict.pass, .status.better { background: var(--ok); }
.verdict.customer_miss, .verdict.timeout { background: var(--warn); }
.verdict.infrastructure { background: #6e7781; }
.status {
    display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; color: #fff; background: #6e7781;
}
.status.worse { background: var(--bad); }
.why { border-left: 4px solid var(--bad); background: #ffebe9; padding: 6px 12px; margin: 10px 0; }
.why ul { margin: 4px 0; padding-left: 20px; }
ol.timeline { list-style: none; padding: 0; margin: 0; }
ol.timeline > li { border-left: 4px solid var(--line); padding: 6px 10px; margin: 6px 0; background: #fff; }
li.turn { border-left-color: #8250df !important; background: #fbf8ff !important; }
li.call.tool_error, li.call.protocol_error { border-left-color: var(--bad); }
li.call.input_required { border-left-color: var(--warn); }
li.failed { background: var(--mark) !important; outline: 2px solid var(--bad); }
.head {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; font-weight: 600;
    overflow-wrap: anywhere;
}
dl.details { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 4px 0 0; }
dl.details dt { color: var(--muted); }
dl.details dd { margin: 0; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
dd.error, dt.error { color: var(--bad); }
dd.event, dt.event { color: var(--warn); font-weight: 600; }
dd.miss, dt.miss { color: var(--warn); }
dd.answered, dt.answered { color: var(--ok); }
p.problem { color: var(--bad); font-weight: 600; margin: 6px 0 0; }
table.diff td.change { font-weight: 600; white-space: nowrap; }
tr.added td.change { color: var(--ok); }
tr.removed td.change { color: var(--bad); }
tr.changed td.change { color: var(--warn); }
.fields { display: flex; flex-wrap: wrap; gap: 2px 12px; }
.fields code { overflow-wrap: anywhere; }
.muted { color: var(--muted); }
a { color: #0969da; }
"""


def page(report: Report, folder: Path, comparison: Comparison | None = None) -> str:
    """The whole report as one HTML document; trajectories are read from `folder` (the eval's --out)."""
    title = f"aftersales eval: {report.agent}"
    body = [
        f"<h1>{_e(title)}</h1>",
        _meta(report),
        _summary(report),
        _compared(comparison) if comparison is not None else "",
        _skipped(report.skipped),
        *(_task(task, folder) for task in report.tasks),
    ]
    return _document(title, "".join(body))


def trajectory_page(entries: Sequence[Mapping[str, Any]], name: str) -> str:
    """One trajectory on its own (`aftersales trace view FILE --html OUT`)."""
    return _document(name, f"<h1>{_e(name)}</h1><section>{_timeline(entries, {}, name)}</section>")


def _document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>\n"
    )


def _meta(report: Report) -> str:
    shown = [
        ("started", report.started_at),
        ("took", f"{report.duration_s:.1f} s"),
        ("trials per task", str(report.trials_per_task)),
        ("mode", report.mode),
        ("forms answered by", report.forms),
    ]
    if report.customer:
        shown.append(("customer", report.customer))
    if report.judge:
        shown.append(("judge", report.judge))
    if report.tool_descriptions is not None:
        shown.append(("tool descriptions", f"{report.tool_descriptions.name} {report.tool_descriptions.sha256[:12]}"))
    return (
        '<p class="meta">' + "".join(f"<span>{_e(name)}: <b>{_e(value)}</b></span>" for name, value in shown) + "</p>"
    )


def _summary(report: Report) -> str:
    """pass^k per task and overall, the verdicts, each task linked to its section."""
    ks = list(report.overall.pass_hat_k)
    head = _k_heads(ks)
    rows = []
    for task in report.tasks:
        figures = "".join(f'<td class="num">{task.pass_hat_k.get(k, 0.0):.3f}</td>' for k in ks)
        rows.append(
            f'<tr><td><a href="#{_id("task", task.id)}">{_e(task.id)}</a></td>'
            f'<td class="num">{task.passed}/{task.trials}</td>{figures}<td>{_verdicts(task.verdicts)}</td></tr>'
        )
    overall = report.overall
    figures = "".join(f'<td class="num"><b>{value:.3f}</b></td>' for value in overall.pass_hat_k.values())
    rows.append(
        f'<tr><td><b>overall ({overall.tasks} tasks)</b></td><td class="num"><b>{overall.passed}/{overall.trials}'
        f"</b></td>{figures}<td>{_verdicts(overall.verdicts)}</td></tr>"
    )
    misses = overall.verdicts.get("customer_miss", 0)
    clean = "".join(f'<td class="num">{overall.pass_hat_k_without_customer_misses.get(k, 0.0):.3f}</td>' for k in ks)
    rows.append(
        f'<tr><td>without customer misses ({misses} left out)</td><td class="num">{overall.passed}/'
        f"{overall.trials - misses}</td>{clean}<td></td></tr>"
    )
    table = f'<table><tr><th>task</th><th class="num">passed</th>{head}<th>verdicts</th></tr>{"".join(rows)}</table>'
    return f'<section id="summary"><h2>pass^k</h2>{table}</section>'


def _k_heads(ks: list[str]) -> str:
    """The pass^k column heads of a table."""
    return "".join(f'<th class="num">pass^{_e(k)}</th>' for k in ks)


def _verdicts(verdicts: Mapping[Verdict, int]) -> str:
    return " ".join(
        f'<span class="verdict {_e(name)}">{count} {_e(name)}</span>' for name, count in verdicts.items() if count
    )


def _compared(comparison: Comparison) -> str:
    """The comparison with the base run: per task the pass rate and pass^k before and after, then changed hashes."""
    ks = sorted(
        {k for task in comparison.tasks for side in (task.base, task.new) if side for k in side.pass_hat_k}, key=int
    )
    head = _k_heads(ks)
    rows = []
    for task in comparison.tasks:
        figures = "".join(f'<td class="num">{_e(_pair(task.base, task.new, k))}</td>' for k in ks)
        rows.append(
            f'<tr class="{_e(task.status)}"><td>{_e(task.id)}</td><td><span class="status {_e(task.status)}">'
            f'{_e(task.status)}</span></td><td class="num">{_e(_pair(task.base, task.new, None))}</td>{figures}</tr>'
        )
    changed = "".join(
        f'<tr><td>{_e(change.task)}</td><td class="num">{change.trial}</td><td><code>{_e(change.base_hash[:12])}'
        f"</code> → <code>{_e(change.new_hash[:12])}</code></td><td>{_e(change.base_verdict)} → "
        f"{_e(change.new_verdict)}</td></tr>"
        for change in comparison.hash_changed
    )
    hashes = f"<h3>Trials whose world hash changed ({len(comparison.hash_changed)})</h3>" + (
        f'<table><tr><th>task</th><th class="num">trial</th><th>world hash</th><th>verdict</th></tr>{changed}</table>'
        if changed
        else '<p class="muted">none: every trial left the world as in the base run</p>'
    )
    named = (
        f"<p>worse: <b>{_e(', '.join(comparison.worse) or 'none')}</b>; better: "
        f"<b>{_e(', '.join(comparison.better) or 'none')}</b> (threshold {comparison.threshold:g})</p>"
    )
    table = f'<table><tr><th>task</th><th>status</th><th class="num">pass rate</th>{head}</tr>{"".join(rows)}</table>'
    title = f"<h2>Against {_e(comparison.base)}</h2>"
    return f'<section id="comparison">{title}{named}{table}{hashes}</section>'


def _pair(base: Side | None, new: Side | None, k: str | None) -> str:
    def one(side: Side | None) -> str:
        value = None if side is None else side.pass_rate if k is None else side.pass_hat_k.get(k)
        return "-" if value is None else f"{value:.3f}"

    return f"{one(base)} → {one(new)}"


def _skipped(skipped: Mapping[str, str]) -> str:
    if not skipped:
        return ""
    items = "".join(f"<li><b>{_e(task)}</b>: {_e(why)}</li>" for task, why in skipped.items())
    return f'<section id="skipped"><h2>Skipped</h2><ul>{items}</ul></section>'


def _task(task: TaskReport, folder: Path) -> str:
    figures = ", ".join(f"pass^{k} {value:.3f}" for k, value in task.pass_hat_k.items())
    change = "expects a change" if task.change else "expects no change"
    head = (
        f'<h2 id="{_id("task", task.id)}">{_e(task.id)}: {_e(task.title)}</h2>'
        f'<p class="meta"><span>{task.passed}/{task.trials} passed</span><span>{_e(figures)}</span>'
        f"<span>{_e(change)}</span><span>{task.end_states} end state(s)</span></p>"
    )
    return head + "".join(_trial(task.id, trial, folder) for trial in task.results)


def _trial(task_id: str, trial: TrialReport, folder: Path) -> str:
    """One trial: open when it failed, with why, what the agent said, the timeline and the diff."""
    anchor = _id("trial", task_id, str(trial.trial))
    found: list[tuple[str, str]] = problems(trial)
    marks: dict[int, list[str]] = {}
    for part, problem in [*found, *(("customer", miss) for miss in trial.customer_misses)]:
        for seq in NAMED.findall(problem):
            marks.setdefault(int(seq), []).append(f"{part}: {problem}")
    parts = ", ".join(trial.failed_parts)
    summary = (
        f'<summary>trial {trial.trial} <span class="verdict {_e(trial.verdict)}">{_e(trial.verdict)}</span>'
        f"{' <span class=muted>failed: ' + _e(parts) + '</span>' if parts else ''}"
        f' <span class="muted">{trial.duration_s:.1f} s, exit {_e(str(trial.exit_code))}</span></summary>'
    )
    entries = _entries(folder, trial.trajectory)
    body = [
        _why(trial, found, anchor) if not trial.passed else "",
        "<h3>Answer (stdout)</h3>" + _pre(trial.answer or "(nothing on stdout)", "answer"),
        ("<h3>stderr (last lines)</h3>" + _pre(trial.stderr, "stderr")) if trial.stderr else "",
        "<h3>Timeline</h3>"
        + (_timeline(entries, marks, anchor) if entries is not None else '<p class="muted">no trajectory</p>'),
        "<h3>World diff</h3>" + _diff(trial.diff),
    ]
    opened = "" if trial.passed else " open"
    classes = f"trial {_e(trial.verdict)}"
    return (
        f'<details class="{classes}" id="{anchor}"{opened}>{summary}<div class="body">{"".join(body)}</div></details>'
    )


def _why(trial: TrialReport, found: list[tuple[str, str]], anchor: str) -> str:
    """Every reason the trial failed; a problem that names an entry links to it on the timeline."""
    lines = [_linked(f"{part}: {problem}", anchor) for part, problem in found]
    lines += [_e(f"infrastructure: {problem}") for problem in trial.infrastructure]
    lines += [_linked(f"customer: {miss}", anchor) for miss in trial.customer_misses]
    lines += [_e(f"judgement fails: {j.assertion} ({j.reasoning})") for j in trial.judgements if j.outcome == "fails"]
    if trial.timed_out:
        lines.append("agent: ran out of time (stopped at the timeout)")
    lines += [
        _e(f"mentions: the answer does not mention {fact!r}") for fact, said in trial.mentions.items() if not said
    ]
    lines += [_linked(line, anchor) for line in refusals(trial)]
    items = "".join(f"<li>{line}</li>" for line in lines)
    return f'<div class="why"><b>Why it failed</b><ul>{items}</ul></div>'


def _linked(text: str, anchor: str) -> str:
    """The text escaped, each `call #N` in it a link to that entry."""
    out, at = [], 0
    for found in NAMED.finditer(text):
        out.append(_e(text[at : found.start()]))
        out.append(f'<a href="#{anchor}-{found.group(1)}">{_e(found.group())}</a>')
        at = found.end()
    return "".join(out) + _e(text[at:])


def _entries(folder: Path, trajectory: str) -> list[dict[str, Any]] | None:
    path = folder / trajectory if trajectory else None
    return read(path) if path is not None and path.is_file() else None


def _timeline(entries: Sequence[Mapping[str, Any]], marks: Mapping[int, list[str]], anchor: str) -> str:
    """The entries as the shared renderer shows them, the ones a problem names marked."""
    if not entries:
        return f'<p class="muted">{_e(EMPTY)}</p>'
    return (
        '<ol class="timeline">'
        + "".join(_entry(shown, marks.get(shown.seq, []), anchor) for shown in timeline(entries))
        + "</ol>"
    )


def _entry(shown: Shown, marked: list[str], anchor: str) -> str:
    classes = " ".join(_e(name) for name in (shown.kind, shown.outcome, "failed" if marked else "") if name)
    rows = []
    for detail in shown.details:
        if detail.json:
            value = _pre(json.dumps(detail.value, ensure_ascii=False, indent=2))
        else:  # a turn's words and an error's message whole, as said, where the text form quotes or cuts them
            value = _e(detail.value if isinstance(detail.value, str) else detail.text)
        tone = f' class="{_e(detail.tone)}"' if detail.tone else ""
        rows.append(f"<dt{tone}>{_e(detail.label or '·')}</dt><dd{tone}>{value}</dd>")
    problems_ = "".join(f'<p class="problem">✗ {_e(problem)}</p>' for problem in marked)
    return (
        f'<li class="{classes}" id="{anchor}-{shown.seq}"><div class="head">{_e(shown.head)}</div>'
        f'<dl class="details">{"".join(rows)}</dl>{problems_}</li>'
    )


def _diff(diff: Mapping[str, Any]) -> str:
    """The world's diff: per table its added, changed and removed rows."""
    tables = diff.get("tables")
    if tables is None:
        return '<p class="muted">no diff (the world was not read back)</p>'
    hashes = f"{diff.get('before', {}).get('hash', '')[:12]} → {diff.get('after', {}).get('hash', '')[:12]}"
    if not tables:
        return f'<p class="muted">identical: the world did not change ({_e(hashes)})</p>'
    out = [f'<p class="muted">world hash {_e(hashes)}</p>']
    for name, entry in tables.items():
        rows = [_row("added", item["key"], _fields(item["row"], item["key"])) for item in entry.get("added", [])]
        rows += [_row("changed", item["key"], _changes(item["fields"])) for item in entry.get("changed", [])]
        rows += [_row("removed", item["key"], _fields(item["row"], item["key"])) for item in entry.get("removed", [])]
        head = "<tr><th></th><th>key</th><th>fields</th></tr>"
        out.append(f'<h3>{_e(name)}</h3><table class="diff">{head}{"".join(rows)}</table>')
    return "".join(out)


def _row(change: str, key: Mapping[str, Any], fields: str) -> str:
    shown = "/".join(str(value) for value in key.values())
    return (
        f'<tr class="{change}"><td class="change">{change}</td><td><code>{_e(shown)}</code></td><td>{fields}</td></tr>'
    )


def _fields(row: Mapping[str, Any], key: Mapping[str, Any]) -> str:
    pairs = (f"<code>{_e(column)}={_e(_value(value))}</code>" for column, value in row.items() if column not in key)
    return f'<div class="fields">{"".join(pairs)}</div>'


def _changes(fields: Mapping[str, Any]) -> str:
    pairs: Iterable[str] = (
        f"<code>{_e(name)}: {_e(_value(change.get('before')))} → {_e(_value(change.get('after')))}</code>"
        for name, change in fields.items()
    )
    return f'<div class="fields">{"".join(pairs)}</div>'


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _pre(text: str, tone: str = "") -> str:
    return f'<pre class="{_e(tone)}">{_e(text)}</pre>' if tone else f"<pre>{_e(text)}</pre>"


def _id(*parts: str) -> str:
    """An element id from task ids and numbers (ids are slugs; anything else is replaced)."""
    return "-".join(re.sub(r"[^A-Za-z0-9_-]", "_", part) for part in parts)


def _e(text: str) -> str:
    return escape(str(text), quote=True)
