"""The serving process's collector settles once started: the start-up heap frozen, young collections less often."""

import json
import subprocess
import sys

from aftersales.web.heap import THRESHOLDS

# In a process of its own: freezing the test process's heap would change every test that runs after.
PROBE = """
import gc, json
from aftersales.web.heap import settle
before = gc.get_threshold(), gc.get_freeze_count()
alive = [[] for _ in range(1000)]  # containers the collector tracks, still in use
settle()
print(json.dumps({"before": before, "after": [gc.get_threshold(), gc.get_freeze_count()]}))
"""


def test_settling_freezes_what_start_up_left_alive_and_raises_the_young_generations_threshold():
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(probe.stdout)
    (threshold_before, frozen_before), (threshold_after, frozen_after) = seen["before"], seen["after"]
    assert tuple(threshold_before) != THRESHOLDS and frozen_before == 0
    assert tuple(threshold_after) == THRESHOLDS and frozen_after > frozen_before + 1000
