"""The targets of issues #16 and #29 judged on one run's figures, printed as tables and as markdown for the docs.

docs/performance.md shows the markdown; `python -m bench.report` prints it again from a stored run.
"""

from typing import Any

from bench import eval as evaluation
from bench.worlds import TARGETS as WORLD_TARGETS

RATIOS = {"query_ticket": 0.75, "estimate_refund": 0.6, "create_ticket": 0.4}
TWO_ROUND = 2.5
WORKERS = 1.6
CONCURRENT_CREATES = 1.5  # creates on distinct lines, 2 workers / 1 at 16 connections: one shared lock keeps it near 1
SCALE = 1.2
PINNED = "SQLite, one CPU each (`--pin-cpus`)"  # the same server and floor pinned: shown, not judged (not the default)
BACKENDS = (("SQLite", "throughput"), ("PostgreSQL", "postgresql"))

# Issue #29: the ratios to the floor, the two-round create, the FastMCP peer, and the mixed load's p99.
STACK_RATIOS = {
    ("SQLite", "query_ticket"): 0.7,
    ("SQLite", "estimate_refund"): 0.55,
    ("SQLite", "create_ticket"): 0.35,
    ("PostgreSQL", "query_ticket"): 0.65,
    ("PostgreSQL", "create_ticket"): 0.35,
}
STACK_TWO_ROUND = 3.0
PEER = 1.5
# The mixed load's p99 in ms before this changes of where database work runs and how the heap is collected,
# by backend, which no change may make worse: the `make bench` of 2026-12-02 16:09 UTC at 53fc645 on a quiet machine
# (nothing else running; the first measurement, at ecd992b on a machine shared with other work, gave 376 and 252 ms,
# spread 147 to 902 over its rounds, and was too noisy to hold a change to). A backend without one is judged against
# the run itself.
MIXED_P99_MS: dict[str, float] = {"SQLite": 126.46, "PostgreSQL": 144.18}
SHORT = {
    "query_ticket": "query",
    "estimate_refund": "estimate",
    "create_ticket": "create",
    "input_required_create": "two-round create",
    "mixed": "mixed",
}


