"""Every rule a tool's published inputSchema states is enforced, walked generically from tools/list.

For each pattern, enum, bound, length, type, required field and the closed object, one call breaks that rule
alone in an otherwise valid call and must get an argument error naming the field and the rule. Text that cannot
be stored (a NUL, an unpaired surrogate) is refused the same way in every text field.
"""

from typing import Any

import pytest

from tests.support.apps import UNLIMITED
from tests.support.arguments import RULE_WORDS, Violation, accepts, example_arguments, violations
from tests.support.clients import connect
from tests.support.creation import create_arguments
from tests.support.database import count_rows

# The walk sends a few dozen calls at once, so the app runs without rate limits.
pytestmark = [pytest.mark.anyio, pytest.mark.settings(**UNLIMITED)]


def unmet(violation: Violation, result: Any) -> str | None:
    """Why `result` is not an argument error naming the violation's field and rule, or None when it is."""
    text = result.content[0].text if result.content else ""
    if not result.is_error or (result.meta or {}).get("aftersales/error") != "invalid_arguments":
        return f"{violation} was not refused as an argument error: {text[:160]!r}"
    if f"{violation.field}: " not in text or RULE_WORDS[violation.rule] not in text:
        return f"{violation} was refused without naming the field and the rule: {text[:300]!r}"
    return None


async def test_every_published_rule_is_enforced_and_named_on_every_tool(server, mode):
    failures, walked = [], set()
    async with connect(server, mode) as client:
        for tool in (await client.list_tools()).tools:
            base = example_arguments(tool.input_schema)
            assert accepts(tool.input_schema, base), f"{tool.name}: the published examples do not make a valid call"
            for violation in violations(tool.input_schema):
                result = await client.call_tool(tool.name, violation.apply(base))
                if (failure := unmet(violation, result)) is not None:
                    failures.append(f"{tool.name}: {failure}")
                walked.add(violation.rule)
    assert not failures, "\n".join(failures)
    assert walked >= {"pattern", "enum", "minimum", "maximum", "minLength", "maxLength", "type", "required"}
    assert {"additionalProperties", "storable"} <= walked


async def test_every_tool_publishes_that_it_takes_no_other_fields(server, mode):
    async with connect(server, mode) as client:
        tools = (await client.list_tools()).tools
    assert tools and all(tool.input_schema.get("additionalProperties") is False for tool in tools)


@pytest.mark.parametrize("char", ["\x00", "\ud800"])
async def test_text_that_cannot_be_stored_is_refused_before_it_reaches_the_database(app, server, mode, stories, char):
    create = create_arguments(
        stories["cheap_tshirts_in_window"]["order_id"],
        reason_code="damaged",
        description=f"The seam{char} came apart.",
        refund_method="store_credit",
    )
    before = count_rows(app.engine)
    async with connect(server, mode) as client:
        result = await client.call_tool("after_sales_create_ticket", create)
    assert unmet(Violation("description", "storable", create["description"]), result) is None
    assert count_rows(app.engine) == before
