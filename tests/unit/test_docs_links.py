"""The README and docs/ keep their links and their runnable command blocks honest."""

import pytest

from tests.support import ROOT, docs


@pytest.mark.parametrize("name", docs.pages())
def test_every_relative_link_points_to_a_file_that_exists_and_every_anchor_to_a_heading_of_it(name):
    assert docs.broken_links(name, docs.page(name)) == []


def test_a_link_to_a_missing_file_or_a_missing_heading_is_reported():
    text = "# Title\n\n[ok](#title) [gone](nowhere.md) [wrong](docs/hosts.md#no-such-heading) [web](https://x.org/y)\n"
    assert docs.broken_links("README.md", text) == [
        "README.md: nowhere.md: no file nowhere.md",
        "README.md: docs/hosts.md#no-such-heading: hosts.md has no heading with the anchor #no-such-heading",
    ]


def test_anchors_follow_github_s_slugs_and_number_a_repeated_heading():
    text = "## Several processes on one machine (`--workers`)\n\n```sh\n# not a heading\n```\n\n## Notes\n\n## Notes\n"
    assert docs.anchors(text) == {"several-processes-on-one-machine---workers", "notes", "notes-1"}
    assert docs.slug("The reference LLM agent (`examples/llm_agent/`)") == "the-reference-llm-agent-examplesllm_agent"
    assert (
        docs.slug("OAuth mode: behind the shop's identity provider") == "oauth-mode-behind-the-shops-identity-provider"
    )


def test_links_inside_code_are_not_links():
    assert docs.links("`[a](b.md)`\n\n```md\n[c](d.md)\n```\n\n[e](f.md)\n") == ["f.md"]


def test_the_readme_lists_every_docs_page_under_documentation_one_line_each():
    listed = docs.links(docs.section(docs.page("README.md"), "## Documentation"))
    pages = [name.removeprefix("docs/") for name in docs.pages() if name.startswith("docs/")]
    assert sorted(target.removeprefix("docs/") for target in listed if target.startswith("docs/")) == pages


@pytest.mark.parametrize("name", docs.pages())
def test_every_marker_that_says_a_block_runs_opens_a_command_block(name):
    assert docs.marked_count(docs.page(name)) == len([b for b in docs.run_blocks() if b.page == name])


@pytest.mark.parametrize("block", docs.run_blocks(), ids=lambda block: f"{block.page}:{block.heading}:{block.language}")
def test_every_block_the_docs_say_runs_is_read_by_the_test_its_marker_names(block):
    test = ROOT / block.test
    assert test.is_file(), block.test
    source = test.read_text(encoding="utf-8")
    # The test asks for the block by page and heading (docs.blocks_run_by), so it runs what the page shows.
    assert "docs.blocks_run_by(" in source and f'"{block.page}"' in source and f'"{block.heading}"' in source


def test_the_readme_stays_a_first_visit_page():
    assert len(docs.page("README.md").splitlines()) < 300
