"""mcp/error_mapping.py: domain errors as isError results with their kind and rule code, and where the protocol has
no isError result, as JSON-RPC errors a host can act on."""

from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from aftersales.domain.errors import (
    InputNeeded,
    NotFound,
    PermissionDenied,
    RateLimited,
    RuleViolation,
    ServiceUnavailable,
)
from aftersales.domain.rule_codes import RuleCode
from aftersales.mcp.error_mapping import error_result, protocol_error

CLOSED = RuleViolation(RuleCode.TICKET_NOT_CANCELLABLE, "Ticket T-2026-0042 is closed.", "Closed.", "Do not retry.")


def test_a_rule_refusal_publishes_its_kind_and_its_rule_code_in_structured_content_beside_the_message():
    result = error_result(CLOSED)
    assert result.is_error and result.content[0].text == str(CLOSED)
    assert result.structured_content == {"error_kind": "rule", "error_code": "ticket_not_cancellable"}
    assert result.meta == {"aftersales/error": "rule"}


def test_any_other_tool_error_publishes_its_kind_and_no_rule_code():
    for error in (
        NotFound("No ticket numbered T-2026-9999 exists.", "Numbers come from creation.", "Ask the customer."),
        InputNeeded("No refund_method was given.", "A refund needs one.", "Ask the customer."),
        ServiceUnavailable(),
    ):
        assert error_result(error).structured_content == {"error_kind": error.kind}


def test_an_error_the_caller_can_fix_is_invalid_params_with_its_three_part_message_and_kind():
    for error in (
        NotFound("No ticket numbered T-2026-9999 exists.", "Numbers come from creation.", "Ask the customer."),
        CLOSED,
        PermissionDenied("No scope.", "Needs tickets:read.", "Ask the operator."),
    ):
        mapped = protocol_error(error).error
        assert (mapped.code, mapped.message, mapped.data) == (
            INVALID_PARAMS,
            str(error),
            {"aftersales/error": error.kind},
        )


def test_a_retryable_error_is_an_internal_error_that_says_when_to_retry():
    mapped = protocol_error(ServiceUnavailable()).error
    assert mapped.code == INTERNAL_ERROR and "Retry the same call" in mapped.message
    assert mapped.data == {"aftersales/error": "unavailable", "aftersales/retryAfterSeconds": 5.0}


def test_a_rate_limit_is_invalid_params_the_caller_fixes_by_waiting_the_seconds_it_states():
    limited = RateLimited("Too many reads.", "Reads are limited.", "Wait 2.5 seconds.", retry_after=2.5)
    mapped = protocol_error(limited).error
    assert (mapped.code, mapped.message) == (INVALID_PARAMS, str(limited))
    assert mapped.data == {"aftersales/error": "rate_limited", "aftersales/retryAfterSeconds": 2.5}
