"""The docs' walk-throughs (the README's first call, worlds by command line and by curl), run as written on a server."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from aftersales.worlds.model import ADMIN_SCOPE
from tests.support import docs
from tests.support.clients import bearer_token
from tests.support.serve import ServeProcess

# The blocks the README and docs/ say this file runs (each marked `<!-- runs in make test: ... -->` on its page).
BLOCKS = docs.blocks_run_by(docs.relative(__file__))
CLI = BLOCKS["docs/testing-agents.md", "From the command line", "sh"]
CURL = BLOCKS["docs/testing-agents.md", "Over HTTP, from a harness in any language", "sh"]
FIRST_CALL = BLOCKS["README.md", "Deploying a customer-service agent", "sh"]
FIRST_CALL_PY = BLOCKS["README.md", "Deploying a customer-service agent", "python"]
WALKTHROUGH_TIMEOUT = 600  # seconds: the command-line one starts the CLI twenty times, slow on a loaded machine
# Strict bash, and curl failing on an HTTP error status, so a step the server refuses fails the walk-through.
PRELUDE = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """One development server, as `make serve` runs it: keys generated in its data dir, the admin API served."""
    folder = tmp_path_factory.mktemp("var")
    process = ServeProcess(
        f"sqlite:///{folder / 'aftersales.db'}",
        folder,
        settings={"AFTERSALES_ENV": "development", "AFTERSALES_SECRET_KEYS": "", "AFTERSALES_STATE_KEYS": ""},
    )
    process.start()
    yield process
    process.stop()


def admin(server: ServeProcess) -> httpx.Client:
    """A client of the server's worlds admin API, with a token signed by the keys in its data dir."""
    keys = [(server.folder / "secret_keys").read_text().strip()]
    headers = {"Authorization": f"Bearer {bearer_token(keys, 'harness', [ADMIN_SCOPE])}"}
    return httpx.Client(base_url=server.url, headers=headers, timeout=30)


def worlds_on(server: ServeProcess) -> list[str]:
    """The ids of every world the server holds."""
    with admin(server) as http:
        answer = http.get("/admin/worlds")
    assert answer.status_code == 200, answer.text
    return [world["id"] for world in answer.json()["worlds"]]


@pytest.fixture(autouse=True)
def clean_server(server: ServeProcess) -> Iterator[None]:
    """Drop what a failed walk-through left, so the next test still starts from a server without worlds."""
    yield
    with admin(server) as http:
        for world_id in reversed(worlds_on(server)):  # forks before their sources
            http.delete(f"/admin/worlds/{world_id}")


def run_walkthrough(script: str, server: ServeProcess, folder: Path, files: dict[str, str] | None = None) -> str:
    """Run a walk-through in a fresh folder holding what a checkout gives it; check it left nothing behind.

    The folder has `.venv` and `var` (the server's data dir, as with `make serve`), and the `files` the page tells
    the reader to save, and nothing else; only the server's port replaces the docs' 8000. Afterwards the folder, the
    temporary directory and the server's list of worlds must be as they were.
    """
    assert worlds_on(server) == [], "the server must start clean"
    checkout, scratch = folder / "checkout", folder / "tmp"
    checkout.mkdir(parents=True)
    scratch.mkdir()
    (checkout / ".venv").symlink_to(sys.prefix)
    (checkout / "var").symlink_to(server.folder)
    for name, text in (files or {}).items():
        (checkout / name).write_text(text.replace("http://127.0.0.1:8000", server.url))
    env = {name: value for name, value in os.environ.items() if not name.startswith("AFTERSALES_")}
    env["TMPDIR"] = str(scratch)
    text = PRELUDE + script.replace("http://127.0.0.1:8000", server.url)
    done = subprocess.run(
        ["bash", "-c", text], cwd=checkout, env=env, capture_output=True, text=True, timeout=WALKTHROUGH_TIMEOUT
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(path.name for path in checkout.iterdir()) == sorted([".venv", "var", *(files or {})])
    assert list(scratch.iterdir()) == []
    assert worlds_on(server) == []
    return done.stdout


def test_the_curl_walkthrough_runs_on_its_own_and_around_the_command_line_one_and_each_leaves_no_file_and_no_world(
    server, tmp_path
):
    # The curl one first, on a server nothing else has used; then the command line one, the slow one (about twenty
    # CLI starts), between two curl ones, so each runs after the other.
    assert '{"id":"base",' in run_walkthrough(CURL, server, tmp_path / "curl-before")  # the world as the server made it
    assert "world episode-1" in run_walkthrough(CLI, server, tmp_path / "cli")
    run_walkthrough(CURL, server, tmp_path / "curl-after")


def test_the_readme_s_first_call_issues_a_token_and_reads_a_ticket_s_stage_and_next_step(server, tmp_path):
    out = run_walkthrough(FIRST_CALL, server, tmp_path, files={"first_call.py": FIRST_CALL_PY})
    stage, next_step = out.split(" ", 1)
    assert stage == "awaiting_return" and next_step.strip(), out  # the seeded return, waiting for its parcel
