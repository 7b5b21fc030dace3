"""`aftersales eval` with an agent whose client cannot show forms (a framework without elicitation): every task.

A file of its own, so `make test` (one file per worker) runs it beside tests/e2e/test_eval.py, not after it.
"""

from pathlib import Path

from aftersales.testing.loader import load
from tests.support.evals import AGENT, failed, run, trajectory


def test_an_agent_whose_client_cannot_show_forms_passes_every_shipped_task(tmp_path: Path):
    # The server asks nothing mid-call; the agent asks the customer itself, as the server's errors tell it to. A
    # customer who gives their account on the shop's page needs a client that can send them there (URL mode).
    code, report = run(tmp_path, f"{AGENT} --no-forms", tasks=[task.id for task in load() if not task.needs_url_mode])
    assert code == 0, failed(report)
    creates = [entry for entry in trajectory(tmp_path, "refund-tshirts-store-credit") if "create" in entry["tool"]]
    # It asked for the refund method the server could not ask for, then called again with it and the same key.
    assert [(entry["client_forms"], entry["error_kind"], entry["rounds"]) for entry in creates] == [
        (False, "input_needed", []),
        (False, None, []),
    ]
    unasked, answered = (entry["arguments"] for entry in creates)
    assert answered == {**unasked, "refund_method": "store_credit"}
    # A confirmation the customer would decline is asked before calling, so nothing is called to decline.
    declined = trajectory(tmp_path, "refund-headphones-confirmation-declined")
    assert [entry["tool"] for entry in declined] == ["after_sales_estimate_refund"]
