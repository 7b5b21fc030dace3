"""`aftersales tasks lint`: each kind of mistake a task can name is one line with its path and what to do."""

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from aftersales.settings import Settings
from aftersales.testing.lint import Catalogue, task_problems, tool_names
from aftersales.testing.loader import lint, shipped_tasks
from aftersales.testing.tasks import FormAnswer, Task

TSHIRTS = yaml.safe_load((shipped_tasks() / "refund-tshirts-store-credit.yaml").read_text(encoding="utf-8"))
ESTIMATE, CREATE = 1, 2  # the reference's estimate (saved as estimate) and its create, between two say steps


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    """What this server serves and its baseline's stories (the tools built once, without a database)."""
    return Catalogue.of(Settings())


def problems(catalogue: Catalogue, change: Any) -> list[str]:
    """The lint lines of the T-shirt task after `change` edits a copy of its document."""
    document = yaml.safe_load(yaml.safe_dump(TSHIRTS))
    change(document)
    return [f"{where}: {what}" for where, what in task_problems(Task.model_validate(document), catalogue)]


def set_path(*path: Any, value: Any) -> Any:
    """An edit putting `value` at `path` in the document."""

    def change(document: dict[str, Any]) -> None:
        for part in path[:-1]:
            document = document[part]
        document[path[-1]] = value

    return change


