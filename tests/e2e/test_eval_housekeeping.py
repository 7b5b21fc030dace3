"""A real `aftersales eval` interrupted mid-trial removes its temporary folder and ends the agent; --keep keeps it."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from aftersales.cli.main import main
from tests.support import ROOT

STALLING = f"{sys.executable} {ROOT / 'tests' / 'e2e' / 'stalling_agent.py'}"
WAIT = 60.0  # seconds: a busy two-core machine starts the harness in a few


CTRL_C_REACHES = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from aftersales.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_an_eval_interrupted_while_its_agent_runs_removes_its_temporary_folder_and_ends_the_agent(tmp_path: Path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(WAIT)
        agent = f"{STALLING} {listener.getsockname()[1]}"
        env = {**os.environ, "TMPDIR": str(scratch)}
        # Ctrl-C as a terminal sends it: a process started with SIGINT ignored (as an earlier test may leave this
        # worker) keeps it ignored, so the run is started with Python's own handler for it.
        command = [sys.executable, "-c", CTRL_C_REACHES, "eval", "--agent", agent, "--tasks", "status-rejected"]
        command += ["--out", str(tmp_path / "out")]
        run = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        try:
            try:
                told, _ = listener.accept()  # the trial's world is made and its agent runs
            except TimeoutError:
                pytest.fail(f"no trial started within {WAIT:.0f} s")
            with told:
                told.settimeout(WAIT)
                assert told.recv(8) == b"started\n"
                assert [entry.name for entry in scratch.iterdir()] != []  # the run's folder, while it runs
                run.send_signal(signal.SIGINT)  # Ctrl-C (the terminal's reaches no agent: each has a session)
                assert run.wait(WAIT) == 130
                assert told.recv(1) == b""  # the agent's end of the socket closed: the agent was ended
        finally:
            if run.poll() is None:
                run.kill()
            stderr = run.communicate()[1]
    assert "Traceback" not in stderr, stderr
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize(
    "command",
    [["eval", "--agent", "true", "--out", "{out}"], ["tasks", "check", "--mode", "brief"]],
    ids=["eval", "tasks check"],
)
def test_keep_leaves_the_runs_folder_with_its_worlds_and_says_how_to_list_them(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    words = [word.format(out=tmp_path / "out") for word in command]
    main([*words, "--tasks", "status-rejected", "--keep"])
    (kept,) = scratch.iterdir()
    told = capsys.readouterr().err.splitlines()[-1]
    assert told.startswith(f"aftersales: kept the run's folder {kept} (--keep)")
    variables = told.split("with: ")[1].split(" aftersales world list")[0]
    for variable in variables.split():
        name, value = variable.split("=", 1)
        monkeypatch.setenv(name, value)
    assert main(["world", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["worlds"]
    assert [world["source"]["name"] for world in listed] == ["baseline"]  # the trial's world, never dropped
