"""ListingRepository over a fake unit of work's tables: the lookups' scoping and newest-first pages, in memory."""

from typing import Any

from aftersales.domain.lookups import CustomerKey, TicketScope
from aftersales.domain.paging import Position
from aftersales.services.ports.repositories import ListingRepository
from aftersales.services.ports.rows import LineName, OrderRow, TicketDetails


class FakeListings(ListingRepository):
    """ListingRepository over the tables."""

    def __init__(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        self.rows = rows

    def orders_of(self, key: CustomerKey, after: Position | None, limit: int) -> list[OrderRow]:
        column = {"email": "email", "phone": "phone", "customer_id": "id"}[key.field]
        whose = {c["id"] for c in self.rows["customers"] if c[column] == key.value}
        orders = [o for o in self.rows["orders"] if o["customer_id"] in whose]
        return [_order(o) for o in newest_first(orders, "placed_at", after, limit)]

    def order(self, order_id: str) -> OrderRow | None:
        return next((_order(o) for o in self.rows["orders"] if o["id"] == order_id), None)

    def line_names(self, order_ids: list[str]) -> list[LineName]:
        names = {p["sku"]: p["name"] for p in self.rows["products"]}
        lines = sorted((x for x in self.rows["order_lines"] if x["order_id"] in order_ids), key=_line_order)
        return [LineName(x["order_id"], x["line_no"], names[x["sku"]], x["quantity"]) for x in lines]

    def tickets_of(self, scope: TicketScope, after: Position | None, limit: int) -> list[TicketDetails]:
        tickets = [t for t in self.rows["tickets"] if t[scope.field] == scope.value]
        lines = {(x["order_id"], x["line_no"]): x["sku"] for x in self.rows["order_lines"]}
        names = {p["sku"]: p["name"] for p in self.rows["products"]}
        details = []
        for t in newest_first(tickets, "created_at", after, limit):
            sku = lines[(t["order_id"], t["line_no"])]
            fields: dict[str, Any] = {k: t.get(k) for k in TicketDetails._fields if k not in ("sku", "name")}
            details.append(TicketDetails(**fields, sku=sku, name=names[sku]))
        return details


def newest_first(rows: list[dict[str, Any]], at: str, after: Position | None, limit: int) -> list[dict[str, Any]]:
    """Rows after `after` in (time, id) descending order, one more than the page holds."""
    ordered = sorted(rows, key=lambda row: (row[at], row["id"]), reverse=True)
    if after is not None:
        ordered = [row for row in ordered if (row[at], row["id"]) < (after.at, after.id)]
    return ordered[: limit + 1]


def _order(row: dict[str, Any]) -> OrderRow:
    fields: dict[str, Any] = {name: row[name] for name in OrderRow._fields}
    return OrderRow(**fields)


def _line_order(line: dict[str, Any]) -> tuple[str, int]:
    return line["order_id"], line["line_no"]
