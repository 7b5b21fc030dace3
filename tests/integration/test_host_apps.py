"""The harness host serves an App per set of trial settings; trials in parallel add them while others close."""

from pathlib import Path

from aftersales.testing.loader import load
from tests.support.harness import hosting


def test_a_trial_closing_while_another_thread_adds_an_app_for_new_settings_closes_cleanly(tmp_path: Path):
    task = next(task for task in load() if task.id == "status-awaiting-return")
    with hosting(tmp_path) as host:
        trial = host.open_trial(task)
        flush = host.default.app.audit.flush

        def flush_while_another_trial_starts() -> None:
            flush()
            host._served[(("review_recent_tickets", 1),)] = host.default  # as _serve does, from another thread

        host.default.app.audit.flush = flush_while_another_trial_starts  # type: ignore[method-assign]
        host.close_trial(trial)
        assert trial.id not in host.trials
