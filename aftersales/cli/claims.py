"""The claims of every command that prints a token (`token issue`, `world create`, `world fork`), checked alike."""

import argparse
import re
from datetime import timedelta

from aftersales.domain.callers import ALL_SCOPES
from aftersales.durations import parse_duration
from aftersales.worlds.bounds import DURATIONS, LONGEST
from aftersales.worlds.model import TOKEN_SCOPES

CALLER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$")


def add_claims(parser: argparse.ArgumentParser) -> None:
    """The options every token-printing command shares."""
    parser.add_argument(
        "--scopes",
        default=",".join(ALL_SCOPES),
        help="Comma-separated: tickets:read,tickets:write (the tools); worlds:admin opens the worlds admin API.",
    )
    parser.add_argument("--ttl", default="30d", help="Lifetime: 90s, 30m, 12h, 30d (default 30d).")


def checked_claims(caller: str, scopes_text: str, ttl_text: str) -> tuple[list[str], timedelta]:
    """The scopes and lifetime of a token to issue, or a ValueError naming the option and what it accepts."""
    if not CALLER_PATTERN.match(caller):
        raise ValueError(f"--caller {caller!r}: use 1-64 letters, digits and _ . : @ -")
    scopes = sorted({scope.strip() for scope in scopes_text.split(",") if scope.strip()})
    unknown = [scope for scope in scopes if scope not in TOKEN_SCOPES]
    if unknown or not scopes:
        raise ValueError(f"--scopes {scopes_text!r}: choose from {', '.join(TOKEN_SCOPES)}")
    ttl = parse_duration(ttl_text)
    if not timedelta(seconds=1) <= ttl <= LONGEST:
        raise ValueError(f"--ttl {ttl_text!r}: a token lives {DURATIONS}; for example 12h or 30d")
    return scopes, ttl
