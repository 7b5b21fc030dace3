"""How an agent's words are compared: ids with any spacing, numbers however punctuated, amounts, refusals."""

import pytest

from aftersales.testing.spoken import reason, says_amount, says_number, says_text, tells_refusal


@pytest.mark.parametrize("said", ["T-2026-0401", "t 2026 0401", "T20260401", "T–2026–0401", "(T-2026-0401)."])
def test_an_id_is_named_with_its_hyphens_written_any_way(said):
    assert says_text(f"Your ticket: {said}", "T-2026-0401")


@pytest.mark.parametrize("said", ["T-2026-04012", "XT-2026-0401", "T-2026-0402", "2026-0401"])
def test_an_id_inside_a_longer_one_or_a_part_of_it_is_not_named(said):
    assert not says_text(f"Your ticket: {said}", "T-2026-0401")


def test_an_email_keeps_its_at_sign_and_is_compared_case_blind():
    assert says_text("Is it JIE.SUN.3@example.com?", "jie.sun.3@example.com")
    assert not says_text("Is it jie.sun.3 example.com?", "jie.sun.3@example.com")


def test_a_number_is_read_in_figures_however_punctuated_or_as_a_word_up_to_twenty():
    assert says_number("three pairs", 3) and says_number("3 pairs", 3) and says_number("Twenty.", 20)
    assert says_number("1,299 units", 1299) and says_number("2,5 kg", 2.5)
    assert not says_number("ticket T-2026-0003", 3) and not says_number("13 pairs", 3)


@pytest.mark.parametrize(
    ("said", "amount", "currency"),
    [("€49.90", 4990, "EUR"), ("£0.99", 99, "GBP"), ("$1,000", 100000, "USD"), ("USD1,000.00", 100000, "USD")],
)
def test_an_amount_is_read_in_major_units_with_its_currency_or_none(said, amount, currency):
    assert says_amount(f"That comes to {said} in all.", amount, currency)


def test_a_refusal_is_told_by_a_turn_that_says_no_and_gives_its_reason():
    message = (
        "The warranty of DJI Mini 4 Pro on order O-2026-001450 ended on 2026-10-01. Repairs are free within "
        "the 12-month warranty after delivery. Do not retry; tell the customer the warranty has ended."
    )
    assert reason(message).endswith("within the 12-month warranty after delivery.")
    assert tells_refusal("I'm afraid the drone's warranty ended on 2026-10-01, so no free repair.", message)
    assert not tells_refusal("Your drone's warranty repair is booked for 2026-10-01.", message)  # no "no"
    assert not tells_refusal("Sorry, I can't do that.", message)  # no reason
    assert not tells_refusal("Unfortunately: do not retry, tell the customer.", message)  # the advice is no reason
