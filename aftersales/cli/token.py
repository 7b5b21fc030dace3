"""`aftersales token issue`: print one signed caller token on stdout."""

import argparse

from aftersales.cli.claims import add_claims, checked_claims
from aftersales.cli.console import location, say
from aftersales.clock import now
from aftersales.security import tokens
from aftersales.security.keys import caller_keys
from aftersales.settings import Settings


def add(token: argparse.ArgumentParser) -> None:
    """Register the token commands."""
    actions = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    issue = actions.add_parser("issue", help="Print a bearer token for a caller.")
    issue.add_argument("--caller", required=True, help="Caller id, e.g. support-bot (owner of its quotes and keys).")
    add_claims(issue)
    issue.add_argument("--world", help="Bind the token to this world: every request made with it runs there.")
    issue.set_defaults(run=issue_token)


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
