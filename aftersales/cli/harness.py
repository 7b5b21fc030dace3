"""The harness of `eval` and `tasks check`: a host in a temporary folder, removed at the end unless --keep."""

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aftersales.cli.signals import sigterm_exits
from aftersales.testing.hosts.in_process import Host, control_url, temporary_host

KEEP_HELP = (
    "Keep the run's temporary folder (its worlds, control database and keys) and print where it is; by default it "
    "is removed when the run ends, also on a failure or Ctrl-C."
)
INTERRUPTED = 128 + 15  # the exit status of a run stopped by SIGTERM, as a shell reports one


def add_keep(parser: argparse.ArgumentParser) -> None:
    """The --keep flag."""
    parser.add_argument("--keep", action="store_true", help=KEEP_HELP)


@contextmanager
def harness(database_url: str | None, keep: bool, **changes: Any) -> Iterator[Host]:
    """The run's host; SIGTERM ends the run as Ctrl-C does, so its folder is removed (or kept, and shown) either way."""
    with sigterm_exits(INTERRUPTED), temporary_host(database_url, keep, **changes) as host:
        try:
            yield host
        finally:
            if keep:
                print(kept(host, database_url), file=sys.stderr, flush=True)


def kept(host: Host, database_url: str | None) -> str:
    """Where the kept folder is, and how to look at its worlds."""
    folder = host.settings.data_dir
    url = "<the --database-url given>" if database_url else control_url(folder)  # a given URL may hold a password
    return (
        f"aftersales: kept the run's folder {folder} (--keep): its worlds, control database and keys. List its worlds "
        f"with: AFTERSALES_DATA_DIR={folder} AFTERSALES_DATABASE_URL={url} aftersales world list; remove it with "
        f"rm -r {folder}"
    )
