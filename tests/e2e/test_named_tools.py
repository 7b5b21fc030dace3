"""The tools the server's texts name, through the real client on both revisions: every name is a tool it lists, and
every tool it lists is named where an agent learns the desk (the instructions, the prompt, the other tools' usual
sequences)."""

import re

import pytest

from aftersales.mcp.server import build_server
from tests.support.clients import connect

pytestmark = pytest.mark.anyio
NAMED = re.compile(r"\bafter_sales_[a-z_]+\b")
PROMPT = "after_sales_agent"


def named(text: str) -> set[str]:
    """The after_sales_... names a text mentions."""
    return set(NAMED.findall(text))


def usual_sequence(description: str) -> str:
    """The paragraph of a tool's description that starts "Usual sequence:"."""
    [paragraph] = [p for p in description.split("\n\n") if p.startswith("Usual sequence:")]
    return paragraph


async def test_every_tool_the_prompt_policy_instructions_and_descriptions_name_is_listed(bare_app, mode):
    async with connect(build_server(bare_app), mode) as client:
        tools = (await client.list_tools()).tools
        texts = {"the server instructions": client.instructions or ""}
        [policy] = (await client.read_resource("aftersales://policy")).contents
        texts["the policy"] = policy.text
        for arguments in ({}, {"customer_id": "C-00042", "language": "English"}):
            messages = (await client.get_prompt(PROMPT, arguments)).messages
            texts[f"the prompt with {arguments}"] = messages[0].content.text
        for resource in [
            *(await client.list_resources()).resources,
            *(await client.list_resource_templates()).resource_templates,
        ]:
            texts[f"the resource {resource.name}"] = resource.description or ""
    texts |= {f"the description of {tool.name}": tool.description or "" for tool in tools}
    listed = {tool.name for tool in tools}
    unknown = {where: sorted(named(text) - listed - {PROMPT}) for where, text in texts.items()}
    assert {where: names for where, names in unknown.items() if names} == {}
    assert named(texts["the policy"]) >= {"after_sales_get_order", "after_sales_cancel_ticket"}


async def test_the_instructions_and_the_prompt_name_every_listed_tool(bare_app, mode):
    async with connect(build_server(bare_app), mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        instructions = client.instructions or ""
        for arguments in ({}, {"customer_id": "C-00042"}):
            prompt = (await client.get_prompt(PROMPT, arguments)).messages[0].content.text
            assert listed - named(prompt) == set(), arguments
    assert len(listed) == 7 and listed - named(instructions) == set()


async def test_each_tools_usual_sequence_names_it_and_every_tool_is_in_another_ones(bare_app, mode):
    async with connect(build_server(bare_app), mode) as client:
        sequences = {tool.name: usual_sequence(tool.description or "") for tool in (await client.list_tools()).tools}
    assert [name for name, sequence in sequences.items() if name not in named(sequence)] == []
    reached = {name for tool, sequence in sequences.items() for name in named(sequence) - {tool}}
    assert set(sequences) - reached == set()
    assert "after_sales_list_tickets" in named(sequences["after_sales_cancel_ticket"])
