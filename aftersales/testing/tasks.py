"""The task format: the world an episode starts from, the customer, the expected outcome, call rules, a reference.

Tasks are YAML files in seed/tasks/ (one task each); `task.schema.json` beside this package is generated from these
models (`python -m aftersales.testing.schemas`), and a test keeps the two equal.
"""

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind

DEFAULT_CLOCK = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # every task's world is frozen here unless it says otherwise
TASK_ID = r"^[a-z0-9][a-z0-9-]{2,63}$"
DURATION = r"^\d+[smhd]$"
Scalar = str | int | float | bool | None


class Strict(BaseModel):
    """A part of a task: unknown keys are mistakes, not extensions."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class AnyValue(Strict):
    """Matches any value, including none."""

    any: Literal[True]


class OneOf(Strict):
    """Matches any of the listed values."""

    one_of: list[Scalar] = Field(min_length=1)


class Absent(Strict):
    """Matches a missing or null value; on a changed row, a field that did not change."""

    absent: Literal[True]


Matcher = Annotated[
    Scalar | AnyValue | OneOf | Absent,
    Field(description='An exact value, or {"any": true}, {"one_of": [...]}, {"absent": true}.'),
]


class Event(Strict):
    """Something that happens in the world after a call returns, whoever made it."""

    after: str = Field(description="The tool whose call triggers the event.", examples=["after_sales_estimate_refund"])
    nth: int = Field(default=1, ge=1, description="Which call of that tool (1 = the first).")
    advance: str | None = Field(
        default=None, pattern=DURATION, description="Move the world's clock forward by this much (the customer waits)."
    )
    lose_response: bool = Field(
        default=False,
        description="The call takes effect but its answer never reaches the agent (a timeout); the agent sees an "
        "internal error and must decide whether to retry.",
    )


class WorldStart(Strict):
    """The world a trial starts from."""

    source: str = Field(default="baseline", alias="from", description="baseline, or a dataset file in seed/.")
    clock: datetime = Field(
        default=DEFAULT_CLOCK, description="The world's frozen time: relative dates in the data move with it."
    )
    settings: dict[str, int | str] = Field(
        default_factory=dict, description="Setting overrides (AFTERSALES_* names, lower case, without the prefix)."
    )
    rows: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Extra rows by table, inserted before the first trial."
    )
    events: list[Event] = Field(default_factory=list, description="What happens during the episode.")


class FormAnswer(Strict):
    """How the customer answers one form: the MCP elicitation result they give."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Scalar] | None = Field(default=None, description="The form's fields, for accept.")


class Wants(Strict):
    """What the customer is after, in fields a scripted agent (or a user simulator) can read."""

    action: Literal["open_ticket", "cancel_ticket", "check_ticket"]
    kind: TicketKind | None = None
    quantity: int = Field(default=1, ge=1)
    reason_code: ReasonCode | None = None
    description: str | None = Field(default=None, description="Their own words for the ticket.")
    refund_method: RefundMethod | None = Field(
        default=None, description="The method they name up front; otherwise they answer the form."
    )
    accepts_repair: bool = Field(default=False, description="Whether they take a warranty repair if no refund.")


class Customer(Strict):
    """The person the agent serves: what they say, know and want, and how they answer the server's forms."""

    opening: str = Field(description="What they say first.")
    knows: dict[str, Scalar] = Field(description="Facts they can give when asked: email, order_id, ticket_id, ...")
    story: str = Field(description="What happened, in their words.")
    wants: Wants
    forms: dict[str, FormAnswer] = Field(
        default_factory=dict,
        description="Answers by question key (after_sales_create_ticket:refund_method, …:confirm); a question "
        "not listed is cancelled.",
    )
    mistakes: dict[str, Scalar] = Field(
        default_factory=dict,
        description="Conversation mode: facts (knows keys) they first get wrong. The first time the agent asks for "
        "one they give this value; asked again, or told it was not found or does not match, the right one.",
        examples=[{"order_id": "O-2026-001401"}],
    )
    changes_mind: dict[
        Literal["kind", "quantity", "reason_code", "description", "refund_method", "accepts_repair"], Scalar
    ] = Field(
        default_factory=dict,
        description="Conversation mode: wants fields they change their mind about. The first time asked they answer "
        "from wants (or forms); every later time asked, or asked to confirm, this value, which is then what they "
        "want, in the world's form answers too.",
        examples=[{"refund_method": "store_credit"}],
    )
    stops_after: int | None = Field(
        default=None,
        ge=0,
        description="Conversation mode: they answer this many agent messages, then stop: the next reply is empty "
        "and ends the conversation (reason stopped_answering).",
    )

    @model_validator(mode="after")
    def _behaviours_fit(self) -> "Customer":
        """A mistake or a change of mind names a fact or a want they have, and a value other than the right one."""
        for name, wrong in self.mistakes.items():
            if self.knows.get(name) is None:
                raise ValueError(f"mistakes names {name!r}, which is not in knows: name a fact the customer knows")
            if wrong == self.knows[name]:
                raise ValueError(f"mistakes gives {name!r} its right value {wrong!r}: a mistake must differ from knows")
        for name, value in self.changes_mind.items():
            now = self._wanted(name)
            if now is None:
                raise ValueError(
                    f"changes_mind names {name!r}, which the customer has no value for: set wants.{name}"
                    + (" or answer its form" if name == "refund_method" else "")
                )
            try:
                Wants.model_validate(self.wants.model_dump() | {name: value})
            except ValidationError:
                raise ValueError(
                    f"changes_mind gives {name!r} the value {value!r}, which wants.{name} cannot take"
                ) from None
            if value == now:
                raise ValueError(f"changes_mind gives {name!r} the value it already has ({value!r}): give another")
        return self

    def _wanted(self, name: str) -> Scalar:
        """What they want for a wants field before any change of mind (a refund method from a form, if not named)."""
        value: Scalar = getattr(self.wants, name)
        if name == "accepts_repair":
            return bool(value) or self.wants.kind == "repair"
        if name == "refund_method" and value is None:
            given = [
                answer.content["refund_method"]
                for answer in self.forms.values()
                if answer.content and "refund_method" in answer.content
            ]
            return given[0] if given else None
        return value


