"""Large generated worlds: exact sizes, the same rows for the same seed, and data the schema accepts."""

from sqlalchemy import func, select, text

from aftersales.seeding import bulk
from aftersales.storage import migrate
from aftersales.storage.database import make_engine
from aftersales.storage.models import Order, OrderLine, Ticket, TicketEvent


def generate(url: str) -> dict[str, int]:
    engine = make_engine(url)
    migrate.upgrade(engine)
    written = bulk.generate_into(engine, 500, 3000, 2500, seed=11, progress=False)
    engine.dispose()
    return written


def test_a_generated_world_has_exactly_the_requested_size_and_sound_references(empty_url):
    written = generate(empty_url)
    assert (written["customers"], written["orders"], written["tickets"]) == (500, 3000, 2500)
    engine = make_engine(empty_url)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Ticket)) == 2500
        orphans = connection.scalar(
            text(
                "SELECT count(*) FROM tickets t LEFT JOIN order_lines l ON l.order_id = t.order_id "
                "AND l.line_no = t.line_no WHERE l.order_id IS NULL"
            )
        )
        assert orphans == 0
        assert (
            connection.scalar(
                text(
                    "SELECT count(*) FROM ticket_events e LEFT JOIN tickets t ON t.id = e.ticket_id WHERE t.id IS NULL"
                )
            )
            == 0
        )
        late = connection.scalar(
            text(
                "SELECT count(*) FROM tickets t JOIN orders o ON o.id = t.order_id WHERE t.created_at <= o.delivered_at"
            )
        )
        assert late == 0
        assert connection.scalar(select(func.count(func.distinct(Order.id)))) == 3000
        assert connection.scalar(select(func.count()).select_from(OrderLine)) == written["order_lines"]
        assert connection.scalar(select(func.count()).select_from(TicketEvent)) == written["ticket_events"]
        indexes = {
            row[0]
            for row in connection.execute(
                text(
                    "SELECT indexname FROM pg_indexes WHERE tablename = 'tickets'"
                    if engine.dialect.name == "postgresql"
                    else "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tickets'"
                )
            )
        }
        assert {"uq_tickets_open_order_line", "ix_tickets_order_id_line_no", "ix_tickets_status"} <= indexes
    engine.dispose()


def test_the_same_seed_gives_the_same_rows(tmp_path):
    urls = [f"sqlite:///{tmp_path / name}" for name in ("a.db", "b.db")]
    for url in urls:
        generate(url)
    dumps = []
    for url in urls:
        engine = make_engine(url)
        with engine.connect() as connection:
            dumps.append(
                [
                    connection.execute(text(f"SELECT * FROM {table} ORDER BY 1, 2")).all()
                    for table in ("orders", "order_lines", "tickets", "ticket_events")
                ]
            )
        engine.dispose()
    assert dumps[0] == dumps[1]
