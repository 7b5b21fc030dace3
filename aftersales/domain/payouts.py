"""Bank accounts for cash-on-delivery refunds: what a valid account is, and the only form anyone else sees of it.

An account is an IBAN-style number (checked with ISO 7064 mod 97-10) or a mainland bank card number of 16 to 19
digits (checked with the Luhn digit). Everything outside the payout page and the encrypted column sees `masked()`:
four bullets and the last four characters.
"""

import re
from dataclasses import dataclass

HOLDER_MAX = 70
BANK_MAX = 60
ACCOUNT_MAX = 34  # an IBAN's longest; a card number is at most 19 digits
_SEPARATORS = re.compile(r"[\s-]+")
_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
_CARD = re.compile(r"[1-9][0-9]{15,18}")
_TEXT = re.compile(r"[^\x00-\x1f\x7f]+")  # printable text on one line


@dataclass(frozen=True)
class PayoutAccount:
    """A checked account: who holds it, its number without separators, and the bank."""

    holder: str
    number: str
    bank: str

    @property
    def kind(self) -> str:
        """ "iban" or "bank_card"."""
        return "bank_card" if self.number.isdigit() else "iban"

    def masked(self) -> str:
        """The only form of the number shown outside the payout page: `•••• 4821`."""
        return masked(self.number)


class AccountProblems(ValueError):
    """The fields a person must correct, each with a sentence saying what is wrong and what is accepted."""

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{field}: {text}" for field, text in problems.items()))


def masked(number: str) -> str:
    """Four bullets and the last four characters of an account number."""
    return f"•••• {number[-4:]}"


def normalised(number: str) -> str:
    """The number as compared and stored: spaces and hyphens removed, letters upper-case."""
    return _SEPARATORS.sub("", number).upper()


def luhn_ok(digits: str) -> bool:
    """Whether a digit string's last digit is its Luhn check digit."""
    total = 0
    for position, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def iban_ok(iban: str) -> bool:
    """Whether an IBAN's two check digits are right (ISO 7064 mod 97-10)."""
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def account_problem(number: str) -> str | None:
    """What is wrong with an account number as typed, or None when it is a valid IBAN or bank card number."""
    value = normalised(number)
    if not value:
        return "Enter the account number: an IBAN, or the 16 to 19 digits of a mainland bank card."
    if value.isdigit():
        if not _CARD.fullmatch(value):
            return f"A bank card number has 16 to 19 digits and does not start with 0; this one has {len(value)}."
        return None if luhn_ok(value) else "This card number's check digit does not match: look for a mistyped digit."
    if not _IBAN.fullmatch(value):
        return "An IBAN starts with two letters and two digits and has 15 to 34 letters and digits in all."
    return None if iban_ok(value) else "This IBAN's check digits do not match: look for a mistyped character."


def checked_account(holder: str, number: str, bank: str) -> PayoutAccount:
    """The account a person typed, or every field they must correct (AccountProblems)."""
    problems: dict[str, str] = {}
    holder, bank = holder.strip(), bank.strip()
    if not holder or len(holder) > HOLDER_MAX or not _TEXT.fullmatch(holder):
        problems["holder"] = f"Enter the account holder's name as the bank knows it (1 to {HOLDER_MAX} characters)."
    if len(number) > 2 * ACCOUNT_MAX or (problem := account_problem(number)) is not None:
        problems["account"] = (
            problem
            if len(number) <= 2 * ACCOUNT_MAX and problem
            else f"An account number has at most {ACCOUNT_MAX} letters and digits."
        )
    if len(bank) < 2 or len(bank) > BANK_MAX or not _TEXT.fullmatch(bank):
        problems["bank"] = f"Enter the bank's name (2 to {BANK_MAX} characters)."
    if problems:
        raise AccountProblems(problems)
    return PayoutAccount(holder=holder, number=normalised(number), bank=bank)
