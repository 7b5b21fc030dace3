"""make test's background warm-up runs before the virtualenv exists, so it imports nothing but the standard library."""

import subprocess
import sys

from tests.support import ROOT


def test_the_warm_up_imports_with_no_site_packages_so_it_runs_on_the_machines_own_python():
    # -S: no site-packages at all, as with a python3 that has none of the project's dependencies.
    done = subprocess.run(
        [sys.executable, "-S", "-c", "import tests.support.warm"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
