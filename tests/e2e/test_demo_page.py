"""The demo page in headless Chromium: every case on both revisions, as a person clicks through it.

The page's backend runs each case with the real MCP client over HTTP, so what these tests read in the wire pane is
what the client and the server actually exchanged.
"""

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from starlette.applications import Starlette

from tests.support.browser import browser
from tests.support.demo import WAIT_MS, DemoPage, demo_server
from tests.support.serve import ServeProcess

pytestmark = pytest.mark.http
MODERN, LEGACY = "2026-07-28", "2025-11-25"
TICKET = re.compile(r"T-\d{4}-\d{4,}")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Starlette]]:
    with demo_server(tmp_path_factory.mktemp("demo")) as served:
        yield served


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    """One browser and one page for the module: each test loads the demo afresh in it."""
    with browser() as context:
        yield context.new_page()


@pytest.fixture
def demo(page: Page, served: tuple[str, Starlette]) -> Iterator[DemoPage]:
    errors: list[str] = []

    def listen(error: Exception) -> None:
        errors.append(str(error))

    page.on("pageerror", listen)
    page.set_viewport_size({"width": 1280, "height": 720})
    yield DemoPage(page, *served)
    page.remove_listener("pageerror", listen)
    assert errors == []


def ticket_in(text: str) -> str:
    found = TICKET.search(text)
    assert found, text
    return found.group(0)


def test_asking_for_the_method_is_one_input_required_round_or_one_nested_elicitation(demo):
    demo.start("method")
    modern = demo.form(MODERN)
    assert modern.locator("fieldset.question").count() == 1
    modern.locator("input:checked").press("Enter")  # the keyboard: Enter submits the suggested answer
    demo.submit(LEGACY)
    demo.wait_until_over()

    assert demo.wire(MODERN, "li.msg[data-result=input_required]").count() == 1
    retries = demo.wire(MODERN, "li.msg[data-method='tools/call']")
    expect(retries).to_have_count(2)
    expect(retries.nth(1)).to_contain_text("retry")
    expect(retries.nth(1).locator(".sealed")).to_contain_text("echoed back unchanged")
    created = demo.wire(
        MODERN,
        "li.msg.in",
    ).filter(has_text="outcome: created")
    expect(created).to_have_count(1)
    number = ticket_in(created.inner_text())
    expect(demo.person(MODERN).locator(".outcome")).to_contain_text(f"Ticket {number} is open")

    call = demo.wire(LEGACY, "li.exchange").filter(has=demo.page.locator("[data-method='tools/call']"))
    expect(call).to_have_count(1)
    expect(call.locator(".nested li.msg[data-method='elicitation/create']")).to_have_count(1)
    expect(call.locator(".nested li.msg.out")).to_contain_text("answer: accept")
    # Each revision runs on its own copy of the same data, so both get the same ticket number.
    expect(demo.person(LEGACY).locator(".outcome")).to_contain_text(f"Ticket {number} is open")
    for revision in (MODERN, LEGACY):
        expect(demo.results(revision)).to_have_count(1)
        expect(demo.results(revision)).to_contain_text("outcome: created")
        expect(demo.results(revision)).to_contain_text(f"Tell the customer their ticket number is {number}")


def test_a_large_refund_asks_both_questions_in_one_round_and_in_two_nested_requests(demo):
    demo.start("large")
    form = demo.form(MODERN)
    keys = form.locator("fieldset.question").evaluate_all("nodes => nodes.map(n => n.dataset.key)")
    assert keys == ["after_sales_create_ticket:refund_method", "after_sales_create_ticket:confirm"]
    expect(form).to_contain_text("Back to the card or wallet used to pay")  # the oneOf titles the server sent
    expect(form.locator("input[type=checkbox]")).to_be_checked()
    confirm = form.locator("fieldset.question").nth(1).locator(".message")
    expect(confirm).to_have_text(re.compile(r"refunding ¥12,999\.00\? Please confirm"))
    expect(form.locator(".countdown")).to_contain_text("expires in")
    sealed = demo.wire(MODERN, "li.msg[data-result=input_required] .sealed")
    expect(sealed).to_contain_text("bound to caller demo-agent, tool after_sales_create_ticket")
    expect(sealed).to_contain_text("10 min after it was issued")
    assert "v1." not in demo.wire(MODERN).all_inner_texts()[1]  # the state's bytes are not shown
    demo.screenshot("large-refund-asking-1280x720")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.submit(LEGACY)  # 2025-11-25: the confirmation comes as a second request once the first is answered
    demo.wait_until_over()

    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(1)
    expect(demo.wire(MODERN, "li.msg[data-method='tools/call']")).to_have_count(2)
    call = demo.wire(LEGACY, "li.exchange").filter(has=demo.page.locator("[data-method='tools/call']"))
    expect(call.locator(".nested li.msg[data-method='elicitation/create']")).to_have_count(2)
    number = ticket_in(demo.person(MODERN).locator(".outcome").inner_text())
    for revision in (MODERN, LEGACY):
        expect(demo.person(revision).locator(".outcome")).to_contain_text(f"Ticket {number} is open: ¥12,999.00")
        expect(demo.results(revision)).to_contain_text("outcome: created")
    demo.screenshot("large-refund-created-1280x720")


