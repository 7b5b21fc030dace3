"""report.html in headless Chromium: a run with a pass, a failure, a timeout and a customer miss, every part shown.

The page is opened from its file, as a person opens it, at 1280x720 and 1920x1080; it fetches nothing and runs no
script (the agent's text in it tries to), and nothing is wider than the window.
"""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from aftersales.testing import compare, report_html
from tests.support.browser import browser
from tests.support.demo import SHOTS
from tests.support.reports import a_run

pytestmark = pytest.mark.http
SIZES = [(1280, 720), (1920, 1080)]


def visible(page: Page, selector: str, count: int | None = None) -> None:
    """Every element `selector` finds is visible once scrolled to (and there are `count` of them, if given)."""
    found = page.locator(selector)
    if count is not None:
        expect(found).to_have_count(count)
    assert found.count() > 0, selector
    for index in range(found.count()):
        found.nth(index).scroll_into_view_if_needed()
        expect(found.nth(index)).to_be_visible()


def test_the_report_of_a_run_shows_every_part_at_both_window_sizes(tmp_path: Path):
    base = a_run(tmp_path / "base", hashes={"refund-refused": "sha256:dddd"}, failing={"refund-passes"})
    built = a_run(tmp_path / "new")
    compared = compare.compare(base, built, "var/eval-before", "var/eval")
    path = tmp_path / "new" / "report.html"
    path.write_text(report_html.page(built, tmp_path / "new", compared), encoding="utf-8")
    requests: list[str] = []
    dialogs: list[str] = []
    with browser(*SIZES[0]) as context:
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(path.as_uri())
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("window.scrollTo(0, 0)")
            visible(page, "#summary tr", 7)  # the head, four tasks, overall and without customer misses
            visible(page, "#comparison tr.better")
            visible(page, "#comparison code")  # the changed world hash
            visible(page, "details.trial[open] .why", 3)  # each failed trial says why, open from the start
            page.locator("#trial-refund-passes-1 > summary").click()
            visible(page, "#trial-refund-passes-1 dd.answered")  # who answered the form round
            visible(page, "#trial-refund-passes-1 tr.added")
            page.locator("#trial-refund-passes-1 > summary").click()
            visible(page, "#trial-refund-refused-1 pre.answer")
            visible(page, "#trial-refund-refused-1 pre.stderr")
            visible(page, "#trial-refund-refused-1 dd.event")  # the clock the task moved
            visible(page, "#trial-refund-refused-1 dd.error", 2)
            for row in ("added", "changed", "removed"):
                visible(page, f"#trial-refund-refused-1 table.diff tr.{row}", 1)
            visible(page, "#trial-refund-refused-1-3.failed p.problem")  # the failed rule, on the call it names
            visible(page, "#trial-slow-agent-1 .verdict.timeout")
            visible(page, "#trial-customer-misses-1 li.turn", 2)
            visible(page, "#trial-customer-misses-1-2.failed dd.miss")
            wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert wide <= 0, f"the page is {wide}px wider than a {width}x{height} window"
            SHOTS.mkdir(parents=True, exist_ok=True)
            if width == 1280:
                page.evaluate("window.scrollTo(0, 0)")
            else:
                page.evaluate("document.getElementById('trial-refund-refused-1').scrollIntoView()")
            page.screenshot(path=str(SHOTS / f"report-{width}x{height}.png"))
    assert requests == [path.as_uri()]  # the page alone: no stylesheet, font, script or image fetched
    assert dialogs == []  # the agent's <script> and onerror were shown as text, never run
