"""Tool description sets: exported, read back, checked with every problem named, applied to texts only."""

from pathlib import Path

import pytest
import yaml

from aftersales.cli.main import main
from aftersales.mcp.described import definitions, world_texts
from aftersales.mcp.descriptions import (
    FORMAT,
    LIMITS,
    DescriptionSetError,
    defaults,
    export,
    load,
    parse,
    parse_text,
    replace_name,
    served,
)
from aftersales.mcp.server import build_server
from aftersales.settings import Settings
from aftersales.worlds.model import described_as
from aftersales.worlds.world_errors import WorldRequestError
from tests.support.apps import app_without_database
from tests.support.descriptions import ALTERNATIVE, CREATE, QUERY, texts_removed, write_set


@pytest.fixture(scope="module")
def today() -> list[dict]:
    """The tools/list entries of today's texts."""
    return definitions(Settings())


def test_an_exported_set_read_back_serves_exactly_todays_texts(today, tmp_path: Path):
    path = tmp_path / "descriptions-v2.yaml"
    path.write_text(export(today), encoding="utf-8")
    chosen = load(path, today)
    assert chosen.name == "descriptions-v2"  # a set without a name is named after its file
    assert served(today, chosen) == today
    assert chosen.completed(today).sha256 == defaults(today).sha256


def test_the_export_writes_paragraphs_as_literal_blocks_with_the_format_first(today):
    text = export(today)
    assert text.startswith("# A tool description set") and f"\nformat: {FORMAT}\n" in text
    assert "    description: |-\n      Look up one after-sales ticket" in text


def test_a_set_changes_only_the_texts_it_names_and_never_names_schemas_or_hints(today):
    chosen = parse(ALTERNATIVE, "terse-v2.yaml", today)
    changed = served(today, chosen)
    assert texts_removed(changed) == texts_removed(today)
    by_name = {tool["name"]: tool for tool in changed}
    assert by_name[QUERY]["title"] == by_name[QUERY]["annotations"]["title"] == "Ticket status"
    assert by_name[QUERY]["description"] == "Where a ticket stands, by its number. Read-only."
    key = by_name[CREATE]["inputSchema"]["properties"]["idempotency_key"]
    assert key["description"] == "One key per intended ticket; the same on every retry."
    untouched = [tool for tool in changed if tool["name"] not in (QUERY, CREATE)]
    assert untouched == [tool for tool in today if tool["name"] not in (QUERY, CREATE)]
    assert by_name[CREATE]["description"] == next(t for t in today if t["name"] == CREATE)["description"]


def test_every_problem_of_a_set_is_named_with_the_file_the_place_the_rule_and_what_to_do(today):
    bad = {
        "format": "aftersales-tool-descriptions/0",
        "colour": "red",
        "tools": {
            "after_sales_refund_everything": {"title": "Refund"},
            QUERY: {"title": " ", "description": "x" * (LIMITS["description"] + 1), "inputSchema": {}},
            CREATE: {"fields": {"bank_account": "Ask for it.", "quantity": 3}},
        },
    }
    with pytest.raises(DescriptionSetError) as refused:
        parse(bad, "weak.yaml", today)
    text = str(refused.value)
    assert text.startswith("weak.yaml is not a tool description set this server can serve (8 problems):")
    expected = [
        "colour: unknown key; a set has only format, name, tools.",
        "format: 'aftersales-tool-descriptions/0' is not 'aftersales-tool-descriptions/1'",
        "tools.after_sales_refund_everything: there is no tool 'after_sales_refund_everything'",
        f"tools.{QUERY}.inputSchema: unknown key; a tool's entry has only title, description, fields",
        f"tools.{QUERY}.title: is empty; a model needs words here.",
        f"tools.{QUERY}.description: is 8001 characters; a description text is at most 8000. Shorten it",
        f"tools.{CREATE}.fields.bank_account: {CREATE} has no input field 'bank_account'",
        f"tools.{CREATE}.fields.quantity: is a number, not text.",
    ]
    for sentence in expected:
        assert sentence in text, sentence


def test_a_file_that_is_not_yaml_is_refused_with_the_line_to_fix(today):
    with pytest.raises(DescriptionSetError, match=r"not valid YAML at line 4"):
        parse_text(f"format: {FORMAT}\ntools:\n  x: [unclosed\n", "broken.yaml", today)


def test_a_renamed_set_with_the_same_texts_has_the_same_hash_and_other_texts_another(today):
    chosen = parse(ALTERNATIVE, "terse-v2.yaml", today).completed(today)
    assert replace_name(chosen, "copy").sha256 == chosen.sha256 != defaults(today).sha256
    assert described_as(chosen.canonical()) == {"name": "terse-v2", "sha256": chosen.sha256}


def test_over_the_admin_api_a_set_file_is_read_only_inside_the_datasets_folder(today, tmp_path: Path):
    folder, elsewhere = tmp_path / "datasets", tmp_path / "elsewhere"
    folder.mkdir(), elsewhere.mkdir()
    write_set(folder)
    outside = write_set(elsewhere)
    stored = world_texts("terse-v2.yaml", today, folder)
    assert described_as(stored)["name"] == "terse-v2"
    for name in (str(outside), "../elsewhere/terse-v2.yaml"):
        with pytest.raises(
            WorldRequestError, match='"tool_descriptions" .* is not in .*the server reads no other file'
        ):
            world_texts(name, today, folder)


def test_a_set_sent_to_the_admin_api_with_a_problem_is_a_request_error_naming_it(today, tmp_path: Path):
    with pytest.raises(WorldRequestError, match=r"tools\.after_sales_nothing: there is no tool"):
        world_texts({"format": FORMAT, "tools": {"after_sales_nothing": {}}}, today, tmp_path)
    assert yaml.safe_load(export(today))["format"] == FORMAT


def test_a_server_told_to_serve_a_set_that_cannot_be_served_is_not_built_and_the_error_names_the_setting(
    tmp_path: Path,
):
    weak = write_set(tmp_path, {"format": FORMAT, "tools": {"after_sales_refund_all": {}}}, "weak.yaml")
    app = app_without_database(tmp_path, tool_descriptions=weak)
    with pytest.raises(DescriptionSetError, match=rf"^AFTERSALES_TOOL_DESCRIPTIONS={weak} is not a tool description"):
        build_server(app)


def test_the_export_command_writes_to_stdout_or_a_file_and_check_reads_the_file_back(tmp_path: Path, capsys):
    assert main(["tools", "descriptions", "--export"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# A tool description set")
    path = tmp_path / "review.yaml"
    assert main(["tools", "descriptions", "--export", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == printed
    assert main(["tools", "descriptions", "--check", str(path)]) == 0
    assert f"{path}: set review can be served" in capsys.readouterr().out
