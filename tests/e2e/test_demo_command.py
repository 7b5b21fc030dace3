"""`aftersales demo` as a presenter starts it: it says where the page is, serves it, and leaves nothing behind."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.demo import demo_server

pytestmark = pytest.mark.http
START_TIMEOUT = 60  # seconds


def test_the_demo_command_prints_the_page_url_serves_the_page_and_deletes_its_data_when_stopped(tmp_path):
    env = {**os.environ, "AFTERSALES_DATA_DIR": str(tmp_path / "data"), "TMPDIR": str(tmp_path)}
    demo = subprocess.Popen(
        [sys.executable, "-m", "aftersales", "demo", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline, line = time.monotonic() + START_TIMEOUT, ""
        while "open http" not in line and time.monotonic() < deadline:
            line = demo.stderr.readline()
        url = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
        assert url, line
        folder = Path(re.search(r"baseline in (\S+),", line).group(1))
        assert folder.parent == tmp_path and (folder / "control.db").exists() and (folder / "worlds").is_dir()
        page = httpx.get(url.group(1), timeout=10)
        assert page.status_code == 200 and "Elicitation, both sides" in page.text
        cases = httpx.get(f"{url.group(1)}api/cases", timeout=10).json()
        assert [case["key"] for case in cases["cases"]][:2] == ["method", "large"]
        for asset in ("demo.js", "render.js", "demo.css"):
            assert httpx.get(f"{url.group(1)}static/{asset}", timeout=10).status_code == 200
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(30)
        rest = demo.stderr.read()
        demo.stderr.close()
    assert demo.returncode == 0 and not folder.exists() and "Traceback" not in rest


def test_the_demo_server_stops_while_a_question_still_waits_for_the_person(tmp_path):
    # The 2025-11-25 call stays open until the person answers: stopping must not wait for an answer never coming.
    with demo_server(tmp_path) as (url, _):
        run = httpx.post(f"{url}/api/runs", json={"case": "large"}, timeout=10).json()["run"]
        asked, after, deadline = 0, 0, time.monotonic() + START_TIMEOUT
        while asked < 2 and time.monotonic() < deadline:  # both columns show their question
            reply = httpx.get(f"{url}/api/events", params={"run": run, "after": after}, timeout=30).json()
            asked += sum(event["type"] == "ask" for event in reply["events"])
            after = reply["events"][-1]["seq"] if reply["events"] else after
        assert asked == 2
    # Leaving the block waits at most tests/support/web.py's STOP_TIMEOUT for the server to stop, or fails.
