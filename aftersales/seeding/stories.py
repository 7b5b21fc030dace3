"""Story records: hand-built cases that tests and demos refer to by key."""

from dataclasses import dataclass
from datetime import timedelta

from aftersales.domain.enums import OrderStatus, PaymentMethod, ReasonCode, RefundMethod, TicketKind, TicketStatus, Tier

TicketSpec = tuple[TicketKind, TicketStatus, ReasonCode, RefundMethod | None]


@dataclass(frozen=True)
class Story:
    """One order (and maybe a ticket) built to show a situation."""

    key: str
    summary: str
    customer_index: int  # into the world's customers; for APPENDED_STORIES, into the customers appended for them
    tier: Tier
    product_index: int  # index into catalog.PRODUCTS
    order_status: OrderStatus
    delivered_ago: timedelta | None
    quantity: int = 1
    ticket: TicketSpec | None = None
    payment: PaymentMethod | None = None  # how the order was paid, when the story needs one (else drawn)


D = timedelta
# Product indexes: 0 ThinkPad X1, 14 Sony WH-1000XM5, 16 FreeBuds, 18 JBL speaker, 21 Dyson vacuum,
# 24 robot vacuum, 29 running shoes, 33 T-shirt pack, 36 book, 41 SK-II essence, 48 DJI drone, 50 RC car.
STORIES: tuple[Story, ...] = (
    Story(
        "vip_laptop_recent",
        "A VIP customer's ThinkPad X1 (¥12,999.00) delivered 3 days ago; no ticket yet: estimate and create here",
        0,
        Tier.VIP,
        0,
        OrderStatus.DELIVERED,
        D(days=3),
    ),
    Story(
        "headphones_in_window_qty3",
        "Three FreeBuds (¥1,199.00 each, line discount ¥179.85) delivered 5 days ago: partial returns",
        1,
        Tier.PLUS,
        16,
        OrderStatus.DELIVERED,
        D(days=5),
        quantity=3,
    ),
    Story(
        "cheap_tshirts_in_window",
        "A ¥99.00 T-shirt pack with ¥10.00 shipping, delivered 4 days ago: a refund under the confirmation threshold",
        2,
        Tier.STANDARD,
        33,
        OrderStatus.DELIVERED,
        D(days=4),
    ),
    Story(
        "laptop_past_window_in_warranty",
        "A laptop delivered 60 days ago: 15-day return window closed, 24-month warranty repair still open",
        3,
        Tier.STANDARD,
        0,
        OrderStatus.DELIVERED,
        D(days=60),
    ),
    Story(
        "rc_car_out_of_warranty",
        "A toy car delivered 300 days ago: past its window and its 6-month warranty",
        4,
        Tier.STANDARD,
        50,
        OrderStatus.DELIVERED,
        D(days=300),
    ),
    Story(
        "order_in_transit",
        "An order shipped two days ago and still in transit",
        5,
        Tier.PLUS,
        14,
        OrderStatus.SHIPPED,
        None,
    ),
    Story("order_not_shipped", "An order paid but not yet shipped", 6, Tier.STANDARD, 21, OrderStatus.PENDING, None),
    Story("order_cancelled", "A cancelled order", 7, Tier.STANDARD, 29, OrderStatus.CANCELLED, None),
    Story(
        "non_returnable_cosmetics",
        "Skincare delivered 2 days ago: not returnable once delivered",
        8,
        Tier.STANDARD,
        41,
        OrderStatus.DELIVERED,
        D(days=2),
    ),
    Story(
        "ticket_awaiting_return",
        "A return waiting for the customer's parcel",
        9,
        Tier.PLUS,
        15,
        OrderStatus.DELIVERED,
        D(days=6),
        ticket=(
            TicketKind.RETURN_AND_REFUND,
            TicketStatus.AWAITING_RETURN,
            ReasonCode.NOT_AS_DESCRIBED,
            RefundMethod.ORIGINAL_PAYMENT,
        ),
    ),
    Story(
        "ticket_rejected",
        "A refund request that was rejected",
        10,
        Tier.STANDARD,
        35,
        OrderStatus.DELIVERED,
        D(days=20),
        ticket=(TicketKind.REFUND_ONLY, TicketStatus.REJECTED, ReasonCode.OTHER, RefundMethod.ORIGINAL_PAYMENT),
    ),
    Story(
        "ticket_refund_store_credit_done",
        "A completed refund paid to store credit",
        11,
        Tier.VIP,
        30,
        OrderStatus.DELIVERED,
        D(days=25),
        ticket=(TicketKind.RETURN_AND_REFUND, TicketStatus.COMPLETED, ReasonCode.DEFECTIVE, RefundMethod.STORE_CREDIT),
    ),
    Story(
        "ticket_under_review",
        "A high-value refund held for manual review",
        12,
        Tier.STANDARD,
        48,
        OrderStatus.DELIVERED,
        D(days=4),
        ticket=(
            TicketKind.RETURN_AND_REFUND,
            TicketStatus.UNDER_REVIEW,
            ReasonCode.DEFECTIVE,
            RefundMethod.ORIGINAL_PAYMENT,
        ),
    ),
    Story(
        "ticket_in_repair",
        "A drone in repair under warranty",
        13,
        Tier.PLUS,
        48,
        OrderStatus.DELIVERED,
        D(days=90),
        ticket=(TicketKind.REPAIR, TicketStatus.IN_REPAIR, ReasonCode.DEFECTIVE, None),
    ),
    Story(
        "ticket_exchange_completed",
        "An exchange of running shoes, completed",
        14,
        Tier.STANDARD,
        29,
        OrderStatus.DELIVERED,
        D(days=28),
        ticket=(TicketKind.EXCHANGE, TicketStatus.COMPLETED, ReasonCode.NOT_AS_DESCRIBED, None),
    ),
    Story(
        "ticket_refunding",
        "A refund-only ticket whose money is on its way",
        15,
        Tier.STANDARD,
        36,
        OrderStatus.DELIVERED,
        D(days=5),
        ticket=(TicketKind.REFUND_ONLY, TicketStatus.REFUNDING, ReasonCode.DAMAGED, RefundMethod.ORIGINAL_PAYMENT),
    ),
)

