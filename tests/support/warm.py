"""Install what the suite needs beside the Python install: `make test` starts this in the background first.

Debian's packages (PostgreSQL, Chromium, npm) and the pinned npm packages are installed inside the test session when
missing, on a worker, while the other waits. Started before the Python packages, they install while those do; each
install takes the lock its own fixture takes (tests/support/apt.py, node.py), so a test that needs one waits for it
to finish, and one that failed here is tried again there, with its error. Only the standard library is imported: the
virtualenv does not exist yet.
"""

from tests.support import apt, node

if __name__ == "__main__":
    for package, present in apt.NEEDED.items():
        apt.ensure(package, present)
    node.ensure_installed()
