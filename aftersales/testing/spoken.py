"""What an agent's words say: an amount, a number, an id or a refusal's reason, however it is written (pure).

The rules are the ones docs/tasks.md ("Conversation rules") lists: text is compared case-blind, with curly quotes
made straight; an id or a name may have its hyphens written as spaces or dropped; a number may be written with
thousands commas, a decimal point or comma, or (0 to 20) as a word; an amount in major units (`€49.90`, `49.90 EUR`,
`49.9`, `¥1,299`) or in minor units (`4990 cents`), and a currency it names must be the result's.
"""

import re
from decimal import Decimal, InvalidOperation

from aftersales.domain.money import SYMBOLS

# Words for each currency besides its ISO code and its symbol (aftersales.domain.money.SYMBOLS).
CURRENCY_WORDS = {
    "CNY": ("rmb", "yuan", "元"),
    "EUR": ("euro", "euros"),
    "USD": ("dollar", "dollars"),
    "GBP": ("pound", "pounds"),
}
MINOR_WORDS = ("cents", "cent", "fen", "pence", "minor units", "minor unit")
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
# A number standing alone (not part of an id like O-2026-001410): 1,299.00, 49.90, 49,90, 4990.
NUMBER = re.compile(r"(?<![\w.,'-])(\d{1,3}(?:,\d{3})+|\d+)(?:([.,])(\d+))?(?![\w'-]|[.,]\d)")
TOKEN = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
GAP = r"[\s\-‐‑–—_]*"  # what may stand for a hyphen, space or underscore of an id or name
# A turn says no: one of these words, or any word ending in n't (can't, isn't, won't).
REFUSING = frozenset(
    [
        "not",
        "cannot",
        "unable",
        "unfortunately",
        "refuse",
        "refused",
        "refuses",
        "declined",
        "denied",
        "impossible",
        "ineligible",
        "excluded",
        "closed",
        "ended",
        "expired",
        "past",
    ]
)
# Words too common in the server's refusals to show that a turn gives the reason.
COMMON = frozenset(
    [
        "this",
        "that",
        "with",
        "from",
        "have",
        "been",
        "were",
        "once",
        "only",
        "like",
        "them",
        "they",
        "their",
        "there",
        "these",
        "those",
        "what",
        "when",
        "which",
        "would",
        "will",
        "your",
        "yours",
        "into",
        "than",
        "then",
        "also",
        "still",
        "after",
        "before",
        "because",
        "about",
        "other",
        "more",
        "some",
        "each",
        "again",
        "cannot",
        "order",
        "line",
        "customer",
        "ticket",
        "shop",
        "does",
        "call",
        "please",
        "sorry",
    ]
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def plain(text: str) -> str:
    """Text as the rules compare it: case-blind, curly quotes straight, a currency code apart from its digits."""
    folded = text.casefold().replace("’", "'").replace("‘", "'")
    return re.sub(r"\b(eur|usd|gbp|cny|rmb)(?=\d)", r"\1 ", folded)


def says_amount(text: str, amount: int, currency: str) -> bool:
    """Whether `text` states `amount` minor units of `currency`, in major or minor units."""
    said = plain(text)
    for match in NUMBER.finditer(said):
        before, after = said[: match.start()].rstrip(), said[match.end() :].lstrip()
        named = _currency_before(before) or _currency_after(after)
        if named is not None and named != currency:
            continue
        value = _value(match)
        minor = any(re.match(rf"{re.escape(word)}\b", after) for word in MINOR_WORDS)
        if value is not None and (value if minor else value * 100) == amount:
            return True
    return False


def says_number(text: str, number: int | float) -> bool:
    """Whether `text` states `number`: in figures however punctuated, or (0 to 20) as a word."""
    said = plain(text)
    if any(_value(match) == Decimal(str(number)) for match in NUMBER.finditer(said)):
        return True
    whole = int(number) == number and 0 <= number < len(NUMBER_WORDS)
    return whole and re.search(rf"\b{NUMBER_WORDS[int(number)]}\b", said) is not None


def says_text(text: str, value: str) -> bool:
    """Whether `text` holds `value` (an id, an email, a name) as a whole, its hyphens and spaces written any way."""
    words = re.findall(r"[^\W_]+", plain(value))
    if not words:
        return False
    gaps = re.findall(r"(?<=[^\W_])[\W_]+(?=[^\W_])", plain(value))  # what stands between one word and the next
    body = re.escape(words[0])
    for gap, word in zip(gaps, words[1:], strict=True):
        body += (GAP if re.fullmatch(GAP, gap) else re.escape(gap)) + re.escape(word)
    return re.search(rf"(?<![^\W_]){body}(?![^\W_])", plain(text)) is not None


def says_value(text: str, value: str | int | float) -> bool:
    """Whether `text` states a fact's value: a number as a number, anything else as text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return says_number(text, value)
    return says_text(text, str(value))


def reason(message: str) -> str:
    """A rule refusal's reason: its first two sentences, what was wrong and the rule (the third is for the agent)."""
    return " ".join(SENTENCE_END.split(message.strip())[:2])


def tells_refusal(text: str, message: str) -> bool:
    """Whether a turn tells a refusal: it says no, and shares two telling words (or all, if fewer) with its reason."""
    said = TOKEN.findall(plain(text))
    if not any(word in REFUSING or word.endswith("n't") for word in said):
        return False
    wanted = _stems(TOKEN.findall(plain(reason(message))))
    return len(_stems(said) & wanted) >= min(2, len(wanted)) > 0


def _stems(words: list[str]) -> set[str]:
    """Telling words by their first five letters (return, returned, returnable); ids and dates whole."""
    return {
        word if any(ch.isdigit() for ch in word) else word[:5]
        for word in words
        if any(ch.isdigit() for ch in word) or (len(word) >= 4 and word not in COMMON)
    }


def _value(match: re.Match[str]) -> Decimal | None:
    whole, point, fraction = match.groups()
    try:
        return Decimal(whole.replace(",", "") + (f".{fraction}" if point else ""))
    except InvalidOperation:
        return None


def _currency_before(before: str) -> str | None:
    """The currency named just before an amount (€49.90, EUR 49.90)."""
    for code, names in _names().items():
        if any(re.search(rf"(?<!\w){re.escape(name)}$", before) for name in names):
            return code
    return None


def _currency_after(after: str) -> str | None:
    """The currency named just after an amount (49.90 EUR, 49.90€, 1299 yuan)."""
    for code, names in _names().items():
        if any(re.match(rf"{re.escape(name)}(?!\w)", after) for name in names):
            return code
    return None


def _names() -> dict[str, tuple[str, ...]]:
    """Each currency's code, symbol and words, as plain() writes them."""
    return {code: (code.casefold(), symbol, *CURRENCY_WORDS.get(code, ())) for code, symbol in SYMBOLS.items()}
