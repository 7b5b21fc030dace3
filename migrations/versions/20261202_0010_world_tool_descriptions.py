"""world tool descriptions: the set of tool texts a world serves instead of the server's own, or NULL

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # Worlds made before it serve the server's own texts (NULL), as they did.
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tool_descriptions", sa.Text(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("worlds", schema=None) as batch_op:
        batch_op.drop_column("tool_descriptions")
