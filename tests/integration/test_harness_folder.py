"""The harness of `eval` and `tasks check` removes its temporary folder however the run ends."""

import os
import signal
from pathlib import Path

import pytest

from aftersales.cli.harness import INTERRUPTED, harness


def test_a_run_that_fails_removes_its_folder_with_its_worlds():
    with pytest.raises(RuntimeError, match="the run broke"), harness(None, keep=False) as host:
        folder = host.settings.data_dir
        host.worlds.create("baseline", "frozen", operator=True)
        assert (folder / "worlds").is_dir()
        raise RuntimeError("the run broke")
    assert not folder.exists()


def test_a_sigterm_ends_the_run_like_ctrl_c_removing_its_folder_and_exiting_143():
    folder: Path | None = None
    with pytest.raises(SystemExit) as ended, harness(None, keep=False) as host:
        folder = host.settings.data_dir
        os.kill(os.getpid(), signal.SIGTERM)  # its handler raises here, in this (the main) thread
    assert ended.value.code == INTERRUPTED == 143
    assert folder is not None and not folder.exists()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler was only the run's