def _target(name: str, figure: float, limit: float, at_least: bool) -> dict[str, Any]:
    holds = figure >= limit if at_least else figure <= limit
    return {"target": name, "figure": figure, "limit": f"{'>=' if at_least else '<='} {limit}", "holds": holds}


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target with the figure this run measured and whether it holds."""
    found = []
    for backend, key in (("SQLite", "throughput"), ("PostgreSQL", "postgresql")):
        section = result.get(key)
        if not section:
            continue
        rows = {row["scenario"]: row for row in section["scenarios"]}
        for name, limit in RATIOS.items():
            if backend == "SQLite" or name == "create_ticket":
                found.append(
                    _target(f"{backend}: {name} / floor throughput", rows[name]["ratio_to_floor"], limit, True)
                )
        found.append(
            _target(
                f"{backend}: two-round create / query p50, one connection",
                section["two_round_to_query_p50"],
                TWO_ROUND,
                False,
            )
        )
        if backend == "PostgreSQL":
            concurrent = section["concurrent_creates"]
            if "workers_scaling" in concurrent:  # runs before it judged 16 / 1 connections, which CPU caps as well
                name = "PostgreSQL: creates at 16 connections, 2 workers / 1 (not serialised)"
                found.append(_target(name, concurrent["workers_scaling"], CONCURRENT_CREATES, True))
            else:
                name = "PostgreSQL: creates at 16 connections / at 1 (not serialised)"
                found.append(_target(name, concurrent["ratio"], CONCURRENT_CREATES, True))
    if "workers_scaling" in result:
        found.append(_target("2 workers / 1 worker query throughput", result["workers_scaling"], WORKERS, True))
    if "memory" in result:
        leak = result["memory"]["leak_check"]
        found.append(
            _target(
                f"RSS growth over {leak['seconds']:.0f} s at full load", leak["growth"], leak["growth_limit"], False
            )
        )
    if result.get("scale"):
        last = result["scale"][-1]
        found.append(
            _target(
                f"query p50 at {last['tickets']:,} / at {result['scale'][0]['tickets']:,} tickets",
                last["query_p50_ratio"],
                SCALE,
                False,
            )
        )
    for backend, figures in result.get("worlds", {}).items():
        for what in ("fork", "reset"):
            found.append(
                _target(
                    f"worlds on {backend}: {what} p50 ms",
                    figures[f"{what}_ms_p50"],
                    WORLD_TARGETS[backend][what],
                    False,
                )
            )
    for key, mode in (("eval", "brief"), ("eval_conversation", "conversation")):
        if key in result:
            run = result[key]
            name = (
                f"eval ({mode}): {run['tasks']} tasks x {run['trials']} trials, seconds "
                f"(pass^{run['trials']} {run['passed']})"
            )
            found.append(
                {**_target(name, run["seconds"], run["target_seconds"], False), "holds": evaluation.holds(run)}
            )
    return found


def stack_targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The eight targets of issue #29, each with this run's figure (and its parts) and whether it holds."""
    sections = {backend: result[key] for backend, key in BACKENDS if result.get(key)}
    found = []
    for (backend, scenario), limit in STACK_RATIOS.items():
        if backend in sections:
            rows = {row["scenario"]: row for row in sections[backend]["scenarios"]}
            row = _target(f"{backend} {SHORT[scenario]} / floor", rows[scenario]["ratio_to_floor"], limit, True)
            wrk = result.get("wrk", {})
            if (backend, scenario) == ("SQLite", "query_ticket") and "ratio" in wrk:
                row["detail"] = f"wrk {wrk['ratio']}"
            found.append(row)
    if not sections:
        return found
    two_round = {backend: section["two_round_to_query_p50"] for backend, section in sections.items()}
    found.append(
        {
            **_target(
                "two-round create / query p50, one connection, " + " and ".join(sections),
                max(two_round.values()),
                STACK_TWO_ROUND,
                False,
            ),
            "detail": ", ".join(f"{backend} {figure}" for backend, figure in two_round.items()),
        }
    )
    peer = {
        f"{backend} {SHORT[row['scenario']]}": row["ratio_to_fastmcp"]
        for backend, section in sections.items()
        for row in section["scenarios"]
        if row.get("ratio_to_fastmcp") is not None
    }
    if peer:
        parts = [f"{name} {figure}" for name, figure in peer.items()]
        if result.get("wrk", {}).get("ratio_to_fastmcp") is not None:
            parts.append(f"wrk SQLite query {result['wrk']['ratio_to_fastmcp']}")
        found.append(
            {
                **_target("each scenario / the FastMCP peer (the lowest)", min(peer.values()), PEER, True),
                "detail": ", ".join(parts),
            }
        )
    mixed = {
        backend: section["mixed_load"]["p99_ms"] for backend, section in sections.items() if "mixed_load" in section
    }
    if mixed:
        before = {backend: MIXED_P99_MS.get(backend, figure) for backend, figure in mixed.items()}
        worst = max(figure / before[backend] for backend, figure in mixed.items())
        found.append(
            {
                **_target("p99 of the mixed load / before (the highest)", round(worst, 3), 1.0, False),
                "detail": ", ".join(
                    f"{backend} {figure} ms (before {before[backend]})" for backend, figure in mixed.items()
                ),
            }
        )
    return found


def _cell(value: Any) -> str:
    return "—" if value is None else str(value)


