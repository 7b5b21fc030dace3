"""Secret key rings from settings; development generates one and keeps it in the data dir."""

import os
import secrets
from pathlib import Path

from aftersales.settings import Settings

MIN_KEY_BYTES = 32
PLACEHOLDER = "replace-me"  # how .env.example marks values that must be replaced


class KeyConfigurationError(ValueError):
    """The configured keys cannot be used; the message says how to fix it."""


def caller_keys(settings: Settings) -> list[str]:
    """Keys for caller tokens as configured: the first signs, all verify."""
    return key_ring(
        settings.secret_keys,
        env=settings.env,
        data_dir=settings.data_dir,
        name="secret_keys",
        variable="AFTERSALES_SECRET_KEYS",
    )


def key_ring(
    configured: str | None, *, env: str, data_dir: Path, name: str, variable: str, strict: bool = False
) -> list[str]:
    """The keys to use, first one signing: configured, or (development only) generated and kept on disk.

    Weak keys stop production; with `strict` they stop every environment (the requestState cipher needs 32 bytes).
    """
    keys = listed(configured)
    if keys:
        if env == "production" and any(key.startswith(PLACEHOLDER) for key in keys):
            raise KeyConfigurationError(
                f"{variable} still holds the placeholder from .env.example. Generate a real key with: "
                "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
            )
        weak = [index for index, key in enumerate(keys, start=1) if len(key.encode()) < MIN_KEY_BYTES]
        if weak and (env == "production" or strict):
            raise KeyConfigurationError(
                f"{variable}: key number {weak[0]} is shorter than {MIN_KEY_BYTES} bytes. Generate a strong one "
                "with: python -c 'import secrets; print(secrets.token_urlsafe(48))'"
            )
        return keys
    if env == "production":
        raise KeyConfigurationError(
            f"{variable} is not set. Production needs at least one key of {MIN_KEY_BYTES}+ bytes "
            "(comma-separate several to rotate: the first signs, all verify). Generate one with: "
            "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    return [_development_key(data_dir / name)]


def listed(configured: str | None) -> list[str]:
    """The keys a comma-separated setting holds, blanks left out."""
    return [key.strip() for key in (configured or "").split(",") if key.strip()]


def _development_key(path: Path) -> str:
    """Read the generated development key, creating it (mode 0600) on first use."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    # O_EXCL: when two processes start together, exactly one writes; the other reads its key.
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key + "\n")
    return key