TOOLS = "is not a tool this server serves: did you mean"
MISTAKES = {
    "story": (
        set_path("story", value="cheap_tshirt_in_window"),
        "story: 'cheap_tshirt_in_window' is not a story the baseline has: did you mean cheap_tshirts_in_window?",
    ),
    "story nothing like one": (
        set_path("story", value="zzz"),
        "story: 'zzz' is not a story the baseline has: name a story of seed/README.md's table, or leave story out",
    ),
    "must_call name": (
        set_path("calls", "must_call", 0, value="after_sales_estimate"),
        f"calls.must_call.0: 'after_sales_estimate' {TOOLS} after_sales_estimate_refund?",
    ),
    "must_call pattern": (
        set_path("calls", "must_call", 1, value={"tool": "create_ticket"}),
        f"calls.must_call.1.tool: 'create_ticket' {TOOLS} after_sales_create_ticket?",
    ),
    "must_not_call": (
        set_path("calls", "must_not_call", value=["after_sales_cancel"]),
        f"calls.must_not_call.0: 'after_sales_cancel' {TOOLS} after_sales_cancel_ticket?",
    ),
    "max_calls_per_tool": (
        set_path("calls", "max_calls_per_tool", value={"after_sales_get_ordr": 1}),
        f"calls.max_calls_per_tool.after_sales_get_ordr: 'after_sales_get_ordr' {TOOLS} after_sales_get_order?",
    ),
    "reference call": (
        set_path("reference", ESTIMATE, "call", value="after_sales_estimate_refunds"),
        f"reference.1.call: 'after_sales_estimate_refunds' {TOOLS} after_sales_estimate_refund?",
    ),
    "event": (
        set_path("world", value={"events": [{"after": "after_sales_create", "advance": "1h"}]}),
        f"world.events.0.after: 'after_sales_create' {TOOLS} after_sales_create_ticket?",
    ),
    "form answer": (
        set_path("customer", "forms", value={"after_sales_create:confirm": {"action": "accept"}}),
        f"customer.forms.after_sales_create:confirm: 'after_sales_create' {TOOLS} after_sales_create_ticket?",
    ),
    "expected table": (
        set_path("expected", "tables", "tikets", value={}),
        "expected.tables.tikets: 'tikets' is not a table of the world: did you mean tickets?",
    ),
    "only table": (
        set_path("expected", "only", value=["tickets", "quote"]),
        "expected.only.1: 'quote' is not a table of the world: did you mean quotes?",
    ),
    "extra rows' table": (
        set_path("world", value={"rows": {"ticket": [{"id": "T-2026-9001"}]}}),
        "world.rows.ticket: 'ticket' is not a table of the world: did you mean tickets?",
    ),
    "added row column": (
        set_path("expected", "tables", "tickets", "added", 0, "row", "stauts", value="approved"),
        "expected.tables.tickets.added.0.row.stauts: 'stauts' is not a column of tickets: did you mean status?",
    ),
    "changed row key and field": (
        set_path(
            "expected", "tables", "quotes", value={"changed": [{"key": {"qid": "q"}, "fields": {"total_minor": 1}}]}
        ),
        "expected.tables.quotes.changed.0.key.qid: 'qid' is not a column of quotes: did you mean id?",
    ),
    "extra row column": (
        set_path("world", value={"rows": {"tickets": [{"id": "T-2026-9001", "kind_": "repair"}]}}),
        "world.rows.tickets.0.kind_: 'kind_' is not a column of tickets: did you mean kind?",
    ),
    "saved field": (
        set_path("reference", CREATE, "arguments", "quote_id", value="${estimate.quote}"),
        "reference.2.arguments.quote_id: ${estimate.quote}: after_sales_estimate_refund's result has no field "
        "'quote' (fields: currency, expires_at, item, item_amount, line_no, order_id, policy_notes, quantity, "
        "quote_id, reason_code, refund_methods_allowed, restocking_fee, shipping_refund, total, total_display): "
        "name one of those",
    ),
    "nested saved field in a say step": (
        set_path("reference", 3, "say", value="Your ${estimate.item.skux}."),
        "reference.3.say: ${estimate.item.skux}: after_sales_estimate_refund's result has no field 'skux' at item "
        "(fields: name, quantity, sku): name one of those",
    ),
    "a path past a value": (
        set_path("reference", CREATE, "arguments", "quote_id", value="${estimate.quote_id.value}"),
        "reference.2.arguments.quote_id: ${estimate.quote_id.value}: after_sales_estimate_refund's result has no "
        "fields at quote_id (it is a value there): end the path at quote_id",
    ),
    "a list without an index": (
        set_path("reference", CREATE, "arguments", "quote_id", value="${estimate.policy_notes.text}"),
        "reference.2.arguments.quote_id: ${estimate.policy_notes.text}: after_sales_estimate_refund's result is a "
        "list at policy_notes (not 'text'): give an index, as in policy_notes.0",
    ),
    "a saved call expected to fail": (
        set_path("reference", ESTIMATE, "expect", value="tool_error"),
        "reference.2.arguments.quote_id: ${estimate.quote_id} is the result of reference.1, which expects a "
        "tool_error: a failed call saves no result; save the call that succeeds",
    ),
}


@pytest.mark.parametrize("kind", list(MISTAKES))
def test_each_kind_of_mistake_is_one_line_naming_its_path_and_what_to_do(catalogue: Catalogue, kind: str):
    change, line = MISTAKES[kind]
    assert problems(catalogue, change) == [line]


def test_an_index_into_a_saved_list_and_a_field_of_a_nullable_object_are_fine(catalogue: Catalogue):
    def change(document: dict[str, Any]) -> None:
        document["reference"][3]["say"] = "${estimate.policy_notes.0} ${estimate.item.sku}"
        document["reference"].append({"call": "after_sales_find_orders", "arguments": {}, "save": "found"})
        document["reference"].append({"say": "${found.orders.0.order_id}, ${found.next_cursor}"})

    assert problems(catalogue, change) == []


class Before(BaseModel):
    """A rule kind the linter was not written for: "first, then" between tools or groups of them."""

    first: str
    then: list[str]
    arguments: dict[str, str] = {}


class FutureRules(BaseModel):
    order: list[Before]


