"""What the tests' own server processes share: a loopback address on their port, and a log in their folder."""

from pathlib import Path
from typing import ClassVar


class LoopbackProcess:
    """A child process serving on 127.0.0.1:`port`, writing its log to `folder`/`LOG`."""

    LOG: ClassVar[str]
    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / self.LOG