def markdown(result: dict[str, Any]) -> str:
    """The tables of docs/performance.md: scenarios per backend, then every target with HOLDS or MISSES."""
    lines = [
        "| backend | scenario | rps | p50 ms | p95 ms | × floor | × FastMCP |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for backend, key in (*BACKENDS, (PINNED, "pinned")):
        section = result.get(key)
        if not section:
            continue
        floor = section["floor"]
        lines.append(
            f"| {backend} | floor (no-op tool) | {floor['rps']} | {floor['p50_ms']} | {floor['p95_ms']} | 1.0 | — |"
        )
        for row in section["scenarios"]:
            lines.append(
                f"| {backend} | `{row['scenario']}` | {row['rps']} | {row['p50_ms']} | {row['p95_ms']} | "
                f"{row['ratio_to_floor']} | {_cell(row.get('ratio_to_fastmcp'))} |"
            )
    peers = [(backend, result[key]["fastmcp"]) for backend, key in BACKENDS if "fastmcp" in result.get(key, {})]
    if peers:
        lines += [
            "",
            "| backend | FastMCP peer | rps | p50 ms | p95 ms | failures |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for backend, peer in peers:
            for row in peer["scenarios"]:
                lines.append(
                    f"| {backend} | `{row['scenario']}` | {row['rps']} | {row['p50_ms']} | {row['p95_ms']} | "
                    f"{row['failures']} |"
                )
    mixes = [(backend, result[key]["mixed_load"]) for backend, key in BACKENDS if "mixed_load" in result.get(key, {})]
    if mixes:
        lines += [
            "",
            "| mixed load, 16 connections | rps | p50 ms | p99 ms | FastMCP rps | FastMCP p50 ms | FastMCP p99 ms |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for backend, mixed in mixes:
            peer = mixed["fastmcp"]
            lines.append(
                f"| {backend} | {mixed['rps']} | {mixed['p50_ms']} | {mixed['p99_ms']} | {peer['rps']} | "
                f"{peer['p50_ms']} | {peer['p99_ms']} |"
            )
    if result.get("targets_issue_29"):
        lines += ["", "| target (issue #29) | figure | needed | |", "| --- | --- | --- | --- |"]
        for target in result["targets_issue_29"]:
            verdict = "HOLDS" if target["holds"] else "**MISSES**"
            figure = f"{target['figure']} ({target['detail']})" if target.get("detail") else target["figure"]
            lines.append(f"| {target['target']} | {figure} | {target['limit']} | {verdict} |")
    lines += ["", "| target (issue #16) | figure | needed | |", "| --- | --- | --- | --- |"]
    for target in result["targets"]:
        verdict = "HOLDS" if target["holds"] else "**MISSES**"
        lines.append(f"| {target['target']} | {target['figure']} | {target['limit']} | {verdict} |")
    return "\n".join(lines)


def show(result: dict[str, Any]) -> None:
    """Everything worth reading, then the markdown to paste into docs/performance.md."""
    print("\n=== aftersales benchmark ===")
    print(f"machine: {result['machine']}; {result['settings']['rounds']} rounds, medians")
    if "workers" in result:
        workers = result["workers"]
        print(
            f"\nworkers: query x2 / x1 = {workers['workers_scaling']}; "
            f"the floor the same way: {workers['floor_scaling']}"
        )
    if "wrk" in result:
        print(f"wrk cross-check: {result['wrk']}")
    if "memory" in result:
        leak = result["memory"]["leak_check"]
        print(f"memory: RSS {leak['rss_mb_after_warmup']} -> {leak['rss_mb_at_end']} MB ({leak['calls']} calls)")
        for server, pids in result["memory"]["peak_rss_mb"].items():
            print(f"  peak RSS {server}: {pids}")
    for name, figures in result.get("worlds", {}).items():
        print(f"worlds {name}: fork p50 {figures['fork_ms_p50']} ms, reset p50 {figures['reset_ms_p50']} ms")
    for row in result.get("scale", []):
        print(f"scale {row['tickets']:>9,} tickets: query p50 {row['query']['p50_ms']} ms ({row['query_p50_ratio']})")
    for backend, key in BACKENDS:
        if "mixed_load" in result.get(key, {}):
            mixed, peer = result[key]["mixed_load"], result[key]["mixed_load"]["fastmcp"]
            print(
                f"mixed load on {backend}: {mixed['rps']} rps, p50 {mixed['p50_ms']} ms, p99 {mixed['p99_ms']} ms; "
                f"the FastMCP peer {peer['rps']} rps, p50 {peer['p50_ms']} ms, p99 {peer['p99_ms']} ms"
            )
    for title, key in (("targets (issue #16)", "targets"), ("targets (issue #29)", "targets_issue_29")):
        print(f"\n{title}:")
        for target in result.get(key, []):
            verdict = "HOLDS " if target["holds"] else "MISSES"
            detail = f" [{target['detail']}]" if target.get("detail") else ""
            print(f"  {verdict} {target['target']}: {target['figure']}{detail} (needed {target['limit']})")
    print("\nmarkdown for the tables of docs/performance.md:\n")
    print(markdown(result))


if __name__ == "__main__":
    # `python -m bench.report [results.json]`: docs/performance.md's tables again from a stored run, without measuring.
    import json
    import sys
    from pathlib import Path

    stored = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results" / "latest.json")
    print(markdown(json.loads(stored.read_text())))
