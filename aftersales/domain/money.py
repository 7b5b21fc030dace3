"""Money is integer minor units plus an ISO 4217 code; never floats."""

SYMBOLS = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£"}


def format_money(amount_minor: int, currency: str) -> str:
    """Format minor units for people, e.g. 129900 CNY -> "¥1,299.00"."""
    sign = "-" if amount_minor < 0 else ""
    major, minor = divmod(abs(amount_minor), 100)
    symbol = SYMBOLS.get(currency)
    body = f"{major:,}.{minor:02d}"
    return f"{sign}{symbol}{body}" if symbol else f"{sign}{body} {currency}"
