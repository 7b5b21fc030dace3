"""The rule codes: one list in the domain, each code raised by a rule, and the README's table generated from it."""

import re

from aftersales.domain.rule_codes import RuleCode, code_table
from tests.support import ROOT


def test_every_code_is_snake_case_with_a_one_line_meaning():
    for code in RuleCode:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)+", code.value), code
        assert code.meaning.endswith(".") and "\n" not in code.meaning and len(code.meaning) <= 100, code


def test_every_code_is_raised_by_a_rule_of_the_domain():
    domain = "".join(path.read_text() for path in (ROOT / "aftersales" / "domain").glob("*.py"))
    assert [code for code in RuleCode if f"RuleCode.{code.name}," not in domain] == []


def test_the_documentation_lists_the_codes_as_the_domain_does():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts = [page.read_text(encoding="utf-8") for page in pages]
    # A "Rule codes" heading at any level; the README's only links to the page whose section holds the table.
    sections = [
        text.split(heading, 1)[1].split("\n#", 1)[0]
        for text in texts
        for heading in re.findall(r"^#+ Rule codes\n", text, re.M)
    ]
    tables = ["\n".join(line for line in section.splitlines() if line.startswith("|")) for section in sections]
    tables = [table for table in tables if table]
    assert len(tables) == 1, "exactly one page lists the rule codes"
    assert tables[0] == code_table()
