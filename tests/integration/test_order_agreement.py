"""after_sales_get_order agrees with estimate and create on every line of 200 seeded orders, on both databases.

For every line and kind, create runs for real on the database inside a transaction that is rolled back: a kind
get_order calls possible must be created, and one it calls impossible must be refused by the rule of its why_not_code,
with the words of its why_not. Estimate, for the refund kinds, must accept and refuse exactly the same.
"""

import random
from collections import Counter

from aftersales.app import App
from aftersales.clock import now
from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.errors import RuleViolation
from aftersales.domain.rule_codes import RuleCode
from aftersales.seeding.generator import World
from aftersales.services.creation import Decisions, create_ticket
from aftersales.services.lookup_views import KindOption, LineView
from aftersales.services.orders import get_order, why_not
from aftersales.services.quotes import estimate_refund
from tests.support.creation import ALICE, POLICY, ticket_request
from tests.support.database import RolledBack, row_counts

SAMPLE = 200
# Every rule a kind can be impossible by (the rules of a line, not of a call's other arguments); the sample meets each.
REASONS = {
    RuleCode.ORDER_NOT_DELIVERED,
    RuleCode.ORDER_CANCELLED,
    RuleCode.RETURN_WINDOW_CLOSED,
    RuleCode.ITEM_NOT_RETURNABLE,
    RuleCode.ITEM_NOT_REPAIRABLE,
    RuleCode.WARRANTY_ENDED,
    RuleCode.LINE_HAS_OPEN_TICKET,
    RuleCode.QUANTITY_NOT_AVAILABLE,
}


def sample(world: World) -> list[str]:
    """Every story's order and random others, 200 in all, the same on every run."""
    chosen = list(dict.fromkeys(story["order_id"] for story in world.stories.values()))
    others = sorted({o["id"] for o in world.tables["orders"]} - set(chosen))
    return chosen + random.Random(20261130).sample(others, SAMPLE - len(chosen))


def refusal_of(attempt) -> RuleViolation | None:
    """The rule an attempt broke, or None when it went through."""
    try:
        attempt()
    except RuleViolation as refusal:
        return refusal
    return None


def agrees(refusal: RuleViolation, option: KindOption) -> bool:
    """Whether a refusal is the one the option states: the same rule, in the same words."""
    return (refusal.code, why_not(refusal)) == (option.why_not_code, option.why_not)


def check_create(app: App, order_id: str, line: LineView, option: KindOption, methods: list[RefundMethod], at) -> str:
    """Open the ticket on a copy; a problem in words, or '' when create agrees with the option."""
    kind = TicketKind(option.kind)
    request = ticket_request(
        order_id,
        line_no=line.line_no,
        kind=kind,
        reason=ReasonCode.DEFECTIVE,
        # A bank transfer also needs the account from the shop's page (test_bank_transfer.py): another allowed
        # method tells whether the kind is possible.
        refund_method=next(m for m in methods if m is not RefundMethod.BANK_TRANSFER) if kind.refunds else None,
    )
    created = []
    refusal = refusal_of(
        lambda: created.append(
            create_ticket(RolledBack(app), ALICE, request, Decisions(confirmation="person"), at, POLICY)
        )
    )
    if option.possible:
        ok = refusal is None and created[0].outcome == "created" and created[0].ticket.kind == kind
        return "" if ok else f"create refused a possible kind: {refusal}"
    if refusal is None:
        return "create accepted a kind get_order calls impossible"
    return "" if agrees(refusal, option) else f"create refused for another reason: {refusal}"


def check_estimate(app: App, order_id: str, line: LineView, option: KindOption, at) -> str:
    """Estimate one unit of a refund kind on a copy; a problem in words, or ''."""
    refusal = refusal_of(
        lambda: estimate_refund(
            RolledBack(app), ALICE, order_id, line.line_no, 1, ReasonCode.DEFECTIVE, at, POLICY.quote_ttl
        )
    )
    if option.possible:
        return "" if refusal is None else f"estimate refused a possible kind: {refusal}"
    if refusal is None:
        return "estimate accepted a kind get_order calls impossible"
    return "" if agrees(refusal, option) else f"estimate refused for another reason: {refusal}"


def test_get_order_and_create_and_estimate_agree_on_every_line_of_200_orders(app, baseline):
    at, before = now(), row_counts(app.engine)
    disagreements, met, possible, lines = [], Counter(), Counter(), 0
    for order_id in sample(baseline):
        view = get_order(app.uow(), order_id, at)
        methods = [RefundMethod(m) for m in view.refund_methods_allowed]
        for line in view.lines:
            lines += 1
            for option in line.options:
                where = f"{order_id} line {line.line_no} {option.kind}"
                problems = [check_create(app, order_id, line, option, methods, at)]
                if TicketKind(option.kind).refunds:
                    problems.append(check_estimate(app, order_id, line, option, at))
                disagreements += [f"{where}: {problem}" for problem in problems if problem]
                if option.possible:
                    possible[option.kind] += 1
                else:
                    met[option.why_not_code] += 1
    assert not disagreements, "\n".join(disagreements[:20])
    assert lines > SAMPLE and set(possible) == {kind.value for kind in TicketKind}
    assert set(met) == set(REASONS), f"the sample never met: {set(REASONS) - set(met)}"
    assert row_counts(app.engine) == before  # every ticket and quote was made on a copy
