"""The package as a user installs it: a wheel in a fresh virtualenv, run from an unrelated directory."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from aftersales import __version__
from tests.support import ROOT

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv holding only the built wheel; its dependencies come from the test environment (no network)."""
    root = tmp_path_factory.mktemp("installed")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", root / "dist", ROOT])
    (wheel,) = (root / "dist").glob("aftersales-*.whl")
    venv = root / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps", wheel])
    # Dependencies (not aftersales) resolve from this interpreter's site-packages, after the venv's own.
    purelib = Path(run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]))
    (purelib / "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv


def run(argv: list, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command; return its stdout, failing with its stderr."""
    done = subprocess.run([str(arg) for arg in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def user_env(home: Path) -> dict[str, str]:
    """A user's environment: no aftersales settings, so every default (data dir, seed folder) applies."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("AFTERSALES_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"), AFTERSALES_LOG_LEVEL="WARNING")
    env.pop("PYTHONPATH", None)
    return env


async def test_an_installed_wheel_migrates_seeds_and_serves_from_any_directory(installed, tmp_path):
    elsewhere, home = tmp_path / "elsewhere", tmp_path / "home"
    elsewhere.mkdir()
    env = user_env(home)
    command = installed / "bin" / "aftersales"
    # The code and the shipped files both come from the installed wheel, not from this checkout.
    where = run(
        [installed / "bin" / "python", "-c", "import aftersales.paths as p; print(p.PACKAGE, p.shipped('seed'))"],
        cwd=elsewhere,
        env=env,
    )
    assert str(ROOT) not in where and where.count(str(installed)) == 2
    assert run([command, "--version"], cwd=elsewhere, env=env) == f"aftersales {__version__}"
    (license_file,) = installed.glob("lib/python*/site-packages/aftersales-*.dist-info/licenses/LICENSE")
    assert license_file.read_text() == (ROOT / "LICENSE").read_text()
    # The demo page's assets travel in the wheel (no CDN, no build step).
    (static,) = installed.glob("lib/python*/site-packages/aftersales/demo/static")
    assert {path.name for path in static.iterdir()} >= {"index.html", "demo.js", "render.js", "demo.css"}

    assert "(head)" in run([command, "db", "upgrade"], cwd=elsewhere, env=env)
    assert "403 tickets" in run([command, "seed", "load"], cwd=elsewhere, env=env)
    assert (home / ".local" / "share" / "aftersales" / "aftersales.db").exists()

    params = StdioServerParameters(command=str(command), args=["serve", "--stdio"], env=env, cwd=str(elsewhere))
    async with Client(params) as client:
        result = await client.call_tool("after_sales_query_ticket", {"ticket_id": "T-2026-0357"})
    assert not result.is_error and result.structured_content["ticket_id"] == "T-2026-0357"
