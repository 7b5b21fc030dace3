"""Rules for withdrawing a ticket: which stages allow it (policy.CANCELLABLE), the refusal, the confirmation."""

from dataclasses import asdict, dataclass
from typing import Any

from aftersales.domain.enums import Channel, TicketKind, TicketStatus
from aftersales.domain.errors import RuleViolation
from aftersales.domain.policy import CANCELLABLE, NOT_CANCELLABLE
from aftersales.domain.rule_codes import RuleCode
from aftersales.domain.stages import stage_of

# What the customer gives up by cancelling, by kind: said in the question a person confirms.
_GIVES_UP = {
    TicketKind.REFUND_ONLY: "the refund of {refund} will not be paid",
    TicketKind.RETURN_AND_REFUND: "the item is not to be sent back and the refund of {refund} will not be paid",
    TicketKind.EXCHANGE: "the item is not to be sent back and no replacement will be shipped",
    TicketKind.REPAIR: "the item is not to be sent in and will not be repaired",
}


@dataclass(frozen=True)
class CancelRequest:
    """What the caller asked for; `arguments()` is what an idempotency key remembers and compares."""

    ticket_id: str
    reason: str  # the customer's own words, recorded in the timeline
    idempotency_key: str
    channel: Channel | None = None  # where the customer asked: app, web or miniprogram, when the caller knows

    def arguments(self) -> dict[str, Any]:
        """The call's arguments, minus the key itself."""
        values = asdict(self)
        values.pop("idempotency_key")
        values["channel"] = self.channel.value if self.channel else None
        return values


def cancellable_stages() -> str:
    """The stages a ticket can be cancelled in, for people: "review or awaiting_return"."""
    return " or ".join(stage.value for stage in CANCELLABLE)


def check_cancellable(ticket_id: str, kind: TicketKind, status: TicketStatus) -> None:
    """Refuse, in three parts, to cancel a ticket whose stage no longer allows it."""
    stage = stage_of(kind, status)
    if stage in CANCELLABLE:
        return
    refusal = NOT_CANCELLABLE[stage]
    raise RuleViolation(
        RuleCode.TICKET_NOT_CANCELLABLE,
        f"Ticket {ticket_id} cannot be cancelled: it is in the {stage.value} stage (status {status.value}).",
        f"A ticket can be cancelled only in the {cancellable_stages()} stage; in the {stage.value} stage "
        f"{refusal.why}.",
        f"Do not retry; {refusal.instead}.",
    )


def confirmation_message(ticket_id: str, kind: TicketKind, quantity: int, item: str, refund: str | None) -> str:
    """The question a person confirms before a ticket is cancelled: which ticket, and what the customer gives up."""
    gives_up = _GIVES_UP[kind].format(refund=refund)
    return (
        f"Cancel ticket {ticket_id} ({kind.value.replace('_', ' ')} of {quantity} x {item})? If you confirm, "
        f"{gives_up}. This cannot be undone. Please confirm with the customer."
    )
