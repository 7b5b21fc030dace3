"""Visit and submit the bank-account page as a person would: for a harness's customer, a world or a test.

`visit(http, url)` opens the page a URL question names (GET, which sets the page's cookie and gives the form's
check); `submit(http, url, ...)` posts the three fields with that check. `http` is any httpx2 client: one to a
running server, or one over `httpx2.ASGITransport(app=create_web_app(app))` in the same process. The answer says
what the page said, never the account.
"""

import re
from dataclasses import dataclass

import httpx2

_CHECK = re.compile(r'name="check" value="([0-9a-f]{64})"')
_HEADING = re.compile(r"<h1>(.*?)</h1>")


@dataclass(frozen=True)
class PageAnswer:
    """What the page answered: its HTTP status, its heading, and whether it took the account."""

    status: int
    heading: str
    accepted: bool
    html: str


async def visit(http: httpx2.AsyncClient, url: str) -> tuple[PageAnswer, str | None]:
    """Open the page; (what it showed, the form's check or None when it shows no form)."""
    response = await http.get(url)
    found = _CHECK.search(response.text)
    return _answer(response), found.group(1) if found else None


async def submit(
    http: httpx2.AsyncClient, url: str, holder: str, account: str, bank: str, check: str | None = None
) -> PageAnswer:
    """Fill in and send the form (visiting the page first unless a `check` is given)."""
    if check is None:
        shown, check = await visit(http, url)
        if check is None:
            return shown
    response = await http.post(url, data={"check": check, "holder": holder, "account": account, "bank": bank})
    return _answer(response)


def _answer(response: httpx2.Response) -> PageAnswer:
    heading = _HEADING.search(response.text)
    return PageAnswer(
        status=response.status_code,
        heading=heading.group(1) if heading else "",
        accepted=response.status_code == 200 and "account was received" in response.text,
        html=response.text,
    )
