"""`aftersales eval --customer replay:DIR`: the same agent gets the same trajectory; another agent meets the fallback.

One run of three conversation tasks (a wrong order number, a change of mind, a cancel) with the scripted agent and
the scripted customer is recorded once, then replayed.
"""

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aftersales.testing import schemas
from aftersales.testing.comparison import Ids, difference, read
from aftersales.testing.conversation.replay import normalised
from tests.support.evals import AGENT, run

TASKS = ["conv-wrong-order-number-airpods", "conv-changes-mind-store-credit", "conv-cancel-under-review-by-email"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run whose customer a model played (the deterministic stand-in for one), to replay."""
    out = tmp_path_factory.mktemp("recorded")
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv("AFTERSALES_CUSTOMER_MODEL", "function:aftersales.testing.conversation.stand_in:scripted")
        code, report = run(out, AGENT, "--mode", "conversation", "--customer", "llm", tasks=TASKS)
    assert code == 0 and report["customer_usage"]["requests"] > 0
    return out


def trajectories(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {task: read(out / "trajectories" / f"{task}.1.jsonl") for task in TASKS}


def turns(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [entry for entry in entries if entry.get("type") == "turn"]


def replaying(recorded: Path) -> tuple[str, ...]:
    return ("--mode", "conversation", "--customer", f"replay:{recorded}")


def test_the_same_agent_against_the_replayed_customer_gets_the_same_trajectories_byte_for_byte(
    recorded: Path, tmp_path: Path
):
    code, report = run(tmp_path, AGENT, *replaying(recorded), tasks=TASKS)
    assert code == 0
    assert report["customer_usage"] == {"requests": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": "0"}
    before, after = trajectories(recorded), trajectories(tmp_path)
    assert {turn["engine"] for entries in after.values() for turn in turns(entries)} == {"llm"}  # as recorded
    assert {task: difference(before[task], after[task]) for task in TASKS} == dict.fromkeys(TASKS)
    assert before != after  # the wall clock and the world ids did differ: the comparison left them out


def test_an_agent_that_says_something_else_meets_the_fallback_at_that_turn_marked(recorded: Path, tmp_path: Path):
    code, _ = run(tmp_path, f"{AGENT} --mistake no-tell", *replaying(recorded), tasks=TASKS)
    assert code == 1
    validator = jsonschema.Draft202012Validator(schemas.load("trajectory.schema.json"))
    for task, entries in trajectories(tmp_path).items():
        for entry in entries:
            validator.validate(entry)
        then, now = (turns(trail) for trail in (trajectories(recorded)[task], entries))
        theirs, ours = Ids(), Ids()
        pairs = zip(then[1::2], now[1::2], strict=False)
        said = [(normalised(one["text"], theirs), normalised(other["text"], ours)) for one, other in pairs]
        first = next(number for number, (one, other) in enumerate(said) if one != other)  # the first other message
        marked = [index for index, turn in enumerate(now) if "diverged" in turn]
        assert marked == [2 * first + 2], task  # the customer's answer to it, and only that turn
        assert now[2 * first + 2]["diverged"] == {"recorded": then[2 * first + 1]["text"]}
        assert difference(then[: 2 * first + 1], now[: 2 * first + 1]) is None, task  # replayed until then


def test_a_replay_of_a_folder_missing_a_trial_is_refused_in_one_line_before_any_world(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    from aftersales.cli.main import main

    code = main(
        ["eval", "--agent", AGENT, *replaying(recorded), "--tasks", TASKS[0], "--trials", "2", "--out", str(tmp_path)]
    )
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert f"{recorded / 'trajectories'} has no recorded trial {TASKS[0]}.2" in error
    assert list(tmp_path.iterdir()) == []  # no brief, trajectory or report: no trial was run
