"""The official MCP conformance suite's server scenarios: run them, and judge the results against a baseline.
Its authorization-server scenarios too, against the authorization server the OAuth tests use.

The suite runs one revision's requirement set (`--requirements 2026-07-28`) and writes one checks.json per
scenario. A check fails when its status is FAILURE or WARNING, as in the suite's own baseline mode. The baseline
(tests/e2e/conformance-expected-failures.yml) names, per revision, the scenarios or single checks that do not
apply to this server, each with its reason, in the suite's notation: `scenario` or `scenario:check-id`.
"""

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.support import node
from tests.support.free_ports import free_port

PACKAGE = node.MODULES / "@modelcontextprotocol" / "conformance"
FAILING = {"FAILURE", "WARNING"}


@dataclass(frozen=True)
class Verdict:
    """What differs from the baseline: failures it does not list, and entries that now pass."""

    unexpected: list[str]
    stale: list[str]


def judged_scenarios(revision: str) -> list[str]:
    """The server scenarios a revision requires, plus those run but not scored for a reason other than being
    an optional extension (added after the release, or pending): this server must pass those too."""
    requirements = yaml.safe_load((PACKAGE / "requirements" / f"{revision}.yaml").read_text())
    extra = [
        entry["scenario"]
        for entry in requirements.get("not_scored", [])
        if entry["leg"] == "server" and entry["reason"] != "extension"
    ]
    return [*requirements["server"], *extra]


def run_suite(url: str, revision: str, out_dir: Path, timeout: float = 300) -> dict[str, list[dict[str, Any]]]:
    """Run a revision's server scenarios against `url`; return each scenario's checks."""
    suite = [str(node.ensure_installed()), str(PACKAGE / "dist" / "index.js"), "server"]
    completed = subprocess.run(
        [*suite, "--url", url, "--requirements", revision, "--output-dir", str(out_dir)],
        cwd=node.TS_DIR,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    results: dict[str, list[dict[str, Any]]] = {}
    for checks in out_dir.glob("*/checks.json"):
        # Folders are named server-<scenario>-<timestamp>.
        scenario = re.sub(r"^server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks.parent.name)
        results[scenario] = json.loads(checks.read_text())
    if not results:
        raise AssertionError(f"the conformance suite wrote no results:\n{completed.stdout[-3000:]}{completed.stderr}")
    return results


def run_authorization(
    issuer: str, client_id: str, resource: str, approve: Callable[[str], None], out_dir: Path, timeout: float = 60
) -> dict[str, list[dict[str, Any]]]:
    """Run the authorization-server scenarios against `issuer` with a public client; return each one's checks.

    The authorization-code scenario prints the authorization URL for a person to open in a browser and waits for
    the redirect at its own loopback callback: `approve` is that person (it signs in, allows, and follows the
    redirect to the callback).
    """
    command = [
        str(node.ensure_installed()),
        *(str(PACKAGE / "dist" / "index.js"), "authorization", "--url", issuer, "--client-id", client_id),
        *("--resource", resource, "--port", str(free_port()), "--output-dir", str(out_dir)),
    ]
    printed = []
    with subprocess.Popen(
        command, cwd=node.TS_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as suite:
        assert suite.stdout is not None
        try:
            for line in suite.stdout:
                printed.append(line)
                if line.startswith(f"{issuer}/"):  # the one URL it asks a person to open
                    approve(line.strip())
            suite.wait(timeout)
        except BaseException:
            suite.kill()  # it would wait five minutes for a callback that will not come
            raise
    results = {
        re.sub(r"^authorization-server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks.parent.name): json.loads(
            checks.read_text()
        )
        for checks in out_dir.glob("*/checks.json")
    }
    if not results:
        raise AssertionError(f"the conformance suite wrote no results:\n{''.join(printed)[-3000:]}")
    return results


def expected_failures(path: Path, revision: str) -> dict[str, str]:
    """The baseline for one revision: entry -> reason."""
    return yaml.safe_load(path.read_text()).get(revision) or {}


def judge(results: dict[str, list[dict[str, Any]]], scenarios: list[str], expected: dict[str, str]) -> Verdict:
    """Compare results with the baseline the way the suite's baseline mode does."""
    whole = {entry for entry in expected if ":" not in entry}
    unexpected, stale = [], []
    for scenario in scenarios:
        checks = results.get(scenario)
        if checks is None:
            unexpected.append(f"{scenario}: no results (the scenario did not run)")
            continue
        failing = [c for c in checks if c["status"] in FAILING]
        if scenario in whole:
            if not failing:
                stale.append(scenario)
            continue
        for check in failing:
            entry = f"{scenario}:{check['id']}"
            if entry not in expected:
                unexpected.append(f"{entry} {check['status']}: {check.get('errorMessage', '')}")
        statuses = {c["id"]: c["status"] for c in checks}
        stale += [e for e in expected if e.startswith(f"{scenario}:") and statuses.get(e.split(":", 1)[1]) == "SUCCESS"]
    judged = set(scenarios)
    stale += [f"{e} (not a scenario this revision judges)" for e in expected if e.split(":", 1)[0] not in judged]
    return Verdict(unexpected, stale)
