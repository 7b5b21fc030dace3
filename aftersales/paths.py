"""Where things live on disk: the files shipped beside the package, and the default data directory."""

import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# A wheel carries the top-level migrations/ and seed/ here (pyproject.toml, force-include).
BUNDLED = PACKAGE / "_bundled"


def shipped(name: str) -> Path:
    """A top-level project folder (`migrations`, `seed`): inside an installed wheel, or in the source checkout."""
    bundled = BUNDLED / name
    return bundled if bundled.exists() else PACKAGE.parent / name


def user_data_dir() -> Path:
    """The platform's per-user data directory for aftersales: the same whatever the current directory is."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
        configured = os.environ.get("XDG_DATA_HOME", "")
        base = Path(configured) if os.path.isabs(configured) else Path.home() / ".local" / "share"
    return base / "aftersales"