# Stories the lookup tools need (find orders by email or phone, a line's options, tickets to list and cancel).
# They are built after the random world, for customers of their own appended after the others, with orders and
# tickets numbered after the rest: so every id the stories above and the random rows had stays the same.
APPENDED_STORIES: tuple[Story, ...] = (
    Story(
        "email_only_headphones",
        "Knows only their email: Sony WH-1000XM5 headphones delivered 3 days ago, no ticket; find the order by email, "
        "then see its options, estimate and create",
        0,
        Tier.STANDARD,
        14,
        OrderStatus.DELIVERED,
        D(days=3),
    ),
    Story(
        "email_only_return_under_review",
        "The same customer's robot vacuum return, under review: a ticket that can still be cancelled",
        0,
        Tier.STANDARD,
        24,
        OrderStatus.DELIVERED,
        D(days=9),
        ticket=(
            TicketKind.RETURN_AND_REFUND,
            TicketStatus.UNDER_REVIEW,
            ReasonCode.NOT_AS_DESCRIBED,
            RefundMethod.ORIGINAL_PAYMENT,
        ),
    ),
    Story(
        "email_only_drone_in_repair",
        "The same customer's drone, in repair under warranty: a ticket that can no longer be cancelled",
        0,
        Tier.STANDARD,
        48,
        OrderStatus.DELIVERED,
        D(days=100),
        ticket=(TicketKind.REPAIR, TicketStatus.IN_REPAIR, ReasonCode.DEFECTIVE, None),
    ),
    Story(
        "same_product_recent",
        "FreeBuds bought twice by one customer; this order, delivered 6 days ago, can still be returned",
        1,
        Tier.PLUS,
        16,
        OrderStatus.DELIVERED,
        D(days=6),
    ),
    Story(
        "same_product_older",
        "The same customer's earlier FreeBuds, delivered 45 days ago: past the 30-day window, a repair is possible",
        1,
        Tier.PLUS,
        16,
        OrderStatus.DELIVERED,
        D(days=45),
    ),
    Story(
        "all_units_refunded",
        "A JBL speaker returned and refunded in full: its window is open but no unit is left for any ticket",
        2,
        Tier.STANDARD,
        18,
        OrderStatus.DELIVERED,
        D(days=20),
        ticket=(TicketKind.RETURN_AND_REFUND, TicketStatus.COMPLETED, ReasonCode.DEFECTIVE, RefundMethod.STORE_CREDIT),
    ),
)

# Orders paid in cash on delivery, whose refunds go by bank transfer (the account given on the server's own page,
# URL-mode elicitation) or to store credit. A third batch with a generator of its own, after the others, so no
# earlier id or draw moved.
COD_STORIES: tuple[Story, ...] = (
    Story(
        "cod_speaker_in_window",
        "A JBL speaker paid in cash on delivery, delivered 4 days ago: a refund goes by bank transfer (the account "
        "on the shop's page) or to store credit",
        0,
        Tier.STANDARD,
        18,
        OrderStatus.DELIVERED,
        D(days=4),
        payment=PaymentMethod.CASH_ON_DELIVERY,
    ),
    Story(
        "cod_tshirts_in_window",
        "A ¥99.00 T-shirt pack paid in cash on delivery, delivered 3 days ago: a bank-transfer refund under the "
        "confirmation threshold, so the only question is the account",
        1,
        Tier.PLUS,
        33,
        OrderStatus.DELIVERED,
        D(days=3),
        payment=PaymentMethod.CASH_ON_DELIVERY,
    ),
)
