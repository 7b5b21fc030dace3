"""The task format: the world an episode starts from, the customer, the expected outcome, call and conversation
rules, a reference.

Tasks are YAML files in seed/tasks/ (one task each); `task.schema.json` beside this package is generated from these
models (`python -m aftersales.testing.schemas`), and a test keeps the two equal.
"""

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from aftersales.domain.enums import ReasonCode, RefundMethod, TicketKind
from aftersales.domain.rule_codes import RuleCode

DEFAULT_CLOCK = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # every task's world is frozen here unless it says otherwise
TASK_ID = r"^[a-z0-9][a-z0-9-]{2,63}$"
DURATION = r"^\d+[smhd]$"
DEFAULT_TURN_LIMIT = 12  # agent messages a conversation allows when the task sets no limit of its own
TOLD = ("ticket_id", "refund_amount", "refusal", "stage")  # what `communicate` may name besides the customer's facts
# "${name.path}": a field of an earlier call's saved result, as a whole argument value or anywhere in a say text.
SAVED = re.compile(r"\$\{([a-z_][a-z0-9_]*)\.([A-Za-z0-9_.]+)\}")
REFERENCE = re.compile(rf"^{SAVED.pattern}$")
Scalar = str | int | float | bool | None
Split = Literal["dev", "held_out"]
SPLITS: tuple[Split, ...] = ("dev", "held_out")
# What `expected.unchanged` lets change: a quote an estimate pins and the record of an idempotency key are left behind
# by calls that change nothing the customer sees (the audit, tool_calls, is never part of a world's diff).
LEFT_BEHIND = ("quotes", "idempotency_records")
WRITE = (
    "write"  # in a call pattern, any call of a tool that writes: after_sales_create_ticket, after_sales_cancel_ticket
)


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


class Present(Strict):
    """Matches any value that is there and not null."""

    present: Literal[True]


class FromResult(Strict):
    """Matches a call's argument equal to a field of the result of an earlier call that went through."""

    tool: str = Field(alias="from", description="The earlier call's tool.", examples=["after_sales_estimate_refund"])
    field: str = Field(
        pattern=r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$", description="The field of its result (dotted when nested)."
    )


