"""Whose orders or tickets a lookup means: one key, phone numbers and emails read the way the shop stores them."""

import pytest

from aftersales.domain.errors import InvalidArguments
from aftersales.domain.lookups import CustomerKey, customer_key, normalise_phone, ticket_scope

TOOL = "after_sales_find_orders"


@pytest.mark.parametrize(
    "said",
    [
        "13812345678",
        "138 1234 5678",
        "138-1234-5678",
        "+86 138 1234 5678",
        "+8613812345678",
        "0086 13812345678",
        "8613812345678",
        "(+86) 138.1234.5678",
        " +86 13812345678 ",
    ],
)
def test_every_way_a_customer_says_a_mobile_number_reads_as_the_stored_form(said):
    assert normalise_phone(said) == "+86 13812345678"


@pytest.mark.parametrize(
    "said",
    [
        "23812345678",  # mainland mobiles start with 1
        "1381234567",  # ten digits
        "138123456789",  # twelve
        "+1 415 555 0100",  # another country
        "+85 13812345678",  # another country code in front of a mainland-looking number
        "86 1381234567",  # 86 and ten digits is no mainland number either
        "138 1234 5678 ext 2",
    ],
)
def test_a_number_that_is_no_mainland_mobile_reads_as_none(said):
    assert normalise_phone(said) is None


def test_a_lookup_by_email_compares_it_trimmed_and_lower_case_and_keeps_what_was_said():
    key = customer_key(TOOL, " Qiang.Guo.1@Example.com", None, None)
    assert key == CustomerKey("email", "qiang.guo.1@example.com", " Qiang.Guo.1@Example.com")
    assert key.described == 'email " Qiang.Guo.1@Example.com"'


def test_a_lookup_by_phone_uses_the_stored_form_and_by_id_the_id_itself():
    assert customer_key(TOOL, None, "134-6829-4670", None).value == "+86 13468294670"
    assert customer_key(TOOL, None, None, "C-00001") == CustomerKey("customer_id", "C-00001", "C-00001")


def test_a_lookup_with_none_of_the_three_keys_is_an_argument_error_naming_them_and_what_to_ask():
    with pytest.raises(InvalidArguments) as raised:
        customer_key(TOOL, None, None, None)
    error = raised.value
    assert error.kind == "invalid_arguments"
    assert error.what == f"{TOOL} was called without any of email, phone or customer_id."
    assert "Exactly one of email, phone or customer_id" in error.rule
    assert "Ask the customer for the email address or the mobile number" in error.next_step


def test_a_lookup_with_two_or_three_keys_names_each_one_given_with_its_value():
    with pytest.raises(InvalidArguments) as raised:
        customer_key(TOOL, "a@b.cn", "13812345678", "C-00001")
    text = str(raised.value)
    assert 'called with 3 of email, phone or customer_id at once (email "a@b.cn", phone "13812345678", ' in text
    assert 'customer_id "C-00001")' in text and "Call again with only one of them" in text


def test_a_phone_that_is_no_mobile_number_is_an_argument_error_quoting_it_with_the_rule():
    with pytest.raises(InvalidArguments) as raised:
        customer_key(TOOL, None, "+1 415 555 0100", None)
    assert 'phone "+1 415 555 0100" is not a mobile number' in str(raised.value)
    assert "11 digits starting with 1, optionally after +86" in raised.value.rule


def test_a_ticket_listing_takes_a_customer_or_an_order_but_not_both_nor_neither():
    assert ticket_scope("after_sales_list_tickets", "C-00001", None).field == "customer_id"
    assert ticket_scope("after_sales_list_tickets", None, "O-2026-000001").value == "O-2026-000001"
    with pytest.raises(InvalidArguments, match="without any of customer_id or order_id"):
        ticket_scope("after_sales_list_tickets", None, None)
    with pytest.raises(InvalidArguments, match='with 2 of customer_id or order_id at once .customer_id "C-00001"'):
        ticket_scope("after_sales_list_tickets", "C-00001", "O-2026-000001")
