"""Key rings from settings: configured in production, generated and kept private in development."""

import pytest

from aftersales.security.keys import KeyConfigurationError, key_ring

STRONG = "k" * 40


def test_production_without_keys_refuses_to_start_and_says_how_to_fix_it(tmp_path):
    with pytest.raises(KeyConfigurationError, match="AFTERSALES_SECRET_KEYS is not set"):
        key_ring(None, env="production", data_dir=tmp_path, name="secret_keys", variable="AFTERSALES_SECRET_KEYS")


def test_production_refuses_a_key_under_32_bytes(tmp_path):
    with pytest.raises(KeyConfigurationError, match="shorter than 32 bytes"):
        key_ring(f"{STRONG},short", env="production", data_dir=tmp_path, name="k", variable="AFTERSALES_SECRET_KEYS")


def test_configured_keys_keep_their_order_so_the_first_signs(tmp_path):
    ring = key_ring(f" {STRONG}, {'z' * 40} ", env="production", data_dir=tmp_path, name="k", variable="V")
    assert ring == [STRONG, "z" * 40]


def test_development_generates_one_key_keeps_it_private_and_reuses_it(tmp_path):
    first = key_ring(None, env="development", data_dir=tmp_path, name="secret_keys", variable="V")
    again = key_ring(None, env="development", data_dir=tmp_path, name="secret_keys", variable="V")
    assert first == again and len(first[0]) >= 32
    assert (tmp_path / "secret_keys").stat().st_mode & 0o077 == 0
