"""An access token is accepted only with the issuer's key, its asymmetric algorithm, issuer, audience and times."""

from datetime import UTC, datetime, timedelta

import pytest

from aftersales.security.access_tokens import Expected, UnknownKey, check, key_id, key_set, pick
from aftersales.security.tokens import InvalidToken
from tests.support.issuer import (
    ISSUER,
    MACHINE,
    RESOURCE,
    FakeIssuer,
    ec_key,
    hmac_with_public_key,
    rsa_key,
    unsigned_token,
)

EXPECTED = Expected(ISSUER, RESOURCE, timedelta(seconds=30))


def checked(issuer: FakeIssuer, token: str, now: datetime | None = None):
    """The claims of `token`, checked the way BearerAuth checks it against `issuer`'s published keys."""
    keys = key_set({"keys": [key.public_jwk() for key in issuer.published]})
    return check(token, pick(keys, key_id(token)), EXPECTED, now or datetime.now(UTC))


def refusal(issuer: FakeIssuer, token: str, now: datetime | None = None) -> str:
    with pytest.raises(InvalidToken) as refused:
        checked(issuer, token, now)
    return str(refused.value)


def test_a_machine_clients_token_speaks_for_the_client_with_its_scopes():
    issuer = FakeIssuer()
    claims = checked(issuer, issuer.token())
    assert claims.caller.id == claims.client_id == MACHINE
    assert claims.caller.scopes == {"tickets:read", "tickets:write"}
    assert claims.issuer == ISSUER


def test_a_persons_token_speaks_for_its_subject_and_a_token_without_sub_for_its_client():
    issuer = FakeIssuer()
    assert checked(issuer, issuer.token(sub="person-42", client_id="web-app")).caller.id == "person-42"
    assert checked(issuer, issuer.token(sub=None)).caller.id == MACHINE


@pytest.mark.parametrize("claim", ["azp", "cid"])
def test_a_provider_naming_the_client_in_azp_or_cid_is_understood(claim):
    issuer = FakeIssuer()
    assert checked(issuer, issuer.token(client_id=None, sub=None, **{claim: "agent-7"})).caller.id == "agent-7"


def test_scopes_given_as_a_scp_list_are_read_too():
    issuer = FakeIssuer()
    assert checked(issuer, issuer.token(scope=None, scp=["tickets:read"])).caller.scopes == {"tickets:read"}


def test_an_rsa_key_verifies_its_tokens():
    issuer = FakeIssuer(published=[rsa_key("rsa-1")])
    assert checked(issuer, issuer.token()).caller.id == MACHINE


def test_a_token_is_accepted_within_the_leeway_after_exp_and_refused_past_it():
    issuer = FakeIssuer()
    exp = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    token = issuer.token(exp=int(exp.timestamp()))
    assert checked(issuer, token, exp + timedelta(seconds=29)).caller.id == MACHINE
    assert "expired at 2026-12-01 12:00:00 UTC" in refusal(issuer, token, exp + timedelta(seconds=30))


def test_a_token_not_valid_yet_is_refused_beyond_the_leeway():
    issuer = FakeIssuer()
    start = datetime.now(UTC) + timedelta(minutes=5)
    assert "not valid before" in refusal(issuer, issuer.token(nbf=int(start.timestamp())))
    assert checked(issuer, issuer.token(nbf=int((datetime.now(UTC) + timedelta(seconds=10)).timestamp())))


def test_a_token_for_another_resource_is_refused_and_one_listing_this_resource_is_accepted():
    issuer = FakeIssuer()
    assert "not issued for this resource" in refusal(issuer, issuer.token(aud="https://other.example/mcp"))
    assert "has no 'aud' claim" in refusal(issuer, issuer.token(aud=None, resource=RESOURCE))
    assert checked(issuer, issuer.token(aud=["https://other.example/api", RESOURCE])).caller.id == MACHINE


def test_a_token_from_another_issuer_is_refused():
    issuer = FakeIssuer()
    assert f"not issued by {ISSUER}" in refusal(issuer, issuer.token(iss="https://evil.example"))


def test_a_forged_signature_under_a_published_key_id_is_refused():
    issuer = FakeIssuer()
    forger = ec_key(issuer.signing.kid)  # same kid, another private key
    assert "signature does not verify" in refusal(issuer, issuer.token(key=forger))


def test_alg_none_is_refused_before_any_key_is_looked_up():
    issuer = FakeIssuer()
    token = unsigned_token(issuer.claims(), issuer.signing.kid)
    with pytest.raises(InvalidToken, match="signed with 'none', which is not accepted"):
        key_id(token)


def test_an_hs256_token_signed_with_the_issuers_public_key_is_refused():
    issuer = FakeIssuer(published=[rsa_key("rsa-1")])
    token = hmac_with_public_key(issuer.claims(), issuer.signing)
    assert "signed with 'HS256', which is not accepted" in refusal(issuer, token)


def test_a_header_naming_an_algorithm_the_key_does_not_declare_is_refused():
    issuer = FakeIssuer(published=[rsa_key("rsa-1")])
    token = issuer.token(headers={"alg": "PS256"})  # signed RS256, header says PS256
    assert "algorithm is not one the issuer's key allows (RS256)" in refusal(issuer, token)


@pytest.mark.parametrize("malformed", ["not-a-jwt", "a.b.c", "eyJhbGciOiJFUzI1NiJ9"])
def test_a_malformed_token_is_refused(malformed):
    assert "not a JWT access token" in refusal(FakeIssuer(), malformed)


def test_a_token_naming_a_key_the_issuer_does_not_publish_is_an_unknown_key():
    issuer = FakeIssuer()
    with pytest.raises(UnknownKey, match='signed with key "key-9"'):
        checked(issuer, issuer.token(key=ec_key("key-9")))


def test_the_key_set_holds_only_asymmetric_signature_keys():
    issuer = FakeIssuer()
    sig = issuer.signing.public_jwk()
    jwks = {
        "keys": [
            sig,
            {"kty": "oct", "kid": "shared", "k": "c2VjcmV0", "alg": "HS256"},
            {**ec_key("enc").public_jwk(), "use": "enc"},
            {**ec_key("mislabelled").public_jwk(), "alg": "HS256"},
            {**ec_key("no-verify").public_jwk(), "key_ops": ["encrypt"]},
            {"kty": "RSA", "kid": "broken", "n": "x"},
        ]
    }
    keys = key_set(jwks)
    assert list(keys) == [sig["kid"]] and keys[sig["kid"]].algorithms == ("ES256",)
