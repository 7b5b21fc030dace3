"""The cipher that keeps payout accounts at rest: a MultiFernet over the AFTERSALES_PAYOUT_KEYS ring.

Each key of the ring (the same format as the other rings: comma-separated, 32+ bytes, the first one in use) is
turned into a Fernet key by SHA-256, so any strong secret works as one. The first key encrypts; every key decrypts,
so a new key goes in front and the old one stays listed while a stored account was sealed with it (docs/production.md,
"Rotating payout keys"); `rotated()` re-encrypts one sealed account with the first key.
"""

import base64
import hashlib
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from aftersales.domain.payouts import PayoutAccount


class AccountCipher:
    """Seal and open payout accounts with a ring of keys: the first seals, all open."""

    def __init__(self, keys: list[str]) -> None:
        if not keys:
            raise ValueError("a payout key ring needs at least one key")
        self._ring = MultiFernet([Fernet(_fernet_key(key)) for key in keys])

    def seal(self, account: PayoutAccount) -> str:
        """The account as one encrypted, authenticated token (text)."""
        plain = json.dumps({"holder": account.holder, "number": account.number, "bank": account.bank})
        return self._ring.encrypt(plain.encode()).decode()

    def open(self, sealed: str) -> PayoutAccount:
        """The account a token holds; ValueError when no key of the ring sealed it or it was changed."""
        try:
            fields = json.loads(self._ring.decrypt(sealed.encode()))
        except InvalidToken:
            raise ValueError("this payout account was sealed with a key the ring no longer holds") from None
        return PayoutAccount(holder=fields["holder"], number=fields["number"], bank=fields["bank"])

    def rotated(self, sealed: str) -> str:
        """The same account sealed again with the first key (after a new key was put in front)."""
        return self._ring.rotate(sealed.encode()).decode()


def _fernet_key(secret: str) -> bytes:
    """A Fernet key (32 bytes, URL-safe base64) derived from one secret of the ring."""
    return base64.urlsafe_b64encode(hashlib.sha256(b"aftersales payout account\x00" + secret.encode()).digest())
