"""The `trace` table of a world's database: entries appended one transaction each, read back whole, in order.

Tool calls and conversation turns share the table and its sequence, so the order of the rows is the timeline.
"""

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from aftersales.storage.database import WRITE
from aftersales.worlds.storage.tables import TRACE
from aftersales.worlds.trace import Draft, complete

TEXT_WIDTH = 64  # caller and tool columns; the entry keeps the whole value


def append(engine: Engine, draft: Draft, recorded_at: datetime) -> dict[str, Any]:
    """Store one call's entry, linked to the entry whose questions it answers; return the entry as stored."""
    with engine.connect() as connection:
        connection.execution_options(**{WRITE: True})  # SQLite: take the write lock first, so the lookup agrees
        with connection.begin():
            resumed = None
            if draft.state_in is not None:
                row = connection.execute(
                    select(TRACE.c.seq, TRACE.c.entry)
                    .where(TRACE.c.state_digest == draft.state_in)
                    .order_by(TRACE.c.seq.desc())
                    .limit(1)
                ).first()
                resumed = (int(row.seq), json.loads(row.entry)) if row is not None else None
            entry = complete(draft, 0, resumed)
            values = {
                "recorded_at": recorded_at,
                "caller": draft.caller[:TEXT_WIDTH],
                "tool": draft.tool[:TEXT_WIDTH],
                "outcome": draft.outcome,
                "state_digest": draft.state_out,
                "latency_ms": draft.latency_ms,
                # ASCII JSON: a lone surrogate or any other text a caller sent stays an escape both databases accept.
                "entry": json.dumps(entry, sort_keys=True, default=str),
            }
            seq = int(connection.execute(insert(TRACE).values(values).returning(TRACE.c.seq)).scalar_one())
    return entry | {"seq": seq}


def append_turn(engine: Engine, turn: dict[str, Any], recorded_at: datetime) -> dict[str, Any]:
    """Store one conversation turn (worlds.trace.turn) in the world's sequence; return it numbered."""
    values = {
        "recorded_at": recorded_at,
        "caller": str(turn["speaker"])[:TEXT_WIDTH],
        "tool": "",  # a turn calls no tool; the entry's type says what it is
        "outcome": "ok",
        "state_digest": None,
        "latency_ms": 0.0,
        "entry": json.dumps(turn, sort_keys=True, default=str),
    }
    with engine.begin() as connection:
        seq = int(connection.execute(insert(TRACE).values(values).returning(TRACE.c.seq)).scalar_one())
    return turn | {"seq": seq}


def entries(engine: Engine) -> list[dict[str, Any]]:
    """Every entry of the world's trace, in order."""
    with engine.connect() as connection:
        rows = connection.execute(select(TRACE.c.seq, TRACE.c.entry).order_by(TRACE.c.seq)).all()
    return [json.loads(row.entry) | {"seq": int(row.seq)} for row in rows]


def clear(engine: Engine) -> None:
    """Empty the trace (a fork starts with none of its source's calls); an empty one is only read, not written."""
    with engine.begin() as connection:
        if connection.execute(select(TRACE.c.seq).limit(1)).first() is not None:
            connection.execute(delete(TRACE))
