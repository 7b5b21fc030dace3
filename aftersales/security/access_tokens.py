"""OAuth access tokens (JWTs, RFC 9068): checked against an issuer's published asymmetric keys, with no I/O here.

A token passes only when its signature verifies with the issuer's key of its `kid`, under an algorithm that key
declares (never `none`, never an HMAC one: a public key is never used as a shared secret); `iss` is the issuer;
`aud` is, or lists, this resource (RFC 8707); `exp` and `nbf` hold within the leeway.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from jwt import PyJWK

from aftersales.domain.callers import Caller
from aftersales.security.tokens import InvalidToken

# The asymmetric algorithms a key of each type may sign with; an "oct" (symmetric) key is never used.
RSA_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
CURVE_ALGORITHMS = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512", "secp256k1": "ES256K"}
ASYMMETRIC = frozenset({*RSA_ALGORITHMS, *CURVE_ALGORITHMS.values(), "EdDSA"})


class UnknownKey(InvalidToken):
    """The token names a key id the issuer's key set does not hold (yet: the issuer may have rotated its keys)."""


@dataclass(frozen=True)
class IssuerKey:
    """One verification key of the issuer, with the algorithms it may be used with."""

    key: Any  # the cryptography public key PyJWK built
    algorithms: tuple[str, ...]


@dataclass(frozen=True)
class Expected:
    """What every accepted token must say: who issued it, for which resource, with how much clock leeway."""

    issuer: str
    resource: str
    leeway: timedelta


@dataclass(frozen=True)
class AccessClaims:
    """What an accepted access token says: its caller (whose id owns quotes and idempotency keys), and more."""

    caller: Caller
    client_id: str
    expires_at: datetime
    issuer: str


def key_set(jwks: Mapping[str, Any]) -> dict[str, IssuerKey]:
    """The usable signature keys of a JWKS document by key id ("" for a key without one); others are left out."""
    keys: dict[str, IssuerKey] = {}
    for jwk in jwks.get("keys", []):
        if (
            not isinstance(jwk, dict)
            or jwk.get("use", "sig") != "sig"
            or "verify" not in jwk.get("key_ops", ["verify"])
        ):
            continue
        algorithms = _algorithms_of(jwk)
        if not algorithms:
            continue
        try:
            built = PyJWK(jwk, algorithm=algorithms[0])
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
            continue  # a key this library cannot use is one no token of ours can be verified with
        keys[str(jwk.get("kid", ""))] = IssuerKey(built.key, algorithms)
    return keys


def _algorithms_of(jwk: Mapping[str, Any]) -> tuple[str, ...]:
    """The algorithms a JWK declares (its `alg`), or those its key type allows; none for a symmetric key."""
    declared = jwk.get("alg")
    kty = jwk.get("kty")
    allowed: tuple[str, ...]
    if kty == "RSA":
        allowed = RSA_ALGORITHMS
    elif kty == "EC" and jwk.get("crv") in CURVE_ALGORITHMS:
        allowed = (CURVE_ALGORITHMS[jwk["crv"]],)
    elif kty == "OKP" and jwk.get("crv") in ("Ed25519", "Ed448"):
        allowed = ("EdDSA",)
    else:
        return ()
    if declared is None:
        return allowed
    return (declared,) if declared in allowed else ()


def key_id(token: str) -> str | None:
    """The `kid` of a token's header; a header that is not a JWT's, or names no asymmetric algorithm, is refused."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.DecodeError:
        raise InvalidToken("the bearer token is not a JWT access token (its header cannot be read)") from None
    algorithm = header.get("alg")
    if algorithm not in ASYMMETRIC:
        raise InvalidToken(
            f"the bearer token is signed with {algorithm!r}, which is not accepted: only the issuer's asymmetric "
            "signature algorithms are"
        )
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise InvalidToken("the bearer token's key id (kid) is not a string")
    return kid


def pick(keys: Mapping[str, IssuerKey], kid: str | None) -> IssuerKey:
    """The key a token names; a token without a kid is checked with the issuer's only key, when it has one."""
    if kid is None:
        if len(keys) == 1:
            return next(iter(keys.values()))
        raise UnknownKey("the bearer token names no key id (kid), and the issuer publishes several keys")
    found = keys.get(kid)
    if found is None:
        raise UnknownKey(f'the bearer token is signed with key "{kid}", which the issuer does not publish')
    return found


def check(token: str, key: IssuerKey, expected: Expected, now: datetime) -> AccessClaims:
    """Verify the signature with `key`, then the issuer, the audience and the times against `now`."""
    try:
        claims = jwt.decode(
            token,
            key.key,
            algorithms=list(key.algorithms),
            audience=expected.resource,
            issuer=expected.issuer,
            # The times are checked below against the one clock of the caller (`now`), with the leeway.
            options={"require": ["exp", "iss", "aud"], "verify_exp": False, "verify_nbf": False, "verify_iat": False},
        )
    except jwt.InvalidAlgorithmError:
        allowed = ", ".join(key.algorithms)
        raise InvalidToken(f"the bearer token's algorithm is not one the issuer's key allows ({allowed})") from None
    except jwt.InvalidSignatureError:
        raise InvalidToken("the bearer token's signature does not verify with the issuer's key") from None
    except jwt.InvalidAudienceError:
        raise InvalidToken(f"the bearer token was not issued for this resource ({expected.resource})") from None
    except jwt.InvalidIssuerError:
        raise InvalidToken(f"the bearer token was not issued by {expected.issuer}") from None
    except jwt.MissingRequiredClaimError as missing:
        raise InvalidToken(f"the bearer token has no {missing.claim!r} claim") from None
    except jwt.InvalidTokenError:
        raise InvalidToken("the bearer token is malformed") from None
    expires = _instant(claims, "exp")
    if now >= expires + expected.leeway:
        raise InvalidToken(f"the bearer token expired at {expires:%Y-%m-%d %H:%M:%S} UTC")
    if "nbf" in claims and now + expected.leeway < _instant(claims, "nbf"):
        raise InvalidToken(f"the bearer token is not valid before {_instant(claims, 'nbf'):%Y-%m-%d %H:%M:%S} UTC")
    return _claims(claims, expires)


def _instant(claims: Mapping[str, Any], name: str) -> datetime:
    value = claims[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidToken(f"the bearer token's {name!r} claim is not a time")
    return datetime.fromtimestamp(value, UTC)


def _claims(claims: Mapping[str, Any], expires: datetime) -> AccessClaims:
    """The caller: the client itself for a machine client's token (no `sub`, or `sub` is the client), else `sub`."""
    client = claims.get("client_id", claims.get("azp", claims.get("cid")))  # azp: Keycloak, Auth0; cid: Okta
    subject = claims.get("sub")
    if not isinstance(client, str) or not client or (subject is not None and not isinstance(subject, str)):
        raise InvalidToken("the bearer token names no client (client_id)")
    caller = client if not subject or subject == client else subject
    return AccessClaims(Caller(id=caller, scopes=_scopes(claims)), client, expires, str(claims["iss"]))


def _scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    """The scopes granted: RFC 9068's space-separated `scope`, or the `scp` list some providers send instead."""
    granted = claims.get("scope", claims.get("scp", ""))
    if isinstance(granted, str):
        return frozenset(granted.split())
    if isinstance(granted, list) and all(isinstance(scope, str) for scope in granted):
        return frozenset(granted)
    raise InvalidToken("the bearer token's scope claim is neither a string nor a list of strings")
