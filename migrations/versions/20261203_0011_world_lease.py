"""world lease: the wall time a world's lease ends (it is then dropped), or NULL for none

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # Worlds made before it have no lease (NULL): they live until dropped or idle, as they did.
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_worlds_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_worlds_expires_at"))
        batch_op.drop_column("expires_at")
