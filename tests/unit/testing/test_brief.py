"""How a task says the customer answers the bank-account page: kept out of briefs, and what it needs of a client."""

from aftersales.testing.brief import brief_for, conversation_brief_for
from aftersales.testing.loader import load

ACCOUNT = "after_sales_create_ticket:bank_account"


def test_no_brief_holds_what_the_customer_types_on_the_page_only_that_they_accept_it():
    (task,) = load("refund-cod-tshirts-bank-account")
    for forms in ("world", "client"):
        briefs = [
            brief_for(task, 1, forms).model_dump_json(),
            conversation_brief_for(task, 1, "client").model_dump_json(),
        ]
        assert not [text for text in briefs if "5698" in text or "Barclays" in text]
    assert brief_for(task, 1, "client").customer.forms[ACCOUNT].model_dump(exclude_none=True) == {"action": "accept"}


def test_only_a_customer_who_submits_the_page_in_time_needs_a_client_that_opens_it():
    needing = {task.id for task in load() if task.needs_url_mode}
    assert needing == {"refund-cod-tshirts-bank-account"}  # closing it, letting it expire or no URL mode: any client
