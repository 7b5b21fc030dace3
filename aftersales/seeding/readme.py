"""Keep seed/README.md's story table in step with the generated dataset."""

import re
from pathlib import Path

from aftersales.seeding.generator import World
from aftersales.seeding.stories import APPENDED_STORIES, COD_STORIES, STORIES

START, END = "<!-- stories:start -->", "<!-- stories:end -->"


def story_table(world: World) -> str:
    """The Markdown table of story records, ids taken from the world."""
    tiers = {row["id"]: row["tier"] for row in world.tables["customers"]}
    rows = [
        "| story | customer | email | phone | order | ticket | what it shows |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for story in (*STORIES, *APPENDED_STORIES, *COD_STORIES):
        ids = world.stories[story.key]
        customer = f"{ids['customer_id']} ({tiers[ids['customer_id']]})"
        rows.append(
            f"| {story.key} | {customer} | {ids['email']} | {ids['phone']} | {ids['order_id']} | "
            f"{ids.get('ticket_id', '')} | {story.summary} |"
        )
    return "\n".join(rows)


def update(readme: Path, world: World) -> None:
    """Rewrite the table between the markers in `readme`."""
    text = readme.read_text(encoding="utf-8")
    block = f"{START}\n{story_table(world)}\n{END}"
    readme.write_text(
        re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S), encoding="utf-8"
    )
