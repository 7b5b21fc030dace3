"""The pytest plugin, run by pytest itself (pytester): fixtures, pass^k in the summary, and inert when unused."""

from pathlib import Path

import pytest

from tests.support.plugin_tests import PRELUDE

WORLD_TESTS = (
    PRELUDE
    + """


@pytest.mark.anyio
async def test_a_ticket_made_in_the_world_is_in_its_diff_and_trace(world):
    world.answer_forms_as(CUSTOMER)
    (quote,) = await call(world, ("after_sales_estimate_refund", TSHIRTS))
    arguments = {**TSHIRTS, "kind": "return_and_refund", "description": "Not my style at all.",
                 "quote_id": quote.structured_content["quote_id"], "idempotency_key": "plugin-test-01"}
    # A client that can show forms; the world answers them as the customer before they reach it.
    await call(world, ("after_sales_create_ticket", arguments), callback=world.elicitation_callback())
    world.expect(CREATED, calls={"must_call": ["after_sales_create_ticket"], "max_calls": 2})
    assert [entry["tool"] for entry in world.trace()] == ["after_sales_estimate_refund", "after_sales_create_ticket"]
    assert world.trace()[1]["rounds"][0]["answered_by"] == "script"


@pytest.mark.anyio
async def test_an_untouched_world_fails_an_expected_change_with_the_diff_shown(world):
    await call(world, ("after_sales_query_ticket", {"ticket_id": "T-2026-0325"}))
    with pytest.raises(AssertionError, match="expected 1 added row"):
        world.expect(CREATED)
    world.expect({"tables": {}})


async def my_agent(world, brief):
    order = brief.customer.knows
    (quote,) = await call(world, ("after_sales_estimate_refund", TSHIRTS))
    arguments = {**TSHIRTS, "kind": "return_and_refund", "description": brief.customer.wants.description,
                 "quote_id": quote.structured_content["quote_id"], "idempotency_key": f"mine-{brief.trial:02d}-ab"}
    (created,) = await call(world, ("after_sales_create_ticket", arguments), callback=world.elicitation_callback())
    return created.structured_content["next_step"] + " " + order["order_id"]


def test_my_agent_refunds_tshirts_every_time(aftersales):
    run = aftersales.run("refund-tshirts-store-credit", my_agent, trials=3, forms="client")
    assert run.pass_hat_k == {1: 1.0, 2: 1.0, 3: 1.0}, run.failures()


def test_a_wrong_agent_is_reported_with_its_failures(aftersales):
    # The shirts arrived torn: the shop's fault, which this agent never asks about.
    run = aftersales.run("refund-tshirts-damaged-shipping-refunded", my_agent, trials=2, forms="world")
    assert run.passed == 0
    assert "trial 2 outcome: tickets: no added row matches" in run.failures()
    assert "reason_code is 'no_longer_needed'" in run.failures()


def test_the_server_keeps_its_worlds_and_keys_in_a_folder(aftersales_server):
    folder = aftersales_server.settings.data_dir
    assert (folder / "worlds").is_dir()
    open("server-folder.txt", "w").write(str(folder))
"""
)


def test_the_world_fixture_and_agent_trials_work_in_a_teams_own_tests(pytester: pytest.Pytester):
    pytester.makepyfile(test_agent=WORLD_TESTS)
    pytester.makeini("[pytest]\nanyio_mode = strict\n")
    result = pytester.runpytest_subprocess("-p", "anyio", "-q", "-W", "error::pytest.PytestUnraisableExceptionWarning")
    result.assert_outcomes(passed=6)
    assert not Path((pytester.path / "server-folder.txt").read_text()).exists()  # removed when the session ended
    result.stdout.fnmatch_lines(
        [
            "*aftersales pass^k*",
            "task * passed * pass^1 * pass^2 * pass^3*",
            "refund-tshirts-store-credit *3/3 *1.000 *1.000 *1.000*",
            "refund-tshirts-damaged-shipping-refunded *0/2 *0.000 *0.000*",
        ]
    )


def test_the_plugin_stays_inert_when_no_test_uses_its_fixtures(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_plain="""
import sys

def test_nothing_of_aftersales_is_loaded():
    assert "aftersales.testing.plugin" in sys.modules  # registered by the package
    assert "aftersales.testing.hosts.in_process" not in sys.modules and "aftersales.app" not in sys.modules
"""
    )
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1)
    assert "aftersales pass^k" not in result.stdout.str()
