"""The demo page in headless Chromium: every case on both revisions, as a person clicks through it.

The page's backend runs each case with the real MCP client over HTTP, so what these tests read in the wire pane is
what the client and the server actually exchanged.
"""

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect
from starlette.applications import Starlette

from tests.support.browser import browser
from tests.support.demo import DemoPage, demo_server

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


def test_a_client_without_forms_gets_a_tool_error_that_tells_the_model_to_ask(demo):
    demo.start("no-forms")
    demo.wait_until_over()
    for revision in (MODERN, LEGACY):
        expect(demo.column(revision).locator("form.ask")).to_have_count(0)
        expect(demo.person(revision)).to_contain_text("declared no elicitation capability")
        first, second = demo.results(revision).nth(0), demo.results(revision).nth(1)
        expect(first).to_contain_text("isError: true")
        expect(first).to_contain_text("Ask the customer whether they want")
        expect(second).to_contain_text("outcome: created")
        expect(second.locator("pre")).to_contain_text("left to the host application")
    expect(demo.wire(MODERN, "li.msg[data-result=input_required]")).to_have_count(0)
    expect(demo.wire(LEGACY, "li.msg[data-method='elicitation/create']")).to_have_count(0)


def test_a_retry_with_the_same_key_replays_the_ticket_without_asking_again(demo):
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


def test_a_tampered_round_is_refused_on_both_revisions(demo):
    demo.start("tampered")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    demo.wait_until_over()
    retry = demo.wire(MODERN, "li.msg[data-method='tools/call']").nth(1)
    expect(retry.locator(".sealed")).to_contain_text("CHANGED by the client")
    expect(demo.wire(MODERN, "li.msg[data-result=error]")).to_contain_text("error -32602")
    expect(demo.results(MODERN)).to_contain_text("JSON-RPC error -32602")
    expect(demo.person(MODERN).locator(".outcome")).to_contain_text("Nothing was created")
    forged = demo.wire(LEGACY, ".nested li.msg.out").first
    expect(forged).to_contain_text('"refund_method":"cash"')
    expect(demo.results(LEGACY)).to_contain_text("isError: true")
    expect(demo.results(LEGACY)).to_contain_text("the allowed values are original_payment, store_credit")


def test_an_expired_round_is_refused_while_the_open_call_of_2025_11_25_goes_through(demo):
    demo.start("expired")
    expect(demo.form(MODERN).locator(".countdown")).to_contain_text("expires in")
    demo.submit(MODERN)
    demo.submit(LEGACY)
    expect(demo.person(MODERN).locator(".hold")).to_contain_text("holds your answer")
    demo.wait_until_over()
    sealed = demo.wire(MODERN, "li.msg[data-result=input_required] .sealed")
    expect(sealed).to_contain_text("5 s after it was issued")
    expect(demo.results(MODERN)).to_contain_text("JSON-RPC error -32602")
    expect(demo.results(LEGACY)).to_contain_text("outcome: created")


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
