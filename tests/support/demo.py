"""The demo server for tests: `aftersales demo`'s app on a free loopback port, in a thread of the test process."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from starlette.applications import Starlette

from aftersales.demo.web import create_demo_app
from aftersales.settings import Settings
from tests.support import ROOT
from tests.support.apps import SEED_DIR
from tests.support.free_ports import free_port
from tests.support.web import serving

SHOTS = ROOT / "tests" / "e2e" / "screenshots"
WAIT_MS = 20_000  # a case on both revisions takes about a second here; the expired one about six


@contextmanager
def demo_server(folder: Path) -> Iterator[tuple[str, Starlette]]:
    """Serve the demo with its data in `folder`; yield the page's base URL and the demo's app."""
    port = free_port()
    app = create_demo_app(Settings(data_dir=folder, seed_dir=SEED_DIR), folder, "127.0.0.1", port)
    with serving(app, port) as url:
        yield url, app


class DemoPage:
    """The demo page as a person uses it: pick a case, answer in a column, read the three panes."""

    def __init__(self, page: Page, url: str, app: Starlette | None = None) -> None:
        self.page, self.app = page, app
        page.goto(url)
        expect(page.locator("#case-list button")).not_to_have_count(0)

    def start(self, case: str) -> None:
        """Click the case and wait until the page follows the new run."""
        before = self.page.locator("body").get_attribute("data-run") or ""
        self.page.click(f'#case-list button[data-case="{case}"]')
        expect(self.page.locator("body")).not_to_have_attribute("data-run", before)
        expect(self.page.locator("#case-list button[aria-pressed=true]")).to_have_attribute("data-case", case)

    def column(self, revision: str) -> Locator:
        return self.page.locator(f'.column[data-revision="{revision}"]')

    def form(self, revision: str) -> Locator:
        """The open form of a column, once the server has asked."""
        form = self.column(revision).locator("form.ask")
        expect(form).to_be_visible(timeout=WAIT_MS)
        return form

    def submit(self, revision: str) -> None:
        """Take the case's suggested answer and submit: a suggested box the page left unticked (a destructive
        choice is never ticked for the person) is ticked first, as the person would."""
        form = self.form(revision)
        for box in form.locator("input[type=checkbox][data-suggested=true]").all():
            box.check()
        form.locator("button[type=submit]").click()

    def press(self, revision: str, action: str) -> None:
        """Press Decline or Cancel."""
        self.form(revision).locator(f'button[data-action="{action}"]').click()

    def unfold(self, revision: str) -> None:
        """Open every folded handshake of a column's wire."""
        for toggle in self.column(revision).locator(".fold-toggle[aria-expanded=false]").all():
            toggle.click()

    def wait_until_over(self) -> None:
        """Wait until both columns have finished the case."""
        expect(self.page.locator(".column[data-over=true]")).to_have_count(2, timeout=WAIT_MS)

    def wire(self, revision: str, selector: str = "li.msg") -> Locator:
        return self.column(revision).locator(f".messages {selector}")

    def person(self, revision: str) -> Locator:
        return self.column(revision).locator(".person")

    def results(self, revision: str) -> Locator:
        return self.column(revision).locator(".model .result")

    def screenshot(self, name: str) -> Path:
        """Save the page as tests/e2e/screenshots/NAME.png (gitignored)."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path
