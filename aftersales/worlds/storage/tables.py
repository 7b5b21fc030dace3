"""The tables of worlds, apart from the business tables: the registry and each world's trace.

They have their own MetaData: they are not the service's data, so `seed reset` (which clears every business
table) leaves them alone and snapshots never include them. Every database is migrated to head, so each holds both;
the control database uses its `worlds` table, each world database its `trace` table.
"""

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from aftersales.domain.calls import OUTCOMES
from aftersales.storage.base import NAMING_CONVENTION, UtcDateTime
from aftersales.worlds.model import CLOCK_MODES, SOURCE_KINDS, STATES


def _one_of(column: str, values: tuple[str, ...]) -> CheckConstraint:
    return CheckConstraint(f"{column} IN ({', '.join(repr(v) for v in values)})", name=column)


METADATA = MetaData(naming_convention=NAMING_CONVENTION)
WORLDS = Table(
    "worlds",
    METADATA,
    Column("id", String(32), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("last_used_at", UtcDateTime, nullable=False, index=True),
    Column("source_kind", String(16), nullable=False),
    Column("source", Text, nullable=False),
    Column("location", String(80), nullable=False),
    Column("origin", String(80), nullable=False),
    Column("origin_owned", Boolean, nullable=False),
    Column("anchor_day", UtcDateTime, nullable=False),
    Column("clock_mode", String(8), nullable=False),
    Column("clock_at", UtcDateTime, nullable=True),
    Column("clock_offset_us", BigInteger, nullable=False),
    Column("start_mode", String(8), nullable=False),
    Column("start_at", UtcDateTime, nullable=False),
    Column("deterministic", Boolean, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("id_counter", BigInteger, nullable=False),
    Column("id_counter_start", BigInteger, nullable=False),
    # A nonce per creation, signed into the world's tokens: a world dropped and made again under its id is another.
    Column("incarnation", String(32), nullable=False, server_default=""),
    # The tool texts the world serves (an aftersales-tool-descriptions/1 set, every text filled in), or NULL.
    Column("tool_descriptions", Text, nullable=True),
    # The end of the world's lease (wall time), or NULL for none; housekeeping drops a world past it.
    Column("expires_at", UtcDateTime, nullable=True, index=True),
    _one_of("state", STATES),
    _one_of("source_kind", SOURCE_KINDS),
    _one_of("clock_mode", CLOCK_MODES),
    _one_of("start_mode", CLOCK_MODES),
    CheckConstraint("clock_mode <> 'frozen' OR clock_at IS NOT NULL", name="frozen_clock_has_time"),
    CheckConstraint("id_counter >= id_counter_start", name="id_counter_moves_forward"),
)
# One row per tools/call made in the world, numbered in the order the calls finished (worlds/trace.py).
TRACE = Table(
    "trace",
    METADATA,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("recorded_at", UtcDateTime, nullable=False),
    Column("caller", String(64), nullable=False),
    Column("tool", String(64), nullable=False),
    Column("outcome", String(16), nullable=False),
    # A digest of the requestState an input_required answer carried, so the call that answers it finds its questions.
    Column("state_digest", String(64), nullable=True, index=True),
    Column("latency_ms", Float, nullable=False),
    Column("entry", Text, nullable=False),  # the whole entry as JSON (format aftersales-trace/1)
    _one_of("outcome", OUTCOMES),
)
