"""The wrong agent of each rule task (seed/tasks/rules-*): the scripted agent with the mistake that task's rule catches.

Run as an eval agent command (`python tests/support/wrong_agent.py`): it reads the brief's task id and runs
examples/scripted_agent.py with that task's `--mistake`.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

MISTAKES = {
    "rules-lookup-before-write-air-fryer": "no-lookup",
    "rules-create-carries-quote-tshirts": "no-quote",
    "rules-estimate-before-create-headphones": "no-estimate",
    "rules-never-refund-only-laptop": "wrong-kind",
    "rules-expired-quote-refused-then-estimated": "stale-quote",
    "rules-two-estimates-headphones-clock": "stale-quote",
    "rules-declined-world-unchanged-tshirts": "ignore-decline",
    "rules-no-write-after-decline-tshirts": "ask-again",
    "rules-quote-present-damaged-tshirts": "no-quote",
    "rules-repair-refused-once-rc-car": "retry-refused",
}
SCRIPTED = Path(__file__).resolve().parents[2] / "examples" / "scripted_agent.py"


def main() -> int:
    with open(os.environ["AFTERSALES_TASK_FILE"], encoding="utf-8") as file:
        task_id = json.load(file)["task_id"]
    return subprocess.call([sys.executable, str(SCRIPTED), "--mistake", MISTAKES[task_id]])


if __name__ == "__main__":
    sys.exit(main())
