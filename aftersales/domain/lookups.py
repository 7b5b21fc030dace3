"""Whose orders or tickets a lookup means: exactly one key, with emails and phone numbers read as the shop stores them.

The shop's accounts hold an email address (stored lower-case) and a mainland China mobile number, stored as
"+86 13812345678". A customer may say the number many ways: `normalise_phone` reads them all as that one form.
"""

import re
from dataclasses import dataclass
from typing import Literal

from aftersales.domain.errors import InvalidArguments

COUNTRY_CODE = "86"
MOBILE = re.compile(r"1\d{10}")  # a mainland mobile number: 11 digits starting with 1
SEPARATORS = re.compile(r"[\s\-().]")  # what people put between digits; never part of the number
INTERNATIONAL_PREFIXES = (f"+{COUNTRY_CODE}", f"00{COUNTRY_CODE}")

CustomerField = Literal["email", "phone", "customer_id"]
TicketField = Literal["customer_id", "order_id"]


def stored_phone(national: str) -> str:
    """A mobile number as the shop stores it: the country code, a space, the 11 national digits."""
    return f"+{COUNTRY_CODE} {national}"


def normalise_phone(text: str) -> str | None:
    """The stored form of a number as a customer may give it, or None when it is no mainland mobile number.

    Spaces, hyphens, dots and brackets are ignored; the country code may be given as +86, 0086 or 86, or left out.
    """
    digits = SEPARATORS.sub("", text)
    prefix = next((p for p in INTERNATIONAL_PREFIXES if digits.startswith(p)), None)
    if prefix is not None:
        digits = digits[len(prefix) :]
    elif len(digits) == 13 and digits.startswith(COUNTRY_CODE):
        digits = digits[len(COUNTRY_CODE) :]
    return stored_phone(digits) if MOBILE.fullmatch(digits) else None


def normalise_email(text: str) -> str:
    """An email address as the shop stores it: trimmed and lower-case."""
    return text.strip().lower()


@dataclass(frozen=True)
class CustomerKey:
    """How a lookup names a customer: one field, its value in the stored form, and the value as it was given."""

    field: CustomerField
    value: str
    given: str

    @property
    def described(self) -> str:
        """The key in words for messages, quoting what the caller sent."""
        return f'{self.field.replace("_", " ")} "{self.given}"'


@dataclass(frozen=True)
class TicketScope:
    """Whose tickets a listing means: one customer's, or one order's."""

    field: TicketField
    value: str


def exactly_one(tool: str, given: dict[str, str | None], purpose: str, ask: str) -> tuple[str, str]:
    """The one field of `given` that has a value, and that value; none or several is an argument error.

    `purpose` completes "Exactly one of them says ..."; `ask` is what to do when none was given.
    """
    present = {name: value for name, value in given.items() if value is not None}
    names = list(given)
    choices = ", ".join(names[:-1]) + f" or {names[-1]}"
    rule = f"Exactly one of {choices} says {purpose}."
    if not present:
        raise InvalidArguments(f"{tool} was called without any of {choices}.", rule, ask)
    if len(present) > 1:
        sent = ", ".join(f'{name} "{value}"' for name, value in present.items())
        first = next(iter(present))
        raise InvalidArguments(
            f"{tool} was called with {len(present)} of {choices} at once ({sent}).",
            rule,
            f"Call again with only one of them (for example only {first}); do not combine them.",
        )
    [(name, value)] = present.items()
    return name, value


def customer_key(tool: str, email: str | None, phone: str | None, customer_id: str | None) -> CustomerKey:
    """The one key a customer lookup was given, in the stored form; an unreadable phone number is refused."""
    field, given = exactly_one(
        tool,
        {"email": email, "phone": phone, "customer_id": customer_id},
        "whose orders to find",
        "Ask the customer for the email address or the mobile number on their account (or use the customer_id of "
        "an earlier result), then call again with that one field.",
    )
    if field == "email":
        return CustomerKey("email", normalise_email(given), given)
    if field == "phone":
        stored = normalise_phone(given)
        if stored is None:
            raise InvalidArguments(
                f'phone "{given}" is not a mobile number an account can hold.',
                "Accounts hold mainland China mobile numbers: 11 digits starting with 1, optionally after +86, 0086 "
                "or 86 (spaces, hyphens, dots and brackets are ignored).",
                "Ask the customer for the mobile number on their account, or for their email address, then call again.",
            )
        return CustomerKey("phone", stored, given)
    return CustomerKey("customer_id", given, given)


def ticket_scope(tool: str, customer_id: str | None, order_id: str | None) -> TicketScope:
    """The one scope a ticket listing was given."""
    field, value = exactly_one(
        tool,
        {"customer_id": customer_id, "order_id": order_id},
        "whose tickets to list",
        "Call again with the customer_id from after_sales_find_orders, or with the order number the customer gave.",
    )
    return TicketScope("customer_id" if field == "customer_id" else "order_id", value)
