"""Errors a model can act on; each knows its three-part message.

AfterSalesError                  what was wrong, the rule, what to do next
├── InvalidArguments             arguments each valid alone but wrong together, or an unusable cursor or phone
├── NotFound                     unknown (or someone else's) ticket, order, line, quote
├── HandleExpired                a quote past its time to live
├── RuleViolation                a business rule of the shop's policy, named by its code (domain/rule_codes.py)
├── InputNeeded                  a question only the person can answer, which this client cannot show them
├── PermissionDenied             the caller's token lacks a scope
└── Retryable                    nothing changed; the same call may succeed later
    ├── ServiceUnavailable       the database cannot be reached
    └── RateLimited              the caller is over its rate limit

Arguments that break a tool's input schema are not raised: the argument gate (mcp/arguments.py) answers them.
InvalidArguments covers what no schema keyword states (exactly one of email, phone and customer_id, say), with the
gate's error kind, so a harness counts both alike.
"""

from aftersales.domain.rule_codes import RuleCode


class AfterSalesError(Exception):
    """A problem the caller can fix; `str()` is the three-part message."""

    kind = "error"
    code: RuleCode | None = None  # which business rule refused; only a RuleViolation names one
    retryable = False
    server_fault = False  # the server could not answer, whatever the caller sends

    def __init__(self, what: str, rule: str, next_step: str) -> None:
        self.what, self.rule, self.next_step = what, rule, next_step
        super().__init__(f"{what} {rule} {next_step}")


class InvalidArguments(AfterSalesError):
    """Arguments the schema accepts that still cannot be used: the wrong combination, or a value no rule can read."""

    kind = "invalid_arguments"


class NotFound(AfterSalesError):
    """The id names nothing this caller can see."""

    kind = "not_found"


class HandleExpired(AfterSalesError):
    """A handle outlived its time to live."""

    kind = "expired"


class RuleViolation(AfterSalesError):
    """The request breaks a rule of the shop's after-sales policy: `code` says which one."""

    kind = "rule"

    def __init__(self, code: RuleCode, what: str, rule: str, next_step: str) -> None:
        self.code = code
        super().__init__(what, rule, next_step)


class InputNeeded(AfterSalesError):
    """Only the person can answer, and the client cannot show them a form: the agent asks, then calls again.

    Not a rule refusal: the same call with the answer added (and the same idempotency_key) goes through. It is the
    form-less counterpart of an input_required round, so a harness tells it from a RuleViolation by its kind.
    """

    kind = "input_needed"


class PermissionDenied(AfterSalesError):
    """The caller is not allowed to do this."""

    kind = "permission"


class Retryable(AfterSalesError):
    """Nothing changed; the same call may succeed after `retry_after` seconds."""

    kind = "retryable"
    retryable = True

    def __init__(self, what: str, rule: str, next_step: str, retry_after: float = 1.0) -> None:
        self.retry_after = retry_after
        super().__init__(what, rule, next_step)


class ServiceUnavailable(Retryable):
    """The database is unreachable; the call changed nothing."""

    kind = "unavailable"
    server_fault = True

    def __init__(self) -> None:
        super().__init__(
            "The after-sales database did not answer in time, so nothing was read or changed.",
            "Calls are retryable when the service is temporarily unavailable.",
            "Retry the same call (with the same idempotency_key, if any) in 5 seconds.",
            retry_after=5.0,
        )


class RateLimited(Retryable):
    """The caller sent more calls than its limit allows."""

    kind = "rate_limited"
