"""The bank-account page a cash-on-delivery refund sends the person to (URL-mode elicitation).

Served by this server, no script and no outside asset: a plain HTML form that works without JavaScript. A link is
one page of one pending request (services.payouts): it works until the page's lifetime ends or it took an account.
Cross-site posts are refused twice over: a SameSite=Strict cookie set when the page is shown, whose keyed digest
the form carries back, and the Origin / Sec-Fetch-Site headers a browser sends. Nothing about the account is
logged; a refused post writes nothing.
"""

import hashlib
import hmac
import secrets
from collections.abc import Callable
from html import escape
from typing import TypeVar
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.payouts import AccountProblems
from aftersales.services import payouts
from aftersales.services.payouts import PageGone, PageView
from aftersales.worlds.world_errors import UnknownWorld

T = TypeVar("T")
COOKIE = "aftersales_payout"
MAX_BODY = 8 * 1024  # the form's three fields and its check, with room to spare; more is refused unread
MAX_FIELDS = 8  # the form has four; a body with more is refused before anything is read from it
GONE = {
    "expired": (410, "This link has expired", "The page was open for a limited time only."),
    "used": (410, "This link was already used", "The account for this refund was already given on this page."),
    "closed": (410, "This link was closed", "The page was closed before an account was given."),
    "unknown": (404, "This link is not valid", "It may have been copied incompletely."),
}
STYLE = """
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f23}
main{max-width:32rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin-top:1rem}
input{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.5rem;margin-top:.25rem;
border:1px solid #6b7280;
border-radius:4px}input[aria-invalid=true]{border:2px solid #b42318}
.hint{color:#4b5563;font-size:.9rem;margin:.15rem 0 0}.error{color:#b42318;font-weight:600;margin:.25rem 0 0}
button{margin-top:1.5rem;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:4px;
background:#1d4ed8;
color:#fff;cursor:pointer}:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.summary{border:2px solid #b42318;padding:.5rem 1rem;border-radius:4px}
"""


def payout_routes(app: App) -> list[Route]:
    """The page's routes: /payout/{token}, /payout/{world}/{token} in a world, any other /payout/ path unknown."""

    async def page(request: Request) -> Response:
        token, world = request.path_params["token"], request.path_params.get("world")
        if request.method == "POST":
            return await _post(app, request, token, world)
        try:
            view = await app.database.read(lambda: _in_world(app, world, lambda: _view(app, token)))
        except PageGone as gone:
            return _gone(gone.reason)
        cookie = secrets.token_urlsafe(24)
        response = _form(view, _check(app, token, cookie))
        response.set_cookie(COOKIE, cookie, httponly=True, samesite="strict", secure=_secure(request), path="/payout")
        return response

    async def unknown(_request: Request) -> Response:
        return _gone("unknown")

    return [
        Route("/payout/{token}", page, methods=["GET", "POST"]),
        Route("/payout/{world}/{token}", page, methods=["GET", "POST"]),
        # A link cut short or with a slash added is still one of these pages' links, and gets their answer.
        Route("/payout/{rest:path}", unknown, methods=["GET", "POST"]),
    ]


async def _post(app: App, request: Request, token: str, world: str | None) -> Response:
    """Take the account once; every refusal writes nothing."""
    if not _same_site(request):
        return _message(403, "This form was sent from another site", "Open the link you were given and try again.")
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_BODY:
            return _message(413, "That was too much to send", "Each field takes a few dozen characters at most.")
    try:
        fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), max_num_fields=MAX_FIELDS).items()}
    except ValueError:  # more fields than the form has
        return _message(400, "This form could not be read", "Open the link you were given again and resubmit.")
    cookie = request.cookies.get(COOKIE, "")
    # Compared as bytes: compare_digest refuses text that is not ASCII, and a forged check may be any text.
    sent = fields.get("check", "").encode()
    if not cookie or not hmac.compare_digest(sent, _check(app, token, cookie).encode()):
        return _message(403, "This form could not be checked", "Open the link you were given again and resubmit.")
    holder, number, bank = (fields.get(name, "") for name in ("holder", "account", "bank"))
    try:
        _, payout = await app.database.write(
            lambda: _in_world(
                app,
                world,
                lambda: payouts.submit_account(
                    app.uow(write=True), token, holder, number, bank, now(), app.payout_cipher
                ),
            )
        )
    except PageGone as gone:
        return _gone(gone.reason)
    except AccountProblems as problems:
        view = await app.database.read(lambda: _in_world(app, world, lambda: _view(app, token)))
        return _form(view, fields.get("check", ""), problems.problems, {"holder": holder, "bank": bank}, 400)
    return _message(
        200,
        "Thank you: the account was received",
        f"The refund goes to the account ending {escape(payout.account_mask)} (reference "
        f"{escape(payout.reference)}). You can close this page and go back to the chat.",
    )


