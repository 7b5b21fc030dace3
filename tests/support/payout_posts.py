"""Generated bad requests to the bank-account page: forged links, and posts the page must refuse.

Each request goes to `/payout/...` as a browser or a script could send it: a link with a changed, random or
foreign-world token, or a post to a live page whose body, fields, cookie or headers are wrong. `would_take` is what
the page would accept, so a generated post that happens to be a good one is left out.
"""

import hashlib
import hmac
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlencode

from hypothesis import assume
from hypothesis import strategies as st

from aftersales.domain.payouts import AccountProblems, checked_account
from tests.support.payouts import ACCOUNT

FIELDS = ("check", "holder", "account", "bank")
FORM = "application/x-www-form-urlencoded"
CHECK = re.compile(r'name="check" value="([0-9a-f]{64})"')  # the form's check, as the page writes it


@dataclass(frozen=True)
class Live:
    """The page the posts go to: its path, its token, the cookie it set and the form's check."""

    path: str
    token: str
    cookie: str
    check: str


@dataclass(frozen=True)
class PagePost:
    """One generated request: method, path, body and headers."""

    method: str
    path: str
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


def would_take(live: Live, post: PagePost) -> bool:
    """Whether the page would take an account from this request (what the generators leave out)."""
    if post.method != "POST" or post.path != live.path:
        return False
    if post.headers.get("cookie") != f"aftersales_payout={live.cookie}":
        return False
    if post.headers.get("origin") or post.headers.get("sec-fetch-site", "same-origin") != "same-origin":
        return False
    try:
        fields = {k: v[0] for k, v in parse_qs(post.body.decode("utf-8", "replace"), max_num_fields=8).items()}
    except ValueError:
        return False
    if fields.get("check") != live.check:
        return False
    try:
        checked_account(fields.get("holder", ""), fields.get("account", ""), fields.get("bank", ""))
    except AccountProblems:
        return False
    return True


def texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Any text: control characters, other scripts, the near misses a person types."""
    near = st.sampled_from(["", " ", ACCOUNT[:-1], ACCOUNT + "0", "GB00" + ACCOUNT[4:], "4111111111111112", "0" * 19])
    return st.one_of(near, st.text(max_size=max_size), st.text(alphabet="0123456789 -", max_size=24))


def tokens(live: Live) -> st.SearchStrategy[str]:
    """Tokens that are not the live one: random text, or the live token with one character changed or cut."""
    at = st.integers(0, len(live.token) - 1)
    edited = st.one_of(
        st.builds(lambda i, char: live.token[:i] + char + live.token[i + 1 :], at, st.characters()),
        st.builds(lambda i: live.token[:i], at),
        st.builds(lambda char: live.token + char, st.characters()),
    )
    # "." and ".." are left out: the client itself resolves them away before sending.
    return st.one_of(edited, st.text(max_size=60)).filter(
        lambda token: token != live.token and token not in (".", "..")
    )


def paths(live: Live) -> st.SearchStrategy[str]:
    """A forged link: a wrong token alone, or under a world id (well-formed or not)."""
    worlds = st.one_of(st.from_regex(r"[a-z0-9][a-z0-9-]{0,23}", fullmatch=True), st.text(min_size=1, max_size=30))
    alone = tokens(live).map(lambda token: f"/payout/{quote(token, safe='')}")
    in_world = st.builds(
        lambda world, token: f"/payout/{quote(world, safe='')}/{quote(token, safe='')}",
        worlds.filter(lambda world: world not in (".", "..")),
        st.one_of(st.just(live.token), tokens(live)),
    )
    return st.one_of(alone, in_world)


@st.composite
def bodies(draw: st.DrawFn, live: Live) -> bytes:
    """A form body: the page's fields (some wrong, missing or repeated), extra fields, or bytes of any kind."""
    kind = draw(st.sampled_from(["fields", "many fields", "bytes", "huge"]))
    if kind == "bytes":
        return draw(st.sampled_from([b"", f"check={live.check}&".encode()])) + draw(st.binary(max_size=200))
    if kind == "huge":
        size = draw(st.integers(8_200, 70_000))
        return urlencode({"check": live.check, draw(st.sampled_from(FIELDS[1:])): "x" * size}).encode()
    pairs = [(name, draw(texts())) for name in FIELDS[1:] if draw(st.integers(0, 5))]
    forged = st.sampled_from([sign(live.check), "é" * 64, live.check[:-1] + "ü"])  # right length, wrong key or text
    check = draw(st.one_of(st.just(live.check), texts(70), forged))
    pairs.append(("check", check))
    if kind == "many fields":
        pairs += [(draw(st.sampled_from(FIELDS)), draw(texts(8))) for _ in range(draw(st.integers(6, 12)))]
    return urlencode(draw(st.permutations(pairs))).encode()


def sign(text: str) -> str:
    """A check of the right shape made with a key the server does not hold."""
    return hmac.new(b"not the server's key", text.encode(), hashlib.sha256).hexdigest()


@st.composite
def page_posts(draw: st.DrawFn, live: Live) -> PagePost:
    """A request the page must refuse with a 4xx page of its own."""
    headers: dict[str, str] = {"content-type": draw(st.sampled_from([FORM, FORM, "text/plain", "application/json"]))}
    cookie = draw(st.one_of(st.just(live.cookie), st.just(live.cookie), texts(40), st.none()))
    if cookie is not None:
        headers["cookie"] = f"aftersales_payout={quote(cookie, safe='')}"  # the live cookie is URL-safe as it is
    if draw(st.integers(0, 3)) == 0:
        headers["origin"] = draw(st.sampled_from(["https://evil.example", "null", "http://127.0.0.1"]))
    if draw(st.integers(0, 3)) == 0:
        headers["sec-fetch-site"] = draw(st.sampled_from(["cross-site", "same-site", "same-origin", "none"]))
    method = draw(st.sampled_from(["GET", "POST", "POST", "POST"]))
    path = draw(st.one_of(st.just(live.path), st.just(live.path), paths(live)))
    if method == "GET" and path == live.path:
        method = "POST"  # a GET of the live page is the page itself, not a refusal
    post = PagePost(method, path, draw(bodies(live)) if method == "POST" else b"", headers)
    assume(not would_take(live, post))
    return post


def refusal_problem(status: int, content_type: str, text: str) -> str | None:
    """Why an answer is not a clear refusal: a 4xx HTML page of the server's own, with a heading."""
    if not 400 <= status < 500:
        return f"HTTP {status}"
    if not content_type.startswith("text/html") or "<h1>" not in text:
        return f"HTTP {status} without the page's own heading: {text[:120]!r}"
    return None