@pytest.mark.parametrize(("action", "how"), [("decline", "click"), ("cancel", "Escape")])
def test_declining_or_cancelling_creates_nothing_and_tells_the_model_not_to_retry(demo, action, how):
    demo.start(action)
    for revision in (MODERN, LEGACY):
        if how == "Escape":
            demo.form(revision).locator("input").first.press("Escape")
        else:
            demo.press(revision, action)
    demo.wait_until_over()
    for revision in (MODERN, LEGACY):
        said = "You pressed Decline" if action == "decline" else "You closed the form without answering (cancel)"
        expect(demo.person(revision).locator(".answered")).to_contain_text(said)
        expect(demo.person(revision).locator(".outcome")).to_contain_text("Nothing was created")
        result = demo.results(revision)
        expect(result).to_contain_text("outcome: not_created")
        expect(result).to_contain_text(f"{action}")
        expect(result).to_contain_text("Do not retry unless the customer changes their mind")
    answers = demo.wire(MODERN, "li.msg[data-method='tools/call']").nth(1)
    expect(answers).to_contain_text(f"after_sales_create_ticket:refund_method = {action}")


def test_cancelling_a_ticket_asks_the_person_to_confirm_first_and_the_model_is_told_it_is_cancelled(demo):
    demo.start("withdraw")
    form = demo.form(MODERN)
    question = form.locator("fieldset.question")
    expect(question).to_have_count(1)
    assert question.get_attribute("data-key") == "after_sales_cancel_ticket:confirm"
    expect(question.locator(".message")).to_contain_text("Cancel ticket T-2026-0325 (return and refund of 1 x")
    expect(question.locator(".message")).to_contain_text("This cannot be undone.")
    box = form.locator("input[type=checkbox]")
    box.press("Space")  # the keyboard: the person ticks the box (never ticked for them), Enter confirms
    box.press("Enter")
    legacy = demo.form(LEGACY)
    expect(legacy.locator(".message")).to_contain_text("Cancel ticket T-2026-0325")
    demo.submit(LEGACY)
    demo.wait_until_over()

    # 2026-07-28: exactly one input_required result, then one retry, then the cancelled ticket.
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(1)
    calls = demo.wire(MODERN, "li.exchange").filter(has=demo.page.locator("[data-method='tools/call']"))
    expect(calls).to_have_count(2)
    expect(calls.nth(0).locator("li.msg[data-result=input_required]")).to_contain_text(
        "after_sales_cancel_ticket:confirm"
    )
    retry = calls.nth(1).locator("li.msg[data-method='tools/call']")
    expect(retry).to_contain_text("retry")
    expect(retry).to_contain_text("after_sales_cancel_ticket:confirm = accept")
    expect(retry.locator(".sealed")).to_contain_text("echoed back unchanged")
    expect(calls.nth(1).locator("li.msg.in")).to_contain_text("outcome: cancelled")
    expect(calls.nth(1).locator("li.msg.in")).to_contain_text("T-2026-0325")
    # 2025-11-25: one elicitation/create nested under the one call, answered on it.
    call = demo.wire(LEGACY, "li.exchange").filter(has=demo.page.locator("[data-method='tools/call']"))
    expect(call).to_have_count(1)
    expect(call.locator(".nested li.msg[data-method='elicitation/create']")).to_have_count(1)
    expect(call.locator(".nested li.msg.out")).to_contain_text("answer: accept")
    expect(call.locator(".nested li.msg.out")).to_contain_text('"confirm":true')
    for revision in (MODERN, LEGACY):
        expect(demo.person(revision).locator(".answered")).to_contain_text("Cancel this ticket: yes")
        expect(demo.person(revision).locator(".outcome")).to_contain_text("Ticket T-2026-0325 is cancelled")
        result = demo.results(revision)
        expect(result).to_have_count(1)
        expect(result).to_contain_text("outcome: cancelled")
        expect(result).to_contain_text("T-2026-0325 · closed")
        expect(result).to_contain_text("Tell the customer ticket T-2026-0325 is cancelled")