class FieldChange(Strict):
    """A changed field's value before and after."""

    before: Matcher = AnyValue(any=True)
    after: Matcher = AnyValue(any=True)


class ExpectedRow(Strict):
    """One row of a diff, with matchers in place of values (row for added/removed, fields for changed)."""

    key: dict[str, Matcher] = Field(default_factory=dict)
    row: dict[str, Matcher] = Field(default_factory=dict)
    fields: dict[str, FieldChange | Matcher] = Field(
        default_factory=dict, description="Changed rows: {before, after} matchers, or one matcher for after."
    )


class ExpectedTable(Strict):
    """The rows one table gains, loses and changes; a kind left out must not happen at all."""

    added: list[ExpectedRow] = Field(default_factory=list)
    removed: list[ExpectedRow] = Field(default_factory=list)
    changed: list[ExpectedRow] = Field(default_factory=list)


class Expected(Strict):
    """The world's diff at the end of the episode, as a partial diff (format aftersales-world-diff/1)."""

    tables: dict[str, ExpectedTable] = Field(default_factory=dict)
    only: list[str] | None = Field(
        default=None,
        description="Every table allowed to change (those under tables included); any change elsewhere fails. "
        "Left out: only the tables under tables.",
    )

    def allowed(self) -> set[str]:
        """The tables that may differ."""
        return set(self.tables) | set(self.only if self.only is not None else [])


class CallPattern(Strict):
    """A call the agent must make: a tool, and matchers for some of its arguments."""

    tool: str
    arguments: dict[str, Matcher] = Field(default_factory=dict)
    only_with_forms: bool = Field(
        default=False,
        description="Required only of an agent whose client can show forms; one that cannot confirms with the "
        "customer itself and may rightly never make this call (a confirmation the customer declines, say).",
    )


class CallRules(Strict):
    """Rules on the calls the agent makes, checked on the world's trace."""

    must_call: list[str | CallPattern] = Field(default_factory=list)
    must_not_call: list[str] = Field(default_factory=list)
    max_calls: int | None = Field(default=None, ge=0, description="Tool calls in all (resumed rounds not counted).")
    max_calls_per_tool: dict[str, int] = Field(default_factory=dict)
    no_invalid_arguments: bool = Field(default=True, description="No call the server refused for its arguments.")
    no_create_after_refusal: bool = Field(
        default=True,
        description="After a create was refused by a rule, no create of that kind for that line again; after the "
        "customer declined (not_created), no create for that line again.",
    )
    one_key_per_ticket: bool = Field(
        default=True, description="Every create for one line and kind reuses one idempotency_key (safe retries)."
    )


class Step(Strict):
    """One call of the reference solution; "${name.field}" in an argument is a field of an earlier saved result."""

    call: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    save: str | None = Field(default=None, pattern=r"^[a-z_][a-z0-9_]*$", description="Name the result for later.")
    expect: Literal["ok", "tool_error", "protocol_error"] | None = Field(
        default=None, description="What this call should come to (checked by `aftersales tasks check`)."
    )


class Task(Strict):
    """One task: a customer with a need, in a world, with a checked right outcome."""

    id: str = Field(pattern=TASK_ID)
    title: str
    story: str | None = Field(default=None, description="The seed story it builds on (seed/README.md).")
    tags: list[str] = Field(default_factory=list)
    world: WorldStart = Field(default_factory=WorldStart)
    customer: Customer
    expected: Expected
    calls: CallRules = Field(default_factory=CallRules)
    mention: list[str] = Field(
        default_factory=list, description="Facts the final answer should mention: reported, not scored by default."
    )
    reference: list[Step] = Field(min_length=1, description="The calls a correct agent makes.")
