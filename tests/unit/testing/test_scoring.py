"""pass^k as τ²-bench defines it, and a trial's verdict from its parts."""

import pytest

from aftersales.testing.scoring import pass_hat_k, pass_hat_ks, score, server_faults, verdict
from tests.support.tasks import a_task

EMPTY = {"tables": {}, "after": {"hash": "sha256:x"}}


def test_pass_hat_k_is_the_chance_that_k_trials_drawn_from_n_all_passed():
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 3, 1) == 0.75
    assert pass_hat_k(4, 3, 2) == 0.5  # C(3,2) / C(4,2) = 3 / 6
    assert pass_hat_k(4, 3, 4) == 0.0
    assert pass_hat_k(5, 0, 1) == 0.0


def test_pass_hat_k_needs_as_many_trials_as_k():
    with pytest.raises(ValueError, match="1 <= k <= trials"):
        pass_hat_k(2, 2, 3)


def test_overall_pass_hat_k_averages_tasks_up_to_the_fewest_trials():
    assert pass_hat_ks([(4, 4), (4, 2)]) == {"1": 0.75, "2": pytest.approx((1 + 1 / 6) / 2), "3": 0.5, "4": 0.5}
    assert pass_hat_ks([(2, 1), (3, 3)]) == {"1": 0.75, "2": 0.5}
    assert pass_hat_ks([]) == {}


def test_a_trial_names_each_failed_part_and_reports_mentions_without_scoring_them():
    scored = score(a_task(), EMPTY, [], answer="Your ticket is on its way.")
    assert scored.failed_parts == ["calls"]
    assert scored.mentions == {"T-2026-0325": False}
    assert scored.world_hash == "sha256:x"


def test_mentions_fail_a_trial_only_when_asked_to():
    trace = [{"seq": 1, "tool": "after_sales_query_ticket", "outcome": "ok", "arguments": {}, "resumes": None}]
    assert score(a_task(), EMPTY, trace, answer="nothing").passed
    assert score(a_task(), EMPTY, trace, answer="nothing", score_mentions=True).failed_parts == ["mentions"]
    assert score(a_task(), EMPTY, trace, answer="ticket t-2026-0325 is open", score_mentions=True).passed


@pytest.mark.parametrize(
    ("passed", "timed_out", "missed", "infrastructure", "expected"),
    [
        (True, False, False, False, "pass"),
        (True, False, True, False, "pass"),  # a miss the agent recovered from is no excuse needed
        (False, False, False, False, "agent"),
        (False, False, True, False, "customer_miss"),
        (False, True, True, False, "customer_miss"),  # the customer's miss came first: not the agent's timeout
        (False, True, False, False, "timeout"),
        (False, False, True, True, "infrastructure"),
        (True, False, False, True, "infrastructure"),
    ],
)
def test_each_trial_gets_one_verdict(passed, timed_out, missed, infrastructure, expected):
    assert verdict(passed, timed_out, missed, infrastructure) == expected


def test_a_server_fault_is_read_from_the_calls_and_not_from_the_turns():
    turn = {"type": "turn", "speaker": "customer", "miss": True, "seq": 1}
    call = {"tool": "after_sales_get_order", "error_kind": "internal", "seq": 2}
    assert server_faults([turn, call]) == ["call #2 (after_sales_get_order) failed on an internal error of the server"]


def test_pass_hat_k_without_customer_misses_averages_each_k_over_the_tasks_with_enough_trials():
    assert pass_hat_ks([(4, 4), (1, 0), (0, 0)], [1, 2]) == {"1": 0.5, "2": 1.0}
    assert pass_hat_ks([(0, 0)], [1]) == {}
