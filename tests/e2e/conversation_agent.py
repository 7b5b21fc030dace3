"""A conversation agent in a child process, as any language would write one: raw HTTP posts to the channel."""

import json
import os
import sys

import httpx2

headers = {"Authorization": f"Bearer {os.environ['AFTERSALES_TOKEN']}"}
with open(os.environ["AFTERSALES_TASK_FILE"], encoding="utf-8") as brief_file:
    brief = json.load(brief_file)
for message in ("Which order is this about?", "Lovely weather?"):
    answer = httpx2.post(os.environ["AFTERSALES_CUSTOMER_URL"], json={"message": message}, headers=headers, timeout=30)
    if answer.status_code != 200:
        print(answer.status_code, answer.text)
        sys.exit(1)
    print(answer.json()["reply"])
