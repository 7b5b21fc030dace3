"""baseline schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 01:54:10.688751
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "categories",
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("return_window_days", sa.Integer(), nullable=False),
        sa.Column("restocking_fee_bps", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "restocking_fee_bps BETWEEN 0 AND 10000", name=op.f("ck_categories_restocking_fee_bps_range")
        ),
        sa.CheckConstraint("return_window_days >= 0", name=op.f("ck_categories_return_window_non_negative")),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_categories")),
    )
    op.create_table(
        "customers",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        sa.Column("phone", sa.String(length=32), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("tier IN ('standard', 'plus', 'vip')", name=op.f("ck_customers_tier")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_customers")),
        sa.UniqueConstraint("email", name=op.f("uq_customers_email")),
    )
    op.create_table(
        "ticket_sequences",
        sa.Column("year", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("last_value", sa.Integer(), nullable=False),
        sa.CheckConstraint("last_value >= 0", name=op.f("ck_ticket_sequences_last_value_non_negative")),
        sa.PrimaryKeyConstraint("year", name=op.f("pk_ticket_sequences")),
    )
    op.create_table(
        "orders",
        sa.Column("id", sa.String(length=20), nullable=False),
        sa.Column("customer_id", sa.String(length=16), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("payment_method", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("placed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("shipped_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("shipping_fee_minor", sa.Integer(), nullable=False),
        sa.Column("discount_minor", sa.Integer(), nullable=False),
        sa.CheckConstraint("channel IN ('app', 'web', 'miniprogram')", name=op.f("ck_orders_channel")),
        sa.CheckConstraint("payment_method IN ('card', 'wallet', 'gift_card')", name=op.f("ck_orders_payment_method")),
        sa.CheckConstraint("status IN ('pending', 'shipped', 'delivered', 'cancelled')", name=op.f("ck_orders_status")),
        sa.CheckConstraint("discount_minor >= 0", name=op.f("ck_orders_discount_non_negative")),
        sa.CheckConstraint("shipping_fee_minor >= 0", name=op.f("ck_orders_shipping_fee_non_negative")),
        sa.ForeignKeyConstraint(["customer_id"], ["customers.id"], name=op.f("fk_orders_customer_id_customers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orders")),
    )
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.create_index("ix_orders_customer_id_placed_at", ["customer_id", "placed_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_orders_status"), ["status"], unique=False)

    op.create_table(
        "products",
        sa.Column("sku", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=160), nullable=False),
        sa.Column("category_code", sa.String(length=32), nullable=False),
        sa.Column("price_minor", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("warranty_months", sa.Integer(), nullable=False),
        sa.Column("returnable", sa.Boolean(), nullable=False),
        sa.Column("repairable", sa.Boolean(), nullable=False),
        sa.CheckConstraint("price_minor >= 0", name=op.f("ck_products_price_non_negative")),
        sa.CheckConstraint("warranty_months >= 0", name=op.f("ck_products_warranty_non_negative")),
        sa.ForeignKeyConstraint(
            ["category_code"], ["categories.code"], name=op.f("fk_products_category_code_categories")
        ),
        sa.PrimaryKeyConstraint("sku", name=op.f("pk_products")),
    )
    with op.batch_alter_table("products", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_products_category_code"), ["category_code"], unique=False)

    op.create_table(
        "order_lines",
        sa.Column("order_id", sa.String(length=20), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("sku", sa.String(length=32), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("unit_price_minor", sa.Integer(), nullable=False),
        sa.Column("discount_minor", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "discount_minor >= 0 AND discount_minor <= unit_price_minor * quantity",
            name=op.f("ck_order_lines_discount_range"),
        ),
        sa.CheckConstraint("line_no >= 1", name=op.f("ck_order_lines_line_no_positive")),
        sa.CheckConstraint("quantity >= 1", name=op.f("ck_order_lines_quantity_positive")),
        sa.CheckConstraint("unit_price_minor >= 0", name=op.f("ck_order_lines_unit_price_non_negative")),
        sa.ForeignKeyConstraint(["order_id"], ["orders.id"], name=op.f("fk_order_lines_order_id_orders")),
        sa.ForeignKeyConstraint(["sku"], ["products.sku"], name=op.f("fk_order_lines_sku_products")),
        sa.PrimaryKeyConstraint("order_id", "line_no", name=op.f("pk_order_lines")),
    )
    with op.batch_alter_table("order_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_order_lines_sku"), ["sku"], unique=False)

    op.create_table(
        "tickets",
        sa.Column("id", sa.String(length=20), nullable=False),
        sa.Column("order_id", sa.String(length=20), nullable=False),
        sa.Column("line_no", sa.Integer(), nullable=False),
        sa.Column("customer_id", sa.String(length=16), nullable=False),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("reason_code", sa.String(length=24), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("refund_method", sa.String(length=24), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("item_amount_minor", sa.Integer(), nullable=False),
        sa.Column("restocking_fee_minor", sa.Integer(), nullable=False),
        sa.Column("shipping_refund_minor", sa.Integer(), nullable=False),
        sa.Column("refund_total_minor", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=24), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('refund_only', 'return_and_refund', 'exchange', 'repair')", name=op.f("ck_tickets_kind")
        ),
        sa.CheckConstraint(
            "reason_code IN ('damaged', 'defective', 'wrong_item', 'not_as_described', 'missing_parts', 'no_longer_needed', 'late_delivery', 'other')",
            name=op.f("ck_tickets_reason_code"),
        ),
        sa.CheckConstraint(
            "refund_method IS NULL OR refund_method IN ('original_payment', 'store_credit')",
            name=op.f("ck_tickets_refund_method"),
        ),
        sa.CheckConstraint(
            "status IN ('under_review', 'approved', 'awaiting_return', 'in_repair', 'refunding', 'completed', 'rejected', 'cancelled')",
            name=op.f("ck_tickets_status"),
        ),
        sa.CheckConstraint("item_amount_minor >= 0", name=op.f("ck_tickets_item_amount_non_negative")),
        sa.CheckConstraint("quantity >= 1", name=op.f("ck_tickets_quantity_positive")),
        sa.CheckConstraint(
            "refund_total_minor = item_amount_minor - restocking_fee_minor + shipping_refund_minor",
            name=op.f("ck_tickets_refund_total_adds_up"),
        ),
        sa.CheckConstraint("refund_total_minor >= 0", name=op.f("ck_tickets_refund_total_non_negative")),
        sa.CheckConstraint("restocking_fee_minor >= 0", name=op.f("ck_tickets_restocking_fee_non_negative")),
        sa.CheckConstraint("shipping_refund_minor >= 0", name=op.f("ck_tickets_shipping_refund_non_negative")),
        sa.ForeignKeyConstraint(["customer_id"], ["customers.id"], name=op.f("fk_tickets_customer_id_customers")),
        sa.ForeignKeyConstraint(
            ["order_id", "line_no"],
            ["order_lines.order_id", "order_lines.line_no"],
            name=op.f("fk_tickets_order_id_line_no_order_lines"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tickets")),
    )
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.create_index("ix_tickets_customer_id_created_at", ["customer_id", "created_at"], unique=False)
        batch_op.create_index("ix_tickets_order_id_line_no", ["order_id", "line_no"], unique=False)
        batch_op.create_index(batch_op.f("ix_tickets_status"), ["status"], unique=False)

    op.create_table(
        "ticket_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ticket_id", sa.String(length=20), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "type IN ('created', 'review_started', 'approved', 'return_label_sent', 'parcel_received', 'repair_started', 'repair_finished', 'replacement_shipped', 'refund_issued', 'refund_completed', 'completed', 'rejected', 'cancelled', 'note')",
            name=op.f("ck_ticket_events_type"),
        ),
        sa.ForeignKeyConstraint(["ticket_id"], ["tickets.id"], name=op.f("fk_ticket_events_ticket_id_tickets")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ticket_events")),
    )
    with op.batch_alter_table("ticket_events", schema=None) as batch_op:
        batch_op.create_index("ix_ticket_events_ticket_id_occurred_at", ["ticket_id", "occurred_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("ticket_events", schema=None) as batch_op:
        batch_op.drop_index("ix_ticket_events_ticket_id_occurred_at")

    op.drop_table("ticket_events")
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tickets_status"))
        batch_op.drop_index("ix_tickets_order_id_line_no")
        batch_op.drop_index("ix_tickets_customer_id_created_at")

    op.drop_table("tickets")
    with op.batch_alter_table("order_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_order_lines_sku"))

    op.drop_table("order_lines")
    with op.batch_alter_table("products", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_products_category_code"))

    op.drop_table("products")
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_orders_status"))
        batch_op.drop_index("ix_orders_customer_id_placed_at")

    op.drop_table("orders")
    op.drop_table("ticket_sequences")
    op.drop_table("customers")
    op.drop_table("categories")
