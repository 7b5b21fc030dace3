"""The services' tests run on a fake unit of work over the baseline world, as of now."""

import pytest

from aftersales.clock import now
from tests.support.fakes import FakeDatabase


@pytest.fixture
def database(baseline) -> FakeDatabase:
    return FakeDatabase(baseline, now())
