"""Business-rule refusals in tests: a test names the rule's code, never the words of its message."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from aftersales.domain.errors import RuleViolation
from aftersales.domain.rule_codes import RuleCode


@contextmanager
def refused_by(code: RuleCode) -> Iterator[pytest.ExceptionInfo[RuleViolation]]:
    """Expect the block to raise a RuleViolation by the rule `code`; the raised error is in `.value` afterwards."""
    with pytest.raises(RuleViolation) as refusal:
        yield refusal
    assert refusal.value.code is code, f"refused by {refusal.value.code}, not {code}: {refusal.value}"
