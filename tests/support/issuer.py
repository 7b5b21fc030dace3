"""An OAuth issuer in memory: its metadata and JWKS behind an httpx2 MockTransport, keys made in the test, tokens
minted the way an authorization server mints RFC 9068 access tokens (and the forgeries a resource must refuse)."""

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Any

import anyio.lowlevel
import httpx2
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

ISSUER = "https://issuer.test"
RESOURCE = "http://127.0.0.1:8000/mcp"
MACHINE = "ci-harness"  # the client id of the machine client


@dataclass
class SigningKey:
    """A private key with the kid and algorithm it signs under."""

    kid: str
    private: Any
    algorithm: str

    def public_jwk(self) -> dict[str, Any]:
        """The public half, as a JWKS lists it."""
        codec = RSAAlgorithm if self.algorithm.startswith(("RS", "PS")) else ECAlgorithm
        jwk = codec.to_jwk(self.private.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "alg": self.algorithm, "use": "sig"}


def ec_key(kid: str) -> SigningKey:
    """A fresh P-256 key (fast to make)."""
    return SigningKey(kid, ec.generate_private_key(ec.SECP256R1()), "ES256")


def rsa_key(kid: str) -> SigningKey:
    """A fresh 2048-bit RSA key."""
    return SigningKey(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256")


@dataclass
class FakeIssuer:
    """The issuer: `published` keys in its JWKS, `signing` the one tokens are signed with; `up` False: unreachable."""

    published: list[SigningKey] = field(default_factory=lambda: [ec_key("key-1")])
    issuer: str = ISSUER
    resource: str = RESOURCE
    up: bool = True
    openid_only: bool = False  # serve only OpenID Connect Discovery, not RFC 8414 metadata
    requests: list[str] = field(default_factory=list)
    made: int = 1  # keys made so far, for the next key's id

    @property
    def signing(self) -> SigningKey:
        """The key new tokens are signed with: the first one published."""
        return self.published[0]

    @property
    def jwks_fetches(self) -> int:
        """How many times the JWKS was asked for."""
        return self.requests.count("/jwks")

    @property
    def transport(self) -> httpx2.MockTransport:
        """The issuer over HTTP, in memory."""
        return httpx2.MockTransport(self._answer)

    def rotate(self, keep_old: bool = True) -> SigningKey:
        """Publish a new key and sign with it from now on; the old one stays published, or is dropped."""
        self.made += 1
        new = ec_key(f"key-{self.made}")
        self.published = [new, *(self.published if keep_old else [])]
        return new

    async def _answer(self, request: httpx2.Request) -> httpx2.Response:
        await anyio.lowlevel.checkpoint()  # a real issuer takes a while: other requests run meanwhile
        path = request.url.path
        self.requests.append(path)
        if not self.up:
            raise httpx2.ConnectError("connection refused", request=request)
        metadata = {"issuer": self.issuer, "jwks_uri": f"{self.issuer}/jwks", "token_endpoint": f"{self.issuer}/token"}
        if path == "/.well-known/oauth-authorization-server" and not self.openid_only:
            return httpx2.Response(200, json=metadata)
        if path == "/.well-known/openid-configuration":
            return httpx2.Response(200, json=metadata)
        if path == "/jwks":
            return httpx2.Response(200, json={"keys": [key.public_jwk() for key in self.published]})
        return httpx2.Response(404)

    def claims(self, **changes: Any) -> dict[str, Any]:
        """A client-credentials token's claims for the resource with both tool scopes; `changes` replace or add."""
        moment = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.resource,
            "client_id": MACHINE,
            "sub": MACHINE,
            "scope": "tickets:read tickets:write",
            "iat": moment,
            "exp": moment + 300,
            "jti": "j-1",
        }
        claims.update(changes)
        return {name: value for name, value in claims.items() if value is not None}

    def token(self, key: SigningKey | None = None, headers: dict[str, Any] | None = None, **changes: Any) -> str:
        """An access token signed with `key` (default: the signing key), with claims(**changes)."""
        key = key or self.signing
        return jwt.encode(
            self.claims(**changes), key.private, algorithm=key.algorithm, headers={"kid": key.kid, **(headers or {})}
        )


def _segment(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def unsigned_token(claims: dict[str, Any], kid: str) -> str:
    """A token with `alg: none` and no signature."""
    return f"{_segment({'alg': 'none', 'typ': 'JWT', 'kid': kid})}.{_segment(claims)}."


def hmac_with_public_key(claims: dict[str, Any], key: SigningKey) -> str:
    """The classic confusion: HS256 with the issuer's public key (as PEM) used as the shared secret."""
    return hmac_signed(claims, key.kid, pem_of(key.private.public_key()))


def pem_of(public: ec.EllipticCurvePublicKey | rsa.RSAPublicKey) -> bytes:
    """A public key as the PEM an attacker would try as an HMAC secret."""
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def hmac_signed(claims: dict[str, Any], kid: str, secret: bytes) -> str:
    """A token signed HS256 with `secret`, naming the key `kid`."""
    signed = f"{_segment({'alg': 'HS256', 'typ': 'JWT', 'kid': kid})}.{_segment(claims)}"
    signature = hmac.new(secret, signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def segment(data: dict[str, Any]) -> str:
    """One base64url part of a JWT."""
    return _segment(data)