def _view(app: App, token: str) -> PageView:
    """What the page shows for a token (PageGone when it cannot take an account)."""
    return payouts.page_for(app.uow(), token, now())


def _in_world(app: App, world: str | None, work: Callable[[], T]) -> T:
    """Run `work` in the world a page's link names (none: the default world); an unknown world is an unknown page."""
    if world is None:
        return work()
    try:
        found = app.router.get(world)
    except UnknownWorld:
        raise PageGone("unknown") from None
    with app.router.entered(found):
        return work()


def _check(app: App, token: str, cookie: str) -> str:
    """The form's check: the cookie and the page, keyed, so another site can neither read nor forge it."""
    key = app.state_keys[0].encode()
    return hmac.new(key, f"payout-form\x00{token}\x00{cookie}".encode(), hashlib.sha256).hexdigest()


def _same_site(request: Request) -> bool:
    """Whether the browser says the post came from this site (no header at all: a non-browser client)."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.url.netloc}"


def _secure(request: Request) -> bool:
    """Whether the page was served over HTTPS (the cookie is then sent over HTTPS only)."""
    return request.url.scheme == "https"


def _gone(reason: str) -> Response:
    """The page for a link that cannot take an account."""
    status, title, why = GONE[reason]
    return _message(status, title, f"{why} Go back to the chat and ask for a new link if you still need one.")


def _message(status: int, title: str, text: str) -> HTMLResponse:
    """A page with one heading and one paragraph (titles and texts are this module's own, already safe)."""
    return _html(status, title, f'<h1>{title}</h1><p role="status">{text}</p>')


def _form(
    view: PageView,
    check: str,
    problems: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status: int = 200,
) -> HTMLResponse:
    """The form, with each field's label, hint and (after a refused post) its error, tied by aria attributes."""
    problems, values = problems or {}, values or {}
    fields = [
        ("holder", "Account holder's name", "As the bank knows it.", "name", "text"),
        ("account", "Account number", "An IBAN, or the 16 to 19 digits of a mainland bank card.", "off", "text"),
        ("bank", "Bank", "The bank's name, for example China Merchants Bank.", "organization", "text"),
    ]
    rows = []
    for name, label, hint, complete, kind in fields:
        error = problems.get(name)
        described = f"{name}-hint" + (f" {name}-error" if error else "")
        rows.append(
            f'<label for="{name}">{label}</label><p class="hint" id="{name}-hint">{hint}</p>'
            + (f'<p class="error" id="{name}-error">{escape(error)}</p>' if error else "")
            + f'<input id="{name}" name="{name}" type="{kind}" autocomplete="{complete}" required maxlength="80" '
            f'aria-describedby="{described}" aria-invalid="{"true" if error else "false"}" '
            f'value="{escape(values.get(name, ""))}"'
            + (' spellcheck="false" autocapitalize="characters"' if name == "account" else "")
            + ">"
        )
    summary = ""
    if problems:
        items = "".join(f'<li><a href="#{name}">{escape(text)}</a></li>' for name, text in problems.items())
        summary = (
            f'<div class="summary" role="alert"><p>Please correct {len(problems)} field(s):</p><ul>{items}</ul></div>'
        )
    until = view.expires_at.strftime("%H:%M UTC")
    body = (
        "<h1>Bank account for your refund</h1>"
        f"<p>Order {escape(view.order_id)}, line {view.line_no}, was paid in cash on delivery, so the refund goes by "
        f"bank transfer. This page is the shop's own; what you enter is not shown in the chat. It works once, "
        f"until {until}.</p>{summary}"
        f'<form method="post" novalidate><input type="hidden" name="check" value="{check}">'
        + "".join(rows)
        + '<button type="submit">Send the account</button></form>'
    )
    return _html(status, "Bank account for your refund", body)


def _html(status: int, title: str, body: str) -> HTMLResponse:
    """A whole page: no script, no outside asset, never cached, never framed."""
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )
    headers = {
        "Cache-Control": "no-store",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "frame-ancestors 'none'",
        # Not no-referrer: with it a browser sends `Origin: null` on the form's own post, which _same_site refuses.
        # same-origin keeps the link (its token) from every other site all the same.
        "Referrer-Policy": "same-origin",
        "X-Content-Type-Options": "nosniff",
    }
    return HTMLResponse(page, status_code=status, headers=headers)
