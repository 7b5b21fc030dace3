"""Errors a model can act on; each knows its three-part message.

AfterSalesError                  what was wrong, the rule, what to do next
├── InvalidArguments             arguments that break the tool's input schema
├── NotFound                     unknown (or someone else's) ticket, order, line, quote
├── HandleExpired                a quote past its time to live
├── RuleViolation                a business rule of the shop's policy
├── PermissionDenied             the caller's token lacks a scope
└── Retryable                    nothing changed; the same call may succeed later
    └── ServiceUnavailable       the database cannot be reached
"""


class AfterSalesError(Exception):
    """A problem the caller can fix; `str()` is the three-part message."""

    kind = "error"
    retryable = False

    def __init__(self, what: str, rule: str, next_step: str) -> None:
        self.what, self.rule, self.next_step = what, rule, next_step
        super().__init__(f"{what} {rule} {next_step}")


class InvalidArguments(AfterSalesError):
    """The arguments do not satisfy the tool's input schema."""

    kind = "invalid_arguments"


class NotFound(AfterSalesError):
    """The id names nothing this caller can see."""

    kind = "not_found"


class HandleExpired(AfterSalesError):
    """A handle outlived its time to live."""

    kind = "expired"


class RuleViolation(AfterSalesError):
    """The request breaks a rule of the shop's after-sales policy."""

    kind = "rule"


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
