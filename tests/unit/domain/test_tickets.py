"""Ticket numbers and the customer's words in a timeline."""

import re

from aftersales.domain.tickets import TICKET_NUMBER_PATTERN, WORDS_IN_TIMELINE, customer_words, ticket_number


def test_every_ticket_number_matches_the_pattern_the_tools_publish():
    assert all(re.match(TICKET_NUMBER_PATTERN, ticket_number(2026, n)) for n in (1, 42, 9999, 10000))


def test_a_timeline_quotes_the_customers_words_whole_up_to_its_limit_and_cut_with_an_ellipsis_beyond():
    fits, longer = "x" * WORDS_IN_TIMELINE, "y" * (WORDS_IN_TIMELINE + 1)
    assert customer_words(fits) == fits
    assert customer_words(longer) == "y" * (WORDS_IN_TIMELINE - 3) + "..." and len(customer_words(longer)) == 120
