"""Log lines never hold a bank-account page's one-time token: whoever reads the log could open the page with it."""

import logging
import re

# /payout/<token> and /payout/<world>/<token>: the token is the last part, 20 or more URL-safe characters.
_LINK = re.compile(r"(/payout/(?:[A-Za-z0-9][A-Za-z0-9_-]*/)?)[A-Za-z0-9_-]{20,}")
# uvicorn's access lines, and the HTTP clients' request lines (the harness's worlds visit the pages).
LOGGERS = ("uvicorn.access", "httpx", "httpx2")


def without_tokens(text: str) -> str:
    """`text` with every page link's token replaced by `…`."""
    return _LINK.sub(r"\1…", text)


class PageTokensHidden(logging.Filter):
    """Rewrites a record's message and arguments so no page token is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = without_tokens(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(without_tokens(arg) if isinstance(arg, str) else _text(arg) for arg in record.args)
        return True


def _text(value: object) -> object:
    """A URL object's text without tokens (httpx logs the request's URL object); anything else as it is."""
    if type(value).__name__ == "URL":
        return without_tokens(str(value))
    return value


_FILTER = PageTokensHidden()


def hide_page_tokens() -> None:
    """Install the filter on every logger that writes request paths (once; uvicorn's config keeps logger filters)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
