"""The issuer's keys: discovered, cached, fetched again for a new key id at most once per cooldown, and kept
working while the issuer cannot be reached."""

from datetime import timedelta

import anyio
import pytest
from freezegun import freeze_time

from aftersales.security.access_tokens import UnknownKey
from aftersales.security.issuer_keys import IssuerKeys, IssuerUnreachable, KeysUnavailable
from tests.support.issuer import ISSUER, FakeIssuer

pytestmark = pytest.mark.anyio
COOLDOWN = timedelta(seconds=30)


def keys_of(issuer: FakeIssuer) -> IssuerKeys:
    return IssuerKeys(ISSUER, COOLDOWN, issuer.transport)


async def test_the_keys_are_found_through_the_rfc_8414_metadata_and_then_served_from_the_cache():
    issuer = FakeIssuer()
    keys = keys_of(issuer)
    await keys.load()
    assert issuer.requests == ["/.well-known/oauth-authorization-server", "/jwks"]
    assert (await keys.key(issuer.signing.kid)).algorithms == ("ES256",)
    assert issuer.jwks_fetches == 1


async def test_without_rfc_8414_metadata_openid_connect_discovery_is_used():
    issuer = FakeIssuer(openid_only=True)
    keys = keys_of(issuer)
    await keys.key(issuer.signing.kid)  # the first use fetches
    assert issuer.requests == ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/jwks"]


async def test_metadata_naming_another_issuer_is_not_used():
    issuer = FakeIssuer(issuer="https://elsewhere.test")
    with pytest.raises(IssuerUnreachable, match="names the issuer 'https://elsewhere.test'"):
        await keys_of(issuer).load()


async def test_an_issuer_that_cannot_be_reached_at_start_up_is_named():
    issuer = FakeIssuer(up=False)
    with pytest.raises(IssuerUnreachable, match=f"the issuer {ISSUER} cannot be reached"):
        await keys_of(issuer).load()


async def test_a_rotated_key_is_fetched_when_a_token_first_names_it():
    issuer = FakeIssuer()
    with freeze_time("2026-12-01 12:00:00") as clock:
        keys = keys_of(issuer)
        await keys.load()
        clock.tick(COOLDOWN)
        new = issuer.rotate(keep_old=False)
        assert (await keys.key(new.kid)).algorithms == ("ES256",)
    assert issuer.jwks_fetches == 2


async def test_a_key_id_still_unknown_after_a_fresh_fetch_is_refused():
    issuer = FakeIssuer()
    with freeze_time("2026-12-01 12:00:00") as clock:
        keys = keys_of(issuer)
        await keys.load()
        clock.tick(COOLDOWN)
        with pytest.raises(UnknownKey, match='"made-up"'):
            await keys.key("made-up")
    assert issuer.jwks_fetches == 2


async def test_unknown_key_ids_within_the_cooldown_are_retryable_and_fetch_nothing():
    issuer = FakeIssuer()
    with freeze_time("2026-12-01 12:00:00") as clock:
        keys = keys_of(issuer)
        await keys.load()
        clock.tick(timedelta(seconds=10))
        for made_up in ("a", "b", "c"):
            with pytest.raises(KeysUnavailable) as later:
                await keys.key(made_up)
            assert later.value.retry_after == 20
        assert issuer.jwks_fetches == 1
        clock.tick(timedelta(seconds=20))
        with pytest.raises(UnknownKey):
            await keys.key("d")
    assert issuer.jwks_fetches == 2


async def test_while_the_issuer_is_down_cached_keys_work_and_a_new_key_id_is_retryable():
    issuer = FakeIssuer()
    with freeze_time("2026-12-01 12:00:00") as clock:
        keys = keys_of(issuer)
        await keys.load()
        issuer.up = False
        clock.tick(COOLDOWN)
        assert await keys.key(issuer.signing.kid)  # served from the cache: the issuer is not asked
        with pytest.raises(KeysUnavailable, match="cannot be reached") as later:
            await keys.key("new-one")
        assert later.value.retry_after == 30
        clock.tick(timedelta(seconds=5))
        with pytest.raises(KeysUnavailable, match="could not be reached just now") as again:
            await keys.key("new-one")  # not asked again within the cooldown
        assert again.value.retry_after == 25
        assert await keys.key(issuer.signing.kid)
        issuer.up = True
        clock.tick(COOLDOWN)
        new = issuer.rotate()
        assert await keys.key(new.kid)  # back up: the next fetch gets the rotated keys
    assert issuer.requests.count("/jwks") == 2


async def test_concurrent_requests_naming_one_new_key_share_one_fetch():
    issuer = FakeIssuer()
    found = []
    with freeze_time("2026-12-01 12:00:00") as clock:
        keys = keys_of(issuer)
        await keys.load()
        clock.tick(COOLDOWN)
        new = issuer.rotate()

        async def use() -> None:
            found.append(await keys.key(new.kid))

        async with anyio.create_task_group() as tasks:
            for _ in range(5):
                tasks.start_soon(use)
    assert len(found) == 5 and issuer.jwks_fetches == 2


async def test_a_jwks_without_a_usable_key_is_refused():
    issuer = FakeIssuer(published=[])
    with pytest.raises(IssuerUnreachable, match="no asymmetric signature key"):
        await keys_of(issuer).load()
