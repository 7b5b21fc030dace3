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