def test_a_rule_kind_the_linter_does_not_know_has_every_name_spelled_like_a_tool_checked_but_not_its_values():
    rules = FutureRules(
        order=[
            Before(
                first="after_sales_find_ordrs", then=["any_write", "after_sales_x"], arguments={"a": "after_sales_v"}
            )
        ]
    )
    assert list(tool_names(rules, "calls")) == [
        ("calls.order.0.first", "after_sales_find_ordrs"),
        ("calls.order.0.then.1", "after_sales_x"),
    ]


def test_argument_values_and_say_texts_are_never_taken_for_tool_names(catalogue: Catalogue):
    def change(document: dict[str, Any]) -> None:
        document["calls"]["must_call"] = [{"tool": "after_sales_create_ticket", "arguments": {"kind": "after_sales_y"}}]
        document["reference"][ESTIMATE]["arguments"]["reason_code"] = "after_sales_not_a_tool"
        document["reference"][0]["say"] = "after_sales_hello"

    assert problems(catalogue, change) == []


def test_every_shipped_task_lints_clean(catalogue: Catalogue):
    tasks, lines = lint(None, catalogue)
    assert lines == []
    assert len(tasks) >= 40


def test_the_lint_of_files_names_each_file_and_lists_format_problems_one_per_line(catalogue: Catalogue, tmp_path: Path):
    broken = yaml.safe_load(yaml.safe_dump(TSHIRTS))
    broken["id"] = "broken"
    broken["conversation"] = {"must_ask": ["shoe_size"], "communicate": ["mood"]}
    broken["reference"][CREATE]["arguments"]["quote_id"] = "${quote.quote_id}"
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken), encoding="utf-8")
    wrong = yaml.safe_load(yaml.safe_dump(TSHIRTS)) | {"id": "wrong", "story": "zzz"}
    (tmp_path / "wrong.yaml").write_text(yaml.safe_dump(wrong), encoding="utf-8")
    tasks, lines = lint(tmp_path, catalogue)
    assert [task.id for task in tasks] == ["wrong"]
    assert [line.split(": ", 2)[:2] for line in lines] == [
        [str(tmp_path / "broken.yaml"), "conversation.must_ask.0"],
        [str(tmp_path / "broken.yaml"), "conversation.communicate.0"],
        [str(tmp_path / "broken.yaml"), "reference.2"],
        [str(tmp_path / "wrong.yaml"), "story"],
    ]


ACCOUNT = "after_sales_create_ticket:bank_account"
PAGE = {"holder": "Wei Zhang", "account": "GB82 WEST 1234 5698 7654 32", "bank": "Barclays"}


@pytest.mark.parametrize(
    ("key", "answer", "expected"),
    [
        (
            ACCOUNT,
            {"action": "accept", "content": {"iban": "GB82"}},
            f"customer.forms.{ACCOUNT}.content: {ACCOUNT} is a URL question (a page, not a form): it takes no "
            "content; say what the customer types there under page",
        ),
        (
            ACCOUNT,
            {"action": "accept"},
            f"customer.forms.{ACCOUNT}: {ACCOUNT} is answered accept with no page: give the page's holder, account "
            "and bank (and waits, to let it expire), or answer decline or cancel (the customer closes it)",
        ),
        (
            "after_sales_create_ticket:refund_method",
            {"action": "accept", "page": PAGE},
            "customer.forms.after_sales_create_ticket:refund_method.page: after_sales_create_ticket:refund_method "
            f"is a form, not a URL question: page answers only {ACCOUNT}",
        ),
    ],
)
def test_a_url_question_answered_like_a_form_or_a_form_answered_with_a_page_is_one_line(
    catalogue: Catalogue, key: str, answer: dict[str, Any], expected: str
):
    assert problems(catalogue, set_path("customer", "forms", key, value=answer)) == [expected]


def test_a_page_answer_is_refused_beside_content_or_with_an_action_other_than_accept():
    for answer in ({"action": "cancel", "page": PAGE}, {"action": "accept", "content": {"x": 1}, "page": PAGE}):
        with pytest.raises(ValueError, match="page goes with action accept and no content"):
            FormAnswer.model_validate(answer)