def test_a_case_run_again_on_the_same_ticket_runs_on_a_fresh_fork_and_succeeds_again(demo):
    worlds = []
    for _ in range(2):
        demo.start("withdraw")
        demo.submit(MODERN)
        demo.submit(LEGACY)
        demo.wait_until_over()
        for revision in (MODERN, LEGACY):
            # Not "replayed" (the same key in the same world) nor refused (a cancelled ticket cannot be cancelled).
            expect(demo.results(revision)).to_contain_text("outcome: cancelled")
        worlds.append([demo.column(revision).get_attribute("data-world") for revision in (MODERN, LEGACY)])
        expect(demo.column(MODERN).locator(".world")).to_have_text(f"world {worlds[-1][0]}, a fresh fork")
    assert len({*worlds[0], *worlds[1]}) == 4, worlds  # a fork per column and run


def test_copy_as_python_gives_a_script_that_sends_the_same_request(demo, tmp_path):
    import subprocess
    import sys

    demo.start("no-forms")
    demo.wait_until_over()
    demo.unfold(MODERN)
    discover = demo.wire(MODERN, "li.msg[data-method='server/discover']")
    discover.locator("button.copy-python").click()
    script = demo.page.evaluate("navigator.clipboard.readText()")
    (tmp_path / "request.py").write_text(script)
    run = subprocess.run([sys.executable, tmp_path / "request.py"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("200 application/json") and '"name":"aftersales"' in run.stdout
    discover.locator("button.copy-curl").click()
    curl = demo.page.evaluate("navigator.clipboard.readText()")
    assert curl.startswith("curl -sS -N -X POST") and "Authorization: Bearer " in curl and "server/discover" in curl


def test_reset_makes_the_demo_world_again_drops_the_forks_and_clears_the_page(demo):
    registry = demo.app.state.worlds.app.worlds
    demo.start("withdraw")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.wait_until_over()
    forks = [demo.column(revision).get_attribute("data-world") for revision in (MODERN, LEGACY)]
    made = registry.get("demo").created_at
    assert sorted(world.id for world, _ in registry.all()) == sorted(["demo", *forks])
    demo.page.click("#reset")
    expect(demo.page.locator("#status")).to_have_text("Fresh data. Pick a case.", timeout=20_000)
    expect(demo.page.locator(".model .result")).to_have_count(0)
    assert [world.id for world, _ in registry.all()] == ["demo"] and registry.get("demo").created_at > made
    demo.start("no-forms")
    demo.wait_until_over()
    expect(demo.results(MODERN).nth(1)).to_contain_text("outcome: created")


# Elements whose text must never be cut off or pushed out sideways, and the panes that must not scroll sideways.
CLIPPED = """() => {
  const found = [];
  const watched = [".badge, button, h1, h2, h3, .line, .message, .outcome, .answered, #steps li, .sealed",
    "dt, dd, legend, label, .pane"].join(", ");
  for (const node of document.querySelectorAll(watched)) {
    const name = node.className || node.tagName;
    if (node.scrollWidth > node.clientWidth + 1) found.push(`${name}: ${node.textContent.slice(0, 50)}`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page scrolls sideways");
  return found;
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize(("case", "rounds"), [("large", 2), ("withdraw", 1)])
def test_nothing_is_clipped_on_a_projector_while_asking_and_once_done(demo, width, height, case, rounds):
    demo.page.set_viewport_size({"width": width, "height": height})
    demo.start(case)
    demo.form(MODERN)
    expect(demo.form(LEGACY)).to_be_visible()
    assert demo.page.evaluate(CLIPPED) == []
    assert demo.form(MODERN).locator("button[type=submit]").is_visible()  # the whole round fits, buttons included
    demo.screenshot(f"{case}-asking-{width}x{height}")
    demo.submit(MODERN)
    for _ in range(rounds):  # 2025-11-25 asks each question in its own elicitation/create
        demo.submit(LEGACY)
    demo.wait_until_over()
    for details in demo.page.locator(".sealed").all()[:1]:
        details.scroll_into_view_if_needed()
    assert demo.page.evaluate(CLIPPED) == []
    demo.screenshot(f"{case}-done-{width}x{height}")


# --- What a presenter found at a projector's size (issue 25), each at 1280×720 and 1920×1080 ---------------------

SIZES = pytest.mark.parametrize(("width", "height"), [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])

# For each column: is the newest row of the wire inside the wire pane's visible area (below its sticky heading)?
NEWEST_SHOWN = """() => [...document.querySelectorAll('.column')].map((column) => {
  const pane = column.querySelector('.pane.wire');
  const rows = [...pane.querySelectorAll('li.msg')].filter((row) => row.getClientRects().length);
  const last = rows[rows.length - 1];
  if (!last) return true;
  const box = pane.getBoundingClientRect(), row = last.getBoundingClientRect();
  return row.bottom <= box.bottom + 1 && row.bottom > box.top + pane.querySelector('h3').offsetHeight;
})"""


def sized(demo: DemoPage, width: int, height: int) -> None:
    demo.page.set_viewport_size({"width": width, "height": height})


def newest_shown(demo: DemoPage) -> None:
    demo.page.wait_for_function(f"({NEWEST_SHOWN})().every(Boolean)", timeout=5_000)


@SIZES
def test_the_wire_pane_shows_its_newest_row_whenever_it_grows_or_resizes(demo, width, height):
    sized(demo, width, height)
    demo.start("large")
    demo.form(MODERN)
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(1)
    newest_shown(demo)
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.submit(LEGACY)
    demo.wait_until_over()
    newest_shown(demo)
    # The window shrinks and grows again (a projector's resolution set while the page is open).
    sized(demo, width, height - 200)
    newest_shown(demo)
    sized(demo, width, height)
    newest_shown(demo)
    # Opening a row's JSON is reading: the pane stays there, and "Newest" takes it back down.
    demo.wire(MODERN, "li.msg[data-method='tools/call'] > .more summary").first.click()
    newest = demo.column(MODERN).locator("button.newest")
    expect(newest).to_be_visible()
    newest.click()
    newest_shown(demo)


@SIZES
def test_the_narration_folds_the_wire_keeps_its_height_and_the_handshake_is_folded(demo, width, height):
    sized(demo, width, height)
    demo.start("large")
    demo.form(MODERN)
    toggle, steps = demo.page.locator("#narration-toggle"), demo.page.locator("#steps li")
    short = height < 800
    expect(toggle).to_have_attribute("aria-expanded", str(not short).lower())  # folded at 1280×720 only
    if not short:
        toggle.click()
    expect(steps.filter(visible=True)).to_have_count(1)  # folded: the furthest step reached
    expect(steps.filter(visible=True)).to_have_attribute("data-phase", "ask")
    toggle.click()
    expect(steps.filter(visible=True)).to_have_count(5)
    for revision in (MODERN, LEGACY):
        column, wire = demo.column(revision).bounding_box(), demo.column(revision).locator(".pane.wire").bounding_box()
        assert column and wire and wire["height"] >= 0.38 * column["height"], (column, wire)
    for revision, first in ((MODERN, "server/discover"), (LEGACY, "initialize")):
        fold = demo.column(revision).locator(".fold-toggle").first
        expect(fold).to_have_attribute("aria-expanded", "false")
        expect(fold).to_contain_text(first)
        expect(fold).to_contain_text("tools/list")
        expect(demo.wire(revision, f"li.msg[data-method='{first}']")).to_be_hidden()
        fold.click()
        expect(demo.wire(revision, f"li.msg[data-method='{first}']")).to_be_visible()
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_be_visible()  # the case's rows are not folded


@SIZES
def test_after_a_run_focus_returns_to_the_case_that_ran(demo, width, height):
    sized(demo, width, height)
    before = demo.page.locator("body").get_attribute("data-run") or ""
    demo.page.locator('#case-list button[data-case="method"]').focus()
    demo.page.keyboard.press("Enter")
    expect(demo.page.locator("body")).not_to_have_attribute("data-run", before)  # the run before may still show
    # As DemoPage.start waits: the page follows the new case (a form of the run before, which asked the method and
    # a confirmation in one round, was once still there to press).
    expect(demo.page.locator("#case-list button[aria-pressed=true]")).to_have_attribute("data-case", "method")
    for revision in (MODERN, LEGACY):
        demo.form(revision).locator('input[data-field="refund_method"]:checked').press("Enter")
    demo.wait_until_over()
    expect(demo.page.locator("body")).to_have_attribute("data-over", "true")
    expect(demo.page.locator('#case-list button[data-case="method"]')).to_be_focused()


@SIZES
def test_suggestions_are_marked_a_destructive_box_is_never_ticked_and_dismissing_says_what_it_does(demo, width, height):
    sized(demo, width, height)
    demo.start("withdraw")
    form = demo.form(MODERN)
    box = form.locator("input[type=checkbox]")
    expect(box).not_to_be_checked()  # after_sales_cancel_ticket is annotated destructiveHint
    expect(form.locator("label.choice .suggestion")).to_have_text("suggested")
    expect(form.locator(".suggested-note")).to_contain_text("nothing is ticked for you")
    dismiss = form.locator('button[data-action="cancel"]')
    expect(dismiss).to_have_text("Close without answering")
    expect(form.locator(".hint")).to_contain_text("Escape closes without answering")
    dismiss.click()
    demo.press(LEGACY, "cancel")
    demo.wait_until_over()
    for revision in (MODERN, LEGACY):
        expect(demo.person(revision).locator(".answered")).to_have_text(
            "You closed the form without answering (cancel)."
        )
        expect(demo.results(revision)).to_contain_text("outcome: not_cancelled")
    demo.start("method")
    form = demo.form(MODERN)
    expect(form.locator("input:checked")).to_have_count(1)  # not destructive: the suggestion is filled in, and marked
    expect(form.locator("label.choice").filter(has=demo.page.locator("input:checked"))).to_contain_text("suggested")
    expect(form.locator(".suggested-note")).to_contain_text("suggested answer")


@SIZES
def test_a_tampered_round_is_refused_and_the_forged_answer_and_changed_state_are_shown(demo, width, height):
    sized(demo, width, height)
    demo.start("tampered")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.wait_until_over()
    retry = demo.wire(MODERN, "li.msg[data-method='tools/call']").nth(1)
    expect(retry.locator(".sealed")).to_contain_text("CHANGED by the client")
    expect(demo.wire(MODERN, "li.msg[data-result=error]")).to_contain_text("error -32602")
    expect(demo.results(MODERN)).to_contain_text("JSON-RPC error -32602")
    expect(demo.person(MODERN).locator(".outcome")).to_contain_text("Nothing was created")
    expect(demo.wire(LEGACY, ".nested li.msg.out").first).to_contain_text('"refund_method":"cash"')
    expect(demo.results(LEGACY)).to_contain_text("isError: true")
    expect(demo.results(LEGACY)).to_contain_text("the allowed values are original_payment, store_credit")
    forged = demo.wire(LEGACY, ".nested li.msg.out.tampered")
    expect(forged).to_have_count(1)
    expect(forged.locator(".tamper-note")).to_contain_text('FORGED by the client: the person chose {"refund_method":')
    expect(forged.locator(".tamper-note")).to_contain_text('"original_payment"')
    expect(forged.locator(".tamper-note")).to_contain_text('"cash"')
    retry = demo.wire(MODERN, "li.msg.tampered[data-method='tools/call']")
    expect(retry.locator(".tamper-note")).to_contain_text("TAMPERED by the client: character")
    for revision in (MODERN, LEGACY):
        expect(demo.person(revision).locator(".tamper-note")).to_contain_text("This client changes")


@SIZES
def test_an_expired_round_is_refused_with_times_durations_and_a_countdown_through_the_hold(demo, width, height):
    """2026-07-28's round expires while the client holds the answer; 2025-11-25's open call goes through."""
    sized(demo, width, height)
    demo.start("expired")
    expect(demo.form(MODERN).locator(".countdown")).to_contain_text("expires in")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    hold = demo.person(MODERN).locator(".hold")
    expect(hold.locator(".countdown[data-until]")).to_contain_text(re.compile(r"it sends in \d s"))
    expect(hold.locator(".countdown[data-expires]")).to_contain_text("the round expires in")
    expect(hold.locator(".countdown[data-expires]")).to_have_text("the round has expired", timeout=10_000)
    demo.wait_until_over()
    expect(hold.locator(".countdown[data-until]")).to_have_text("sent")
    asked = demo.wire(MODERN, "li.msg[data-result=input_required]")
    expect(asked.locator(".took")).to_contain_text("answered in")
    expires = asked.locator(".sealed").inner_text()
    expiry = re.search(r"expires (\d\d:\d\d:\d\d) UTC", expires)
    assert expiry, expires
    retry = demo.wire(MODERN, "li.msg[data-method='tools/call']").nth(1)
    sent = retry.locator(".timing time").inner_text()
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d", sent) and sent[:8] > expiry.group(1), (sent, expiry.group(1))
    refused = demo.wire(MODERN, "li.msg[data-result=error]")
    expect(refused.locator(".took")).to_contain_text("answered in")
    expect(asked.locator(".sealed")).to_contain_text("5 s after it was issued")
    expect(demo.results(MODERN)).to_contain_text("JSON-RPC error -32602")
    expect(demo.results(LEGACY)).to_contain_text("outcome: created")


@SIZES
def test_a_client_without_forms_gets_a_tool_error_and_the_retry_shows_the_added_refund_method(demo, width, height):
    sized(demo, width, height)
    demo.start("no-forms")
    demo.wait_until_over()
    for revision in (MODERN, LEGACY):
        expect(demo.column(revision).locator("form.ask")).to_have_count(0)
        expect(demo.person(revision)).to_contain_text("declared no elicitation capability")
        result, retried = demo.results(revision).nth(0), demo.results(revision).nth(1)
        expect(result).to_contain_text("isError: true")
        expect(result).to_contain_text("Ask the customer whether they want")
        expect(retried).to_contain_text("outcome: created")
        expect(retried.locator("pre")).to_contain_text("left to the host application")
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(0)
    expect(demo.wire(LEGACY, "li.msg[data-method='elicitation/create']")).to_have_count(0)
    # The agent's arguments, with what is missing marked; the retry's added refund_method; the tool on demand.
    for revision in (MODERN, LEGACY):
        first, again = demo.wire(revision, "li.msg[data-method='tools/call']").all()
        expect(first.locator(".arg[data-name=order_id]")).to_have_text("order_id O-2026-001423")
        expect(first.locator(".arg.missing[data-name=refund_method]")).to_have_text("refund_method missing")
        expect(again.locator(".changes")).to_contain_text("+ refund_method: original_payment")
        expect(again.locator(".arg.missing[data-name=refund_method]")).to_have_count(0)
        expect(again.locator(".badge.reused")).to_have_text("idempotency_key reused: demo-no-forms-0001")
        info = first.locator("details.tool-info")
        expect(info.locator(".description")).to_be_hidden()  # on demand
        info.locator("summary").click()
        expect(info.locator(".description")).to_contain_text("idempotency_key")
        expect(info.locator("pre")).to_contain_text('"refund_method"')
        info.locator("summary").click()
        again.evaluate("row => row.scrollIntoView({block: 'center'})")  # for the screenshot: the retry's change
    demo.screenshot(f"no-forms-retry-{width}x{height}")


@SIZES
def test_a_retry_with_the_same_key_replays_the_ticket_and_shows_the_reused_key(demo, width, height):
    sized(demo, width, height)
    demo.start("replay")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.wait_until_over()
    for revision in (MODERN, LEGACY):
        first, again = demo.results(revision).nth(0), demo.results(revision).nth(1)
        expect(again).to_contain_text("outcome: replayed")
        assert ticket_in(first.inner_text()) == ticket_in(again.inner_text())
        expect(demo.person(revision).locator(".outcome").nth(1)).to_contain_text("nothing new was created")
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(1)
    expect(demo.wire(LEGACY, "li.msg[data-method='elicitation/create']")).to_have_count(1)
    for revision in (MODERN, LEGACY):
        calls = demo.wire(revision, "li.msg[data-method='tools/call']:not(:has(.sealed))")
        expect(calls).to_have_count(2)
        expect(calls.nth(0).locator(".badge.reused")).to_have_count(0)
        expect(calls.nth(1).locator(".changes")).to_contain_text("same arguments as the call before")
        expect(calls.nth(1).locator(".badge.reused")).to_have_text("idempotency_key reused: demo-replay-0001")


@SIZES
def test_a_link_starts_its_case_and_a_run_exports_as_json_and_markdown_without_tokens(demo, served, width, height):
    sized(demo, width, height)
    url, _ = served
    before = demo.page.locator("body").get_attribute("data-run") or ""
    demo.page.goto(f"{url}/#case=no-forms")
    expect(demo.page.locator("#case-list button[aria-pressed=true]")).to_have_attribute("data-case", "no-forms")
    # The reloaded page shows the run before (finished) until the link's run starts: wait for the new one to end.
    body = demo.page.locator("body")
    expect(body).not_to_have_attribute("data-run", re.compile(f"^({re.escape(before)})?$"), timeout=WAIT_MS)
    expect(body).to_have_attribute("data-over", "true", timeout=WAIT_MS)
    demo.page.click("#case-link")
    assert demo.page.evaluate("navigator.clipboard.readText()") == f"{url}/#case=no-forms"
    with demo.page.expect_download() as markdown:
        demo.page.click("#export-md")
    text = Path(markdown.value.path()).read_text()
    assert markdown.value.suggested_filename.startswith("aftersales-demo-no-forms-run-")
    assert text.startswith("# Client without forms\n") and "## Protocol 2026-07-28" in text, text[:300]
    assert "`tools/call` id 3 after_sales_create_ticket" in text and "outcome created" in text, text
    with demo.page.expect_download() as exported:
        demo.page.click("#export-json")
    run = json.loads(Path(exported.value.path()).read_text())
    assert run["case"] == "no-forms" and {e["type"] for e in run["events"]} >= {"wire", "result", "done"}
    for content in (text, json.dumps(run)):
        assert "Bearer" not in content and "Authorization" not in content and "snippets" not in content


@pytest.fixture(scope="module")
def other_server(sqlite_template, tmp_path_factory) -> Iterator[ServeProcess]:
    """A second aftersales server, `aftersales serve` on its own copy of the seeded database."""
    folder = tmp_path_factory.mktemp("other")
    shutil.copyfile(sqlite_template, folder / "aftersales.db")
    process = ServeProcess(f"sqlite:///{folder / 'aftersales.db'}", folder)
    process.start()
    yield process
    process.stop()


@pytest.mark.parametrize(
    ("width", "height", "case", "rounds"),
    [(1280, 720, "method", 1), (1920, 1080, "large", 2)],  # another order each: that server keeps what a run made
    ids=["1280x720", "1920x1080"],
)
def test_the_page_runs_its_cases_on_another_server_with_a_token(demo, other_server, width, height, case, rounds):
    sized(demo, width, height)
    page = demo.page
    page.click("#target > summary")
    page.fill("#target-url", f"{other_server.url}/mcp")
    page.fill("#target-token", "not-a-token")
    page.click("#target-form button[type=submit]")
    expect(page.locator("#target-error")).to_contain_text("refused the token (HTTP 401)")
    page.fill("#target-token", other_server.token())
    page.click("#target-form button[type=submit]")
    expect(page.locator("#target-name")).to_contain_text(f"{other_server.url}/mcp (aftersales")
    expect(page.locator('#case-list button[data-case="expired"]')).to_be_disabled()  # its rounds are the demo's
    try:
        demo.start(case)
        demo.submit(MODERN)
        for _ in range(rounds):
            demo.submit(LEGACY)
        demo.wait_until_over()
        for revision in (MODERN, LEGACY):
            expect(demo.column(revision).locator(".world")).to_have_text(f"on {other_server.url}/mcp, its own data")
            expect(demo.results(revision).first).to_contain_text(re.compile("outcome: (created|replayed)"))
        sealed = demo.wire(MODERN, "li.msg[data-result=input_required] .sealed")
        expect(sealed).not_to_contain_text("bound to caller")  # sealed with that server's keys, as for any client
    finally:
        page.click("#target > summary")
        page.click("#target-builtin")
        expect(page.locator("#target-name")).to_have_text("the demo's own")


@SIZES
def test_a_url_question_shows_its_domain_and_opens_the_page_beside_it(demo, served, width, height):
    sized(demo, width, height)
    url, _ = served
    asked = {
        "ask": "x/1",
        "questions": [
            {"key": "k", "mode": "url", "message": "Give the account for the refund.", "url": f"{url}/static/demo.css"}
        ],
        "suggested": {"action": "accept"},
    }
    for modern in (True, False):
        answers = demo.page.evaluate(
            """([event, modern]) => {
              const answers = [];
              const pane = document.querySelector('.column .person .body');
              const record = (action, contents) => answers.push([action, contents]);
              pane.replaceChildren(window.Render.askForm(event, modern, record));
              window.answers = answers;
              return answers.length;
            }""",
            [asked, modern],
        )
        assert answers == 0
        form = demo.column(MODERN).locator("form.ask")
        expect(form.locator(".domain")).to_have_text(url.removeprefix("http://"))
        expect(form.locator(".url code")).to_have_text(f"{url}/static/demo.css")
        expect(form.locator(".opens")).to_contain_text("not https")
        expect(demo.column(MODERN).locator(".url-page")).to_have_count(0)  # never opened without the person
        form.locator("button[type=submit]").click()
        page = demo.column(MODERN).locator(".url-page")
        expect(page.locator("iframe")).to_have_attribute("src", f"{url}/static/demo.css")
        expect(page.locator(".address .domain")).to_have_text(url.removeprefix("http://"))
        if modern:  # 2026-07-28: the retry waits until the person says they have finished
            assert demo.page.evaluate("window.answers.length") == 0
            form.locator("button[type=submit]").click()
        assert demo.page.evaluate("window.answers") == [["accept", {}]]


IBAN = "DE89 3704 0044 0532 0130 00"  # a valid IBAN (its check digits hold); the page takes it without spaces


def give_the_account(demo: DemoPage, revision: str) -> None:
    """Open the page from the URL question and fill it in beside the question, as the person does."""
    demo.form(revision).locator("button[type=submit]").click()  # "Open the page"
    frame = demo.column(revision).locator(".url-page iframe").content_frame
    frame.get_by_label("Account holder's name").fill("Wei Zhang")
    frame.get_by_label("Account number").fill(IBAN)
    frame.get_by_label("Bank", exact=True).fill("Deutsche Bank")
    frame.get_by_role("button", name="Send the account").click()
    expect(frame.locator("h1")).to_contain_text("account was received")


@SIZES
def test_a_refund_to_a_bank_account_sends_the_person_to_the_shops_page_and_the_model_never_sees_the_number(
    demo, width, height
):
    sized(demo, width, height)
    demo.start("bank")
    for revision in (MODERN, LEGACY):
        form = demo.form(revision)
        expect(form.locator("fieldset.question[data-mode=url]")).to_have_count(1)
        expect(form.locator(".domain")).to_have_text(re.compile(r"^127\.0\.0\.1:\d+$"))  # the shop's own page
        give_the_account(demo, revision)
    demo.screenshot(f"bank-account-page-{width}x{height}")
    # 2026-07-28: the person says they have finished; the client retries the call with the requestState.
    demo.form(MODERN).locator("button[type=submit]").click()
    demo.wait_until_over()

    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(1)
    expect(demo.wire(MODERN, "li.msg[data-method='tools/call']")).to_have_count(2)
    call = demo.wire(LEGACY, "li.exchange").filter(has=demo.page.locator("[data-method='tools/call']"))
    expect(call.locator(".nested li.msg[data-method='elicitation/create']")).to_have_count(1)
    expect(demo.wire(LEGACY, "li.msg[data-method='notifications/elicitation/complete']")).to_have_count(1)
    expect(demo.person(LEGACY).locator(".url-page.done")).to_have_count(1)
    digits = IBAN.replace(" ", "")
    for revision in (MODERN, LEGACY):
        expect(demo.results(revision)).to_contain_text("outcome: created")
        expect(demo.person(revision).locator(".outcome")).to_contain_text("to the bank account")
        check = demo.column(revision).locator(".model .account-check")
        expect(check).to_have_class(re.compile(r"\bok\b"))
        expect(check).to_contain_text("•••• 3000")
        shown = " ".join(demo.column(revision).locator(".wire, .model").all_inner_texts())
        assert digits not in shown.replace(" ", "")
    demo.screenshot(f"bank-account-{width}x{height}")
