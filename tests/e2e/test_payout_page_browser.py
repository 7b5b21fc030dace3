"""The bank-account page in headless Chromium, as a person uses it: by its labels, with the mouse or the keyboard.

The server runs over real HTTP (uvicorn) with its public URL set to where it listens, so the links the service hands
out are the ones the browser opens. Each test opens its own page through the service, on one SQLite database.
"""

import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from aftersales.app import App
from aftersales.services.payouts import digest
from aftersales.storage.payout_rows import PayoutRequest
from tests.support.browser import browser
from tests.support.payouts import ACCOUNT, CARD, opened_page, served_app

pytestmark = pytest.mark.http
WRONG_IBAN = "GB83 WEST 1234 5698 7654 32"  # ACCOUNT with one check digit changed


@pytest.fixture(scope="module")
def served(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    """One served app for the module, its public URL where uvicorn listens."""
    folder = tmp_path_factory.mktemp("payout-browser")
    shutil.copyfile(sqlite_template, folder / "aftersales.db")
    with served_app(f"sqlite:///{folder / 'aftersales.db'}", folder) as (app, _url):
        yield app


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    """One browser and one page for the module."""
    with browser() as context:
        yield context.new_page()


@pytest.fixture
def link(served: App, baseline, request: pytest.FixtureRequest) -> str:
    """A fresh page's link, opened for this test's own call."""
    return opened_page(
        served, baseline.stories["cod_tshirts_in_window"]["order_id"], f"browser-{request.node.name[:40]}"
    )


def status_of(app: App, link: str) -> tuple[str, bool]:
    """The page's request as stored: its status, and whether it holds a sealed account."""
    token = link.rsplit("/", 1)[1]
    with app.uow() as uow:
        status, sealed = uow.session.execute(
            select(PayoutRequest.status, PayoutRequest.sealed).where(PayoutRequest.token_digest == digest(token))
        ).one()
    return status, sealed is not None


def fill(page: Page, holder: str, account: str, bank: str) -> None:
    """Fill in the three fields, found by their labels as a screen reader names them."""
    page.get_by_label("Account holder's name").fill(holder)
    page.get_by_label("Account number").fill(account)
    page.get_by_label("Bank", exact=True).fill(bank)


def test_a_person_fills_in_the_page_by_its_labels_and_sees_the_account_received_masked(page, served, link):
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Bank account for your refund")
    fill(page, "Wei Zhang", CARD, "China Merchants Bank")
    page.get_by_role("button", name="Send the account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you: the account was received")
    expect(page.get_by_role("status")).to_contain_text("•••• 2754")
    assert CARD.replace(" ", "") not in page.content() and status_of(served, link) == ("submitted", True)


def test_a_wrong_check_digit_is_announced_tied_to_its_field_and_the_other_answers_are_kept(page, served, link):
    page.goto(link)
    fill(page, "Wei Zhang", WRONG_IBAN, "Barclays")
    page.get_by_role("button", name="Send the account").click()
    account = page.get_by_label("Account number")
    expect(page.get_by_role("alert")).to_contain_text("Please correct 1 field(s)")
    expect(account).to_have_attribute("aria-invalid", "true")
    expect(account).to_have_accessible_description(
        "An IBAN, or the 16 to 19 digits of a mainland bank card. "
        "This IBAN's check digits do not match: look for a mistyped character."
    )
    expect(account).to_have_value("")  # the number is never sent back to the browser
    expect(page.get_by_label("Account holder's name")).to_have_value("Wei Zhang")
    expect(page.get_by_label("Bank", exact=True)).to_have_value("Barclays")
    assert status_of(served, link) == ("pending", False)


def test_an_expired_link_says_so_and_shows_no_form(page, served, baseline):
    order_id, ttl = baseline.stories["cod_tshirts_in_window"]["order_id"], served.settings.payout_page_ttl
    expired = opened_page(served, order_id, "browser-expired", ttl + timedelta(seconds=1))
    answer = page.goto(expired)
    assert answer is not None and answer.status == 410
    expect(page.get_by_role("heading", level=1)).to_have_text("This link has expired")
    expect(page.locator("form")).to_have_count(0)


def test_a_used_link_opened_again_or_its_form_sent_again_says_it_was_already_used(page, served, link):
    page.goto(link)
    fill(page, "Wei Zhang", ACCOUNT, "Barclays")
    page.get_by_role("button", name="Send the account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you: the account was received")
    page.go_back()  # the form comes back from the server (never from a cache): the link is spent
    expect(page.get_by_role("heading", level=1)).to_have_text("This link was already used")
    answer = page.goto(link)
    assert answer is not None and answer.status == 410
    expect(page.get_by_role("heading", level=1)).to_have_text("This link was already used")
    assert status_of(served, link) == ("submitted", True)


def test_the_keyboard_alone_reaches_every_field_in_order_and_an_error_leads_back_to_its_field(page, served, link):
    page.goto(link)
    order = []
    for typed in ("Wei Zhang", WRONG_IBAN, "Barclays"):
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.id"))
        page.keyboard.type(typed)
    page.keyboard.press("Tab")
    assert order == ["holder", "account", "bank"]
    expect(page.get_by_role("button", name="Send the account")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("alert")).to_be_visible()
    page.keyboard.press("Tab")  # the summary comes first: its link names the field to correct
    expect(page.get_by_role("link", name="This IBAN's check digits do not match")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Account number")).to_be_focused()
    page.keyboard.type(ACCOUNT)
    page.keyboard.press("Enter")  # Enter in a field sends the form
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you: the account was received")
    assert status_of(served, link) == ("submitted", True)
