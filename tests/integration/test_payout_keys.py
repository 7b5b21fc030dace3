"""Payout keys rotate as the other rings do: a new key in front seals, and an account sealed with an old one opens."""

from pathlib import Path

import pytest

from aftersales.app import App
from aftersales.clock import now
from aftersales.services import payouts
from tests.support.apps import settings_for
from tests.support.payouts import ACCOUNT, opened_page

OLD, NEW = "old-payout-key-" + "o" * 32, "new-payout-key-" + "n" * 32


def give_account(app: App, order_id: str, key: str) -> str:
    """Open a page and give it ACCOUNT, sealed with the app's payout keys; the request's id."""
    token = opened_page(app, order_id, key).rsplit("/", 1)[1]
    request_id, _ = payouts.submit_account(
        app.uow(write=True), token, "Wei Zhang", ACCOUNT, "Barclays", now(), app.payout_cipher
    )
    return request_id


@pytest.mark.settings(payout_keys=OLD)
def test_an_account_sealed_with_the_old_key_opens_after_the_new_key_is_put_in_front(
    app: App, database_url: str, tmp_path: Path, stories
):
    order_id = stories["cod_tshirts_in_window"]["order_id"]
    before = give_account(app, order_id, "rotation-0001")
    rotated = App(settings_for(database_url, tmp_path / "rotated", payout_keys=f"{NEW},{OLD}"))
    new_only = App(settings_for(database_url, tmp_path / "new", payout_keys=NEW))
    try:
        after = give_account(rotated, order_id, "rotation-0002")
        assert payouts.opened(rotated.uow(), before, rotated.payout_cipher).number == "GB82WEST12345698765432"
        assert payouts.opened(new_only.uow(), after, new_only.payout_cipher) is not None  # NEW sealed it
        with pytest.raises(ValueError, match="no longer holds"):
            payouts.opened(new_only.uow(), before, new_only.payout_cipher)  # OLD must stay listed for it
    finally:
        rotated.close()
        new_only.close()
