"""Caller tokens: issue, verify, forgery, expiry and key rotation."""

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from itsdangerous import URLSafeSerializer

from aftersales.clock import now
from aftersales.security.tokens import SALT, InvalidToken, issue, verify

OLD, NEW = "o" * 40, "n" * 40
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_a_token_carries_caller_scopes_issue_time_and_expiry():
    token = issue([OLD], "support-bot", ["tickets:read"], timedelta(days=30), T0)
    claims = verify([OLD], token, T0)
    assert claims.caller.id == "support-bot"
    assert claims.caller.scopes == frozenset({"tickets:read"})
    issued = URLSafeSerializer([OLD], salt=SALT).loads(token)["iat"]
    assert (datetime.fromtimestamp(issued, UTC), claims.expires_at) == (T0, T0 + timedelta(days=30))


def test_a_token_signed_with_another_key_is_refused():
    with pytest.raises(InvalidToken, match="not signed by this server"):
        verify([OLD], issue(["x" * 40], "support-bot", ["tickets:read"], timedelta(days=1), T0), T0)


def test_a_tampered_token_is_refused():
    token = issue([OLD], "support-bot", ["tickets:read"], timedelta(days=1), T0)
    forged = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    with pytest.raises(InvalidToken):
        verify([OLD], forged, T0)


def test_garbage_is_refused_without_a_crash():
    for junk in ("", "abc", "a.b.c", "e30.e30"):
        with pytest.raises(InvalidToken):
            verify([OLD], junk, T0)


def test_a_token_is_valid_until_its_expiry_and_not_at_it():
    with freeze_time(T0):
        token = issue([OLD], "support-bot", ["tickets:read"], timedelta(hours=1), now())
    with freeze_time(T0 + timedelta(minutes=59, seconds=59)):
        assert verify([OLD], token, now()).caller.id == "support-bot"
    with freeze_time(T0 + timedelta(hours=1)), pytest.raises(InvalidToken, match="expired at 2026-11-30 13:00"):
        verify([OLD], token, now())


def test_rotation_keeps_old_tokens_valid_while_the_new_key_signs():
    old_token = issue([OLD], "bot", ["tickets:read"], timedelta(days=1), T0)
    new_token = issue([NEW, OLD], "bot", ["tickets:read"], timedelta(days=1), T0)
    assert verify([NEW, OLD], old_token, T0).caller.id == "bot"
    assert verify([NEW], new_token, T0).caller.id == "bot"
    with pytest.raises(InvalidToken):
        verify([NEW], old_token, T0)


def test_a_token_may_name_a_world_and_one_without_names_none():
    bound = verify([OLD], issue([OLD], "bot", ["tickets:read"], timedelta(days=1), T0, world="w-1a2b3c4d"), T0)
    plain = verify([OLD], issue([OLD], "bot", ["tickets:read"], timedelta(days=1), T0), T0)
    assert (bound.world, plain.world) == ("w-1a2b3c4d", None)


def test_a_signed_world_claim_that_is_not_a_name_is_refused():
    from itsdangerous import URLSafeSerializer

    claims = {"sub": "bot", "scp": ["tickets:read"], "iat": int(T0.timestamp()), "exp": int(T0.timestamp()) + 60}
    token = URLSafeSerializer([OLD], salt="aftersales.caller-token.v1").dumps({**claims, "wld": ["w-1"]})
    with pytest.raises(InvalidToken, match="malformed"):
        verify([OLD], token, T0)


def test_a_world_token_names_the_creation_of_its_world_and_an_older_token_names_none():
    bound = issue([OLD], "agent", ["tickets:read"], timedelta(hours=1), T0, world="w-1", made="a1b2")
    older = issue([OLD], "agent", ["tickets:read"], timedelta(hours=1), T0, world="w-1")
    assert (verify([OLD], bound, T0).made, verify([OLD], older, T0).made) == ("a1b2", "")
