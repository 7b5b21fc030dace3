"""Rate buckets shared in PostgreSQL: replicas on one database charge one bucket per caller, refill and burst alike.

Each limiter here stands for a replica: limiters given the same database and the same clock share every caller's
buckets, and the clock moves by hand (the shared buckets count the time they are given).
PostgreSQL only: SQLite keeps each process's buckets in memory (tests/unit/mcp/test_ratelimit.py).
"""

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from aftersales.mcp.ratelimit import ANSWER_ROUNDS, RESOLUTION, Limit
from aftersales.storage import rate_buckets
from aftersales.storage.database import make_engine
from aftersales.storage.rate_buckets import SharedBuckets
from aftersales.worlds import context
from tests.support.clients import ALICE, BOB
from tests.support.free_ports import free_port
from tests.support.postgres import scratch_database
from tests.support.rate_limits import SERVED, Clock, Limited, retry_after
from tests.support.worlds import a_world

pytestmark = pytest.mark.anyio
HORIZON = 600.0


@pytest.fixture(scope="module")
def shared_url(postgres_template: str, postgres_admin_url: str) -> Iterator[str]:
    """One migrated PostgreSQL database for the module; each test starts with no buckets in it."""
    with scratch_database(postgres_admin_url, make_url(postgres_template).database) as url:
        yield url


@pytest.fixture
def engines(shared_url: str) -> Iterator[list[Engine]]:
    """Two engines on the shared database, one per replica, its rate_buckets table emptied first."""
    made = [make_engine(shared_url) for _ in range(2)]
    with made[0].begin() as connection:
        connection.execute(text("DELETE FROM rate_buckets"))
    yield made
    for engine in made:
        engine.dispose()


@pytest.fixture
def shared(engines: list[Engine]) -> Iterator[Callable[..., SharedBuckets]]:
    """Shared buckets on the n-th engine (and a horizon), their kept connections closed at the end."""
    made: list[SharedBuckets] = []

    def on(n: int, horizon: float = HORIZON) -> SharedBuckets:
        made.append(SharedBuckets(engines[n], horizon))
        return made[-1]

    yield on
    for buckets in made:
        buckets.close()


@pytest.fixture
def replicas(shared: Callable[..., SharedBuckets]) -> tuple[Limited, Limited]:
    """Two limiters on one database, reading one clock."""
    clock = Clock()
    a, b = (Limited(shared=shared(n), clock=clock) for n in range(2))
    return a, b


def test_a_shared_bucket_serves_its_burst_at_once_then_says_how_long_until_the_next_token(shared):
    buckets = shared(0)

    def take(now: float) -> float:
        return buckets.take(None, "alice-bot", "write", 60, 3, now, RESOLUTION)

    assert [take(1000.0) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    assert take(1000.25) == 0.75  # a refused take spends nothing: the token keeps filling
    assert take(1001.0) == 0.0
    assert take(1001.0) == 1.0
    assert [take(4600.0) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]  # idle for an hour: full, never past the burst


async def test_two_replicas_give_a_caller_its_burst_once_and_then_its_sustained_rate_not_twice(replicas):
    a, b = replicas
    served = await _alternate(a, b, "look", 6)
    assert served == [True, True, True, False, False, False] and a.served + b.served == 3
    a.wait(10)  # one read token every 10 seconds, for both replicas together
    assert await _alternate(b, a, "look", 2) == [True, False]


async def test_a_shared_wait_is_rounded_up_to_the_tenth_and_the_other_replica_serves_a_retry_after_that_long(
    replicas,
):
    a, b = replicas
    for elapsed in (0.86, 0.7, 0.999, 0.01):
        assert await a.call(ALICE, "change") == SERVED  # a write token a second
        a.wait(elapsed)
        stated = retry_after(await a.call(ALICE, "change"))
        assert 1 - elapsed - 1e-6 <= stated < 1 - elapsed + 0.1 + 1e-6 and stated * 10 == round(stated * 10)
        a.wait(stated)
        assert await b.call(ALICE, "change") == SERVED
        a.wait(1.0)


async def test_free_answering_rounds_are_counted_across_replicas(replicas):
    a, b = replicas
    assert await a.call(ALICE, "change") == SERVED  # the first round takes the only write token
    rounds = [await (a if n % 2 else b).answer(ALICE, "change") == SERVED for n in range(ANSWER_ROUNDS)]
    assert rounds == [True] * ANSWER_ROUNDS
    assert retry_after(await a.answer(ALICE, "change")) == 1.0  # a replay spread over replicas meets the limit
    assert await b.answer(BOB, "change") == SERVED  # each caller's call has an allowance of its own
    a.wait(600.0)  # the states of that lifetime have expired: a new call's rounds are free again
    assert await b.answer(ALICE, "change") == SERVED and await a.call(ALICE, "change") == SERVED


async def test_each_world_and_each_caller_keeps_shared_buckets_of_its_own(replicas):
    a, b = replicas
    with context.entered(a_world("w-one"), lambda _: 1):
        assert await a.calls(ALICE, "change", 2) == [True, False]
    with context.entered(a_world("w-two"), lambda _: 1):
        assert await b.calls(ALICE, "change", 2) == [True, False]
    assert await b.calls(ALICE, "change", 2) == [True, False]
    assert await a.calls(BOB, "change", 1) == [True]


def test_charges_sent_at_once_from_many_threads_take_exactly_the_burst(shared):
    buckets = [shared(0), shared(1)]
    with ThreadPoolExecutor(8) as pool:
        waits = list(
            pool.map(lambda n: buckets[n % 2].take(None, "alice-bot", "read", 1, 5, 1000.0, RESOLUTION), range(24))
        )
    assert waits.count(0.0) == 5 and all(wait >= 59.0 for wait in waits if wait)


def test_rows_idle_longer_than_any_bucket_takes_to_refill_are_deleted_by_a_later_charge(engines, shared, monkeypatch):
    monkeypatch.setattr(rate_buckets, "PURGE_EVERY", 0.0)
    buckets = shared(0, horizon=20.0)
    buckets.take(None, "alice-bot", "write", 60, 20, 1000.0, RESOLUTION)
    buckets.take(None, "bob-bot", "write", 60, 20, 1015.0, RESOLUTION)
    buckets.take(None, "carol-bot", "write", 60, 20, 1025.0, RESOLUTION)
    with engines[0].connect() as connection:
        callers = connection.execute(text("SELECT caller FROM rate_buckets ORDER BY caller")).scalars().all()
    assert callers == ["bob-bot", "carol-bot"]


async def test_a_database_that_does_not_answer_leaves_each_replica_its_own_buckets_and_says_so_once(caplog):
    caplog.set_level(logging.WARNING, logger="aftersales.mcp.ratelimit")
    unreachable = make_engine(f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none")
    try:
        limited = Limited(reads=Limit(per_minute=6, burst=3), shared=SharedBuckets(unreachable, HORIZON))
        assert await limited.calls(ALICE, "look", 4) == [True, True, True, False]  # fails open, to this replica's limit
        assert await limited.answer(ALICE, "look") == SERVED  # answering rounds are counted here too
    finally:
        unreachable.dispose()
    warnings = [r.getMessage() for r in caplog.records if r.name == "aftersales.mcp.ratelimit"]
    assert warnings == ["shared rate buckets unavailable: calls are charged to this replica's own buckets meanwhile"]


async def _alternate(first: Limited, second: Limited, tool: str, count: int) -> list[bool]:
    """Send `count` calls as Alice, first to one replica, then the other, and so on; whether each was served."""
    return [await (first if n % 2 == 0 else second).call(ALICE, tool) == SERVED for n in range(count)]
