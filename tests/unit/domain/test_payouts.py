"""Payout accounts: check digits, masking, and the cipher's key ring."""

import pytest

from aftersales.domain.payouts import AccountProblems, checked_account, masked
from aftersales.security.payout_keys import AccountCipher

KEY_A, KEY_B = "a" * 40, "b" * 40


def test_an_iban_with_right_check_digits_is_kept_without_spaces_and_upper_case():
    account = checked_account("Wei Zhang", "gb82 west 1234 5698 7654 32", "Barclays")
    assert account.number == "GB82WEST12345698765432" and account.kind == "iban"


def test_an_iban_with_a_wrong_check_digit_is_refused_naming_the_account_field():
    with pytest.raises(AccountProblems) as refused:
        checked_account("Wei Zhang", "GB83WEST12345698765432", "Barclays")
    assert list(refused.value.problems) == ["account"] and "check digits" in refused.value.problems["account"]


def test_a_card_number_must_pass_the_luhn_check():
    assert checked_account("Wei Zhang", "4111 1111 1111 1111", "ICBC").kind == "bank_card"
    with pytest.raises(AccountProblems) as refused:
        checked_account("Wei Zhang", "4111111111111112", "ICBC")
    assert "check digit" in refused.value.problems["account"]


def test_every_field_to_correct_is_named_at_once():
    with pytest.raises(AccountProblems) as refused:
        checked_account("", "12", "x")
    assert sorted(refused.value.problems) == ["account", "bank", "holder"]


def test_a_masked_account_shows_four_bullets_and_the_last_four_characters():
    assert masked("GB82WEST12345698764821") == "•••• 4821"


def test_an_account_sealed_with_an_old_key_opens_after_a_new_key_is_put_in_front_and_rotates_to_it():
    account = checked_account("Wei Zhang", "4111111111111111", "ICBC")
    old = AccountCipher([KEY_A]).seal(account)
    ring = AccountCipher([KEY_B, KEY_A])
    assert ring.open(old) == account
    rotated = ring.rotated(old)
    assert AccountCipher([KEY_B]).open(rotated) == account
    assert "4111111111111111" not in old and "Wei Zhang" not in old
    with pytest.raises(ValueError):
        AccountCipher([KEY_B]).open(old)
