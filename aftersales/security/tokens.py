"""Caller tokens: itsdangerous-signed claims (caller, scopes, issued, expires, optional world and its creation)."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from itsdangerous import BadData, URLSafeSerializer

from aftersales.domain.callers import Caller

SALT = "aftersales.caller-token.v1"


class InvalidToken(Exception):
    """The token is missing, malformed, forged or expired; the message is safe to show."""


class UnsignedToken(InvalidToken):
    """The token is malformed, or no key of this server signed it (another data dir's, other secret keys)."""


@dataclass(frozen=True)
class TokenClaims:
    """What a verified token says."""

    caller: Caller
    expires_at: datetime
    world: str | None = None  # every request made with the token runs in this world; None: the default world
    made: str = ""  # which creation of that world (its incarnation): a world made again under the id is another


def _serializer(keys: list[str]) -> URLSafeSerializer:
    # itsdangerous signs with the *last* key of a list and verifies with all; our setting lists the signer first.
    return URLSafeSerializer(list(reversed(keys)), salt=SALT)


def issue(
    keys: list[str],
    caller_id: str,
    scopes: list[str],
    ttl: timedelta,
    now: datetime,
    world: str | None = None,
    made: str = "",
) -> str:
    """Sign a token for `caller_id` with `scopes`, valid from `now` for `ttl`, bound to `world` (creation `made`)."""
    # "iat" is there for a person reading a token; verification needs only "exp".
    claims = {"sub": caller_id, "scp": sorted(scopes), "iat": int(now.timestamp()), "exp": int((now + ttl).timestamp())}
    if world is not None:
        claims["wld"] = world
        if made:
            claims["wmk"] = made
    return _serializer(keys).dumps(claims)


def verify(keys: list[str], token: str, now: datetime) -> TokenClaims:
    """Check the signature with every key and the expiry against `now`."""
    try:
        claims = _serializer(keys).loads(token)
        caller = Caller(id=str(claims["sub"]), scopes=frozenset(map(str, claims["scp"])))
        expires = datetime.fromtimestamp(claims["exp"], now.tzinfo)
        world, made = claims.get("wld"), claims.get("wmk", "")
        if (world is not None and not isinstance(world, str)) or not isinstance(made, str):
            raise TypeError("the world claims are not names")
    except (BadData, KeyError, TypeError, ValueError):
        raise UnsignedToken("the bearer token is malformed or not signed by this server") from None
    if now >= expires:
        raise InvalidToken(f"the bearer token expired at {expires:%Y-%m-%d %H:%M} UTC")
    return TokenClaims(caller=caller, expires_at=expires, world=world, made=made)