Matcher = Annotated[
    Scalar | AnyValue | OneOf | Absent | Present,
    Field(description='An exact value, or {"any": true}, {"one_of": [...]}, {"absent": true}, {"present": true}.'),
]
ArgumentMatcher = Annotated[
    Scalar | AnyValue | OneOf | Absent | Present | FromResult,
    Field(
        description='A Matcher, or {"from": TOOL, "field": PATH}: the value an earlier call of TOOL that went '
        "through gave in that field of its result."
    ),
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


class ClientLimits(Strict):
    """What the trial's client is taken to lack, whatever it declares (the harness's own server only)."""

    url_mode: bool = Field(
        default=True,
        description="false: the server treats the client as one that did not declare URL-mode elicitation, so it "
        "never sends the customer to the bank-account page (a bank_transfer refund is a tool error saying to offer "
        "store credit).",
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
    client: ClientLimits | None = Field(default=None, description="What the trial's client is taken to lack.")


class PageVisit(Strict):
    """What the customer does on the shop's bank-account page a URL question sends them to."""

    holder: str = Field(max_length=200, description="The account holder's name, as they type it.")
    account: str = Field(
        max_length=64,
        description="The IBAN or bank card number they type (a test number: it is never in a brief, a result or a "
        "trace; the page checks its check digit).",
        examples=["GB82 WEST 1234 5698 7654 32"],
    )
    bank: str = Field(max_length=200, description="The bank's name, as they type it.")
    waits: str | None = Field(
        default=None,
        pattern=DURATION,
        description="They open the page and step away this long before submitting: the world's clock moves on "
        "(past the page's lifetime, AFTERSALES_PAYOUT_PAGE_TTL, the page has expired and takes nothing).",
    )


class FormAnswer(Strict):
    """How the customer answers one question: the MCP elicitation result they give (and, for a URL, the page)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Scalar] | None = Field(default=None, description="The form's fields, for accept.")
    page: PageVisit | None = Field(
        default=None,
        description="A URL question (after_sales_create_ticket:bank_account) answered accept: what they do on the "
        "page. decline or cancel: they close it without giving anything.",
    )

    @model_validator(mode="after")
    def _page_or_content(self) -> Self:
        if self.page is not None and (self.action != "accept" or self.content is not None):
            raise ValueError("page goes with action accept and no content: it answers a URL question, not a form")
        return self


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

    def facts(self) -> list[str]:
        """The names of what they can reveal in a conversation: their knows, story, each wants field set, confirm.

        A refund method counts when a form answer gives it, as the scripted customer answers the question from it.
        """
        wanted = [
            name
            for name in Wants.model_fields
            if name != "action"
            and (self._wanted(name) if name == "refund_method" else getattr(self.wants, name)) is not None
        ]
        return [*self.knows, "story", *(f"wants.{name}" for name in wanted), "confirm"]


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

    unchanged: bool = Field(
        default=False,
        description="Nothing the customer would see changed: every table as it was, except what reads and refused "
        f"or declined calls leave behind ({', '.join(LEFT_BEHIND)}; the audit is never in a diff). Takes no "
        "tables or only.",
    )
    tables: dict[str, ExpectedTable] = Field(default_factory=dict)
    only: list[str] | None = Field(
        default=None,
        description="Every table allowed to change (those under tables included); any change elsewhere fails. "
        "Left out: only the tables under tables.",
    )

    @model_validator(mode="after")
    def _unchanged_alone(self) -> Self:
        if self.unchanged and (self.tables or self.only is not None):
            raise ValueError("expected.unchanged takes no tables or only: it already says which tables may change")
        return self

    def allowed(self) -> set[str]:
        """The tables that may differ."""
        if self.unchanged:
            return set(LEFT_BEHIND)
        return set(self.tables) | set(self.only if self.only is not None else [])


Outcome = Literal["ok", "tool_error", "protocol_error", "declined"]


class Refused(Strict):
    """A call refused by one business rule: a tool error whose error_code names that rule."""

    error_code: RuleCode = Field(
        description="The rule's code, as the tool error's structured content gives it (the policy lists them).",
        examples=["return_window_closed"],
    )


class CallPattern(Strict):
    """Calls of a tool (or of any write), with matchers for some of their arguments and what they came to."""

    tool: str = Field(description=f'A tool\'s name, or "{WRITE}": any call of a tool that writes (create, cancel).')
    arguments: dict[str, ArgumentMatcher] = Field(default_factory=dict)
    result: Outcome | Refused | None = Field(
        default=None,
        description="What the call came to: ok (went through, declined included), tool_error, protocol_error, "
        "declined (the person declined or cancelled a form: not_created, not_cancelled), or {error_code: CODE} (a "
        "tool error refusing by that business rule). Left out: anything.",
    )
    error_kind: str | None = Field(
        default=None,
        description="The error's kind (rule, expired, not_found, input_needed, invalid_arguments, …); implies a "
        "failed call.",
        examples=["rule"],
    )


class RequiredCall(CallPattern):
    """A call the agent must make, between min_calls and max_calls times."""

    min_calls: int = Field(
        default=1, ge=0, description="Calls matching the pattern at least (0 with max_calls: at most that many)."
    )
    max_calls: int | None = Field(default=None, ge=1, description="Calls matching the pattern at most.")
    only_with_forms: bool = Field(
        default=False,
        description="Required only of an agent whose client can show forms, in brief mode; one that cannot, or one "
        "in a conversation, confirms with the customer itself and may rightly never make this call (a confirmation "
        "the customer declines, say).",
    )

    @model_validator(mode="after")
    def _bounds(self) -> Self:
        if self.max_calls is not None and self.max_calls < self.min_calls:
            raise ValueError(f"max_calls {self.max_calls} is below min_calls {self.min_calls}: raise it or drop it")
        return self


Selector = str | CallPattern  # a tool's name (or "write") alone, or a pattern


class Before(Strict):
    """Every call matching `then` has a call matching `first` before it."""

    first: Selector
    then: Selector


class NeverAfter(Strict):
    """No call matching `never` comes after a call matching `after`."""

    after: Selector
    never: Selector


class FollowedBy(Strict):
    """Every call matching `after` has a call matching `followed_by` after it."""

    after: Selector
    followed_by: Selector


class CallRules(Strict):
    """Rules on the calls the agent makes, checked on the world's trace."""

    must_call: list[str | RequiredCall] = Field(default_factory=list)
    must_not_call: list[str | CallPattern] = Field(default_factory=list)
    order: list[Before | NeverAfter | FollowedBy] = Field(
        default_factory=list,
        description="Orders between calls: {first, then}, {after, never}, {after, followed_by}; each side a tool, "
        f'"{WRITE}" or a call pattern.',
    )
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


class ConversationRules(Strict):
    """Rules of a conversation trial, checked on the timeline of the customer's and the agent's turns."""

    must_ask: list[str] = Field(
        default_factory=list,
        description="Facts the customer must have given (when asked) before the agent's first write: keys of "
        "customer.knows, story, wants.<field>, confirm.",
    )
    communicate: list[str] = Field(
        default_factory=list,
        description="Facts the agent must tell the customer: ticket_id, refund_amount, refusal, stage, or a key of "
        "customer.knows (docs/tasks.md says how each is checked).",
    )
    turn_limit: int = Field(
        default=DEFAULT_TURN_LIMIT, ge=1, le=50, description="Agent messages before the customer ends the chat."
    )


class Step(Strict):
    """One step of the reference solution: a call, or (`say`) what the agent tells the customer in a conversation.

    "${name.field}" in an argument, or anywhere in a say text, is a field of an earlier call's saved result.
    """

    call: str | None = Field(default=None, description="The tool to call.")
    say: str | None = Field(
        default=None,
        min_length=1,
        max_length=4000,
        description="An agent turn, posted to the customer in conversation mode and skipped in brief mode.",
    )
    arguments: dict[str, Any] = Field(default_factory=dict)
    save: str | None = Field(default=None, pattern=r"^[a-z_][a-z0-9_]*$", description="Name the result for later.")
    expect: Literal["ok", "tool_error", "protocol_error"] | None = Field(
        default=None, description="What this call should come to (checked by `aftersales tasks check`)."
    )

    @model_validator(mode="after")
    def _call_or_say(self) -> Self:
        if (self.call is None) == (self.say is None):
            raise ValueError("a reference step has exactly one of call (a tool call) and say (an agent turn)")
        given = [name for name in ("arguments", "save", "expect") if name in self.model_fields_set]
        if self.say is not None and given:
            raise ValueError(
                f"a say step takes no {', '.join(given)}: those belong to call steps (a reply is not a result)"
            )
        return self


class Task(Strict):
    """One task: a customer with a need, in a world, with a checked right outcome."""

    id: str = Field(pattern=TASK_ID)
    title: str
    story: str | None = Field(default=None, description="The seed story it builds on (seed/README.md).")
    tags: list[str] = Field(default_factory=list)
    split: Split = Field(
        default="dev",
        description="dev: a task a team may tune its prompts and tool descriptions on; held_out: one it checks them "
        "on, having never tuned on it (eval --split).",
    )
    world: WorldStart = Field(default_factory=WorldStart)
    customer: Customer
    expected: Expected
    calls: CallRules = Field(default_factory=CallRules)
    mention: list[str] = Field(
        default_factory=list, description="Facts the final answer should mention: reported, not scored by default."
    )
    conversation: ConversationRules | None = Field(
        default=None, description="Rules of a conversation trial (brief-mode trials are not judged on them)."
    )
    judgements: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=3, max_length=300)]] = Field(
        default_factory=list,
        max_length=10,
        description="Statements about the conversation a judge model decides (--judge): reported beside the "
        "verdict, scored only with --score-judgements.",
        examples=[["the agent apologised for the fault", "the agent did not promise a delivery date"]],
    )
    reference: list[Step] = Field(
        min_length=1, description="The calls a correct agent makes, and in a conversation what it says."
    )

    @property
    def needs_url_mode(self) -> bool:
        """The customer gives their account on the shop's page, which only a client with URL mode can open for them."""
        opens = self.world.client is None or self.world.client.url_mode
        given = [answer.page for answer in self.customer.forms.values() if answer.page is not None]
        return opens and any(page.waits is None for page in given)

    @property
    def turn_limit(self) -> int:
        """Agent messages a conversation trial of this task allows."""
        return self.conversation.turn_limit if self.conversation else DEFAULT_TURN_LIMIT

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        problems = _conversation_problems(self) + _reference_problems(self.reference)
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _conversation_problems(task: Task) -> list[str]:
    """Facts named by the conversation rules that this task's customer cannot give or the agent cannot tell."""
    if task.conversation is None:
        return []
    facts = task.customer.facts()
    problems = [
        f"conversation.must_ask.{index}: {fact!r} is not a fact this customer can give (facts: {', '.join(facts)})"
        for index, fact in enumerate(task.conversation.must_ask)
        if fact not in facts
    ]
    # A fact the agent tells is a figure or a text it can say; a flag or a null in knows is neither.
    sayable = [
        name
        for name, value in task.customer.knows.items()
        if isinstance(value, str | int | float) and not isinstance(value, bool)
    ]
    told = [*TOLD, *(name for name in sayable if name not in TOLD)]
    problems += [
        f"conversation.communicate.{index}: {fact!r} is nothing the agent can tell (one of: {', '.join(told)})"
        for index, fact in enumerate(task.conversation.communicate)
        if fact not in told
    ]
    return problems


def _reference_problems(steps: list[Step]) -> list[str]:
    """Each "${name.field}" must name the saved result of an earlier call step (a say step saves nothing)."""
    problems, saved = [], set()
    for index, step in enumerate(steps):
        found = SAVED.finditer(step.say) if step.say is not None else _references(step.arguments)
        for name in sorted({match.group(1) for match in found}):
            if name not in saved:
                problems.append(
                    f"reference.{index}: ${{{name}…}} names no earlier call step's saved result (save: {name} "
                    "on a call before it)"
                )
        if step.save:
            saved.add(step.save)
    return problems


def _references(value: Any) -> list[re.Match[str]]:
    """The argument values that are a whole "${name.path}" (only those are replaced; see reference.resolve)."""
    if isinstance(value, dict):
        return [match for item in value.values() for match in _references(item)]
    if isinstance(value, list):
        return [match for item in value for match in _references(item)]
    match = REFERENCE.match(value) if isinstance(value, str) else None
    return [match] if match else []
