"""The one write flow of creation and cancellation when a concurrent call gets there first, on a fake unit of work.

The same races on real databases, with real threads, are in tests/integration/test_concurrency.py and
tests/integration/test_cancel_ticket.py; here each loss is staged exactly, in milliseconds.
"""

from collections.abc import Callable
from typing import Any

import pytest

from aftersales.clock import now
from aftersales.domain.errors import Retryable, RuleViolation
from aftersales.services.cancellation import cancel_ticket
from aftersales.services.creation import create_ticket
from aftersales.storage.database_errors import Conflict
from tests.support.cancellation import cancel_request
from tests.support.clients import ALICE
from tests.support.creation import CONFIRMED, POLICY, ticket_request
from tests.support.fakes import FakeDatabase, FakeUnitOfWork


class Lost(FakeUnitOfWork):
    """A unit of work whose first `repository.method` call finds that another call got there first.

    `winner` runs at that moment, in a unit of work of its own; then the call fails as the database makes it fail:
    `Conflict` from a constraint, or False from the compare-and-set `tickets.move`.
    """

    def __init__(self, database: FakeDatabase, where: str, winner: Callable[[], object] = lambda: None) -> None:
        super().__init__(database)
        self.where, self.winner, self.lost = where, winner, False

    def __enter__(self):
        uow = super().__enter__()
        if not self.lost:
            repository, method = self.where.split(".")
            setattr(getattr(uow, repository), method, self.lose)
        return uow

    def lose(self, *_: Any) -> bool:
        self.lost = True
        self.winner()
        if self.where == "tickets.move":
            return False
        raise Conflict(self.where)


def create(database, request, uow=None):
    return create_ticket(uow or FakeUnitOfWork(database), ALICE, request, CONFIRMED, now(), POLICY)


def cancel(database, request, uow=None):
    return cancel_ticket(uow or FakeUnitOfWork(database), ALICE, request, "person", now(), POLICY.idempotency_ttl)


def tickets_of(database: FakeDatabase, order_id: str) -> list[str]:
    return [t["id"] for t in database.tables.rows["tickets"] if t["order_id"] == order_id]


def test_a_create_whose_key_a_concurrent_call_claims_first_replays_that_calls_ticket(database, stories):
    request = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    first = []
    racing = Lost(database, "idempotency.claim", lambda: first.append(create(database, request)))
    result = create(database, request, racing)
    assert (result.outcome, result.ticket.ticket_id) == ("replayed", first[0].ticket.ticket_id)
    assert tickets_of(database, request.order_id) == [first[0].ticket.ticket_id]


def test_a_create_whose_line_another_key_takes_first_is_refused_naming_the_open_ticket(database, stories):
    order_id = stories["cheap_tshirts_in_window"]["order_id"]
    first = []
    racing = Lost(database, "tickets.open", lambda: first.append(create(database, ticket_request(order_id))))
    with pytest.raises(RuleViolation, match="already has an open ticket"):
        create(database, ticket_request(order_id), racing)
    assert tickets_of(database, order_id) == [first[0].ticket.ticket_id]


def test_a_create_that_loses_a_race_nobody_won_asks_for_a_retry_and_stores_nothing(database, stories):
    request = ticket_request(stories["cheap_tshirts_in_window"]["order_id"])
    commits = database.commits
    with pytest.raises(Retryable, match="changed this order line at the same moment"):
        create(database, request, Lost(database, "tickets.open"))
    assert database.commits == commits and database.tables.keys == {}
    assert create(database, request).outcome == "created"  # the retry the error asks for


def test_a_cancel_whose_key_a_concurrent_call_claims_first_replays_its_cancellation(database, stories):
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    first = []
    result = cancel(
        database, request, Lost(database, "idempotency.claim", lambda: first.append(cancel(database, request)))
    )
    assert (result.outcome, result.ticket) == ("replayed", first[0].ticket)


def test_a_cancel_whose_status_moved_and_came_back_asks_for_a_retry_and_stores_nothing(database, stories):
    request = cancel_request(stories["ticket_awaiting_return"]["ticket_id"])
    commits = database.commits
    with pytest.raises(Retryable, match=f"Ticket {request.ticket_id} changed at the same moment"):
        cancel(database, request, Lost(database, "tickets.move"))
    assert database.commits == commits and database.tables.keys == {}
    assert cancel(database, request).outcome == "cancelled"  # the retry the error asks for
