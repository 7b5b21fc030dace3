"""`aftersales token issue`: print one signed caller token on stdout."""

import argparse
import re
from datetime import timedelta

from aftersales.cli.console import location, say
from aftersales.clock import now
from aftersales.domain.callers import ALL_SCOPES
from aftersales.durations import parse_duration
from aftersales.security import tokens
from aftersales.security.keys import caller_keys
from aftersales.settings import Settings
from aftersales.worlds.bounds import DURATIONS, LONGEST
from aftersales.worlds.model import TOKEN_SCOPES

CALLER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$")


def add(token: argparse.ArgumentParser) -> None:
    """Register the token commands."""
    actions = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    issue = actions.add_parser("issue", help="Print a bearer token for a caller.")
    issue.add_argument("--caller", required=True, help="Caller id, e.g. support-bot (owner of its quotes and keys).")
    add_claims(issue)
    issue.add_argument("--world", help="Bind the token to this world: every request made with it runs there.")
    issue.set_defaults(run=issue_token)


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


def issue_token(args: argparse.Namespace, settings: Settings) -> int:
    """Validate the request and print the token."""
    scopes, ttl = checked_claims(args.caller, args.scopes, args.ttl)
    # The keys live in the data dir: a token only verifies on servers that share it (or AFTERSALES_SECRET_KEYS).
    say(f"aftersales: signing with the keys of {location(settings)}")
    if args.world is not None:
        from aftersales.cli.world import service

        with service(settings) as worlds:  # the world must exist: a token for no world would only ever get 404
            print(worlds.token(args.world, args.caller, scopes, ttl))
        return 0
    print(tokens.issue(caller_keys(settings), args.caller, scopes, ttl, now()))
    return 0
