"""Pages newest first: cursors continue exactly the search that issued them, and say so when they cannot."""

import base64
import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from aftersales.domain.errors import InvalidArguments
from aftersales.domain.paging import (
    CURSOR_EXAMPLE,
    CURSOR_PATTERN,
    CursorKeys,
    Listing,
    Position,
    cut,
    decode_cursor,
    encode_cursor,
)
from aftersales.mcp.problems import AnchoredValidator

LISTING = Listing("after_sales_find_orders", "email:qiang.guo.1@example.com")
POSITION = Position(datetime(2026, 11, 23, 18, 0, 0, 123456, tzinfo=UTC), "O-2026-001423")
KEYS = CursorKeys.derive(["one server secret, shared by every replica"])
KEY = KEYS.keys[0]


def raw(payload: object) -> str:
    """A cursor-shaped text holding `payload`, as a hand-made cursor would."""
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def test_a_cursor_gives_back_the_position_it_was_made_from_to_the_microsecond():
    assert decode_cursor(LISTING, encode_cursor(LISTING, POSITION, KEYS), KEYS) == POSITION


def test_a_position_in_another_time_zone_comes_back_as_the_same_moment_in_utc():
    shanghai = Position(POSITION.at.astimezone(timezone(timedelta(hours=8))), POSITION.id)
    back = decode_cursor(LISTING, encode_cursor(LISTING, shanghai, KEYS), KEYS)
    assert back == POSITION and back.at.tzinfo == UTC


def test_every_cursor_matches_the_published_pattern_and_carries_no_email_in_clear():
    for cursor in (CURSOR_EXAMPLE, encode_cursor(LISTING, POSITION, KEYS)):
        assert AnchoredValidator({"type": "string", "pattern": CURSOR_PATTERN}).is_valid(cursor)
        assert "qiang" not in base64.urlsafe_b64decode(cursor + "==").decode()


@pytest.mark.parametrize(
    "cursor",
    [
        "not-a-cursor-at-all",
        "!!!!",
        raw([1, 2]),
        # the first version's cursors carried an unkeyed digest: they read as not issued, and the search starts again
        raw({"v": 1, "l": LISTING.fingerprint(KEY), "at": "2026-11-23T18:00:00+00:00", "id": "O-2026-001423"}),
        raw({"v": 2, "l": LISTING.fingerprint(KEY), "at": "2026-11-23T18:00:00", "id": "O-2026-001423"}),  # no zone
        raw({"v": 2, "l": LISTING.fingerprint(KEY), "at": "yesterday", "id": "O-2026-001423"}),
        raw({"v": 2, "l": LISTING.fingerprint(KEY), "at": "2026-11-23T18:00:00+00:00", "id": 7}),
        raw({"v": 2, "l": LISTING.fingerprint(KEY), "at": "2026-11-23T18:00:00+00:00"}),
        base64.urlsafe_b64encode(b"\xff\xfe\x00").decode(),
    ],
)
def test_a_cursor_this_server_did_not_write_is_an_argument_error_that_says_to_start_again(cursor):
    with pytest.raises(InvalidArguments) as raised:
        decode_cursor(LISTING, cursor, KEYS)
    assert raised.value.what.startswith('cursor "') and "is not a cursor this server issued" in raised.value.what
    assert "Call again without cursor" in raised.value.next_step


def test_a_cursor_of_another_search_is_refused_as_belonging_to_it():
    other = encode_cursor(Listing("after_sales_find_orders", "email:shan.li.2@example.com"), POSITION, KEYS)
    tickets = encode_cursor(Listing("after_sales_list_tickets", "email:qiang.guo.1@example.com"), POSITION, KEYS)
    for cursor in (other, tickets):
        with pytest.raises(InvalidArguments, match="belongs to another search"):
            decode_cursor(LISTING, cursor, KEYS)


def test_the_fingerprint_is_keyed_so_no_one_without_the_key_can_confirm_a_guessed_email():
    fingerprint = json.loads(base64.urlsafe_b64decode(encode_cursor(LISTING, POSITION, KEYS) + "=="))["l"]
    guessed = hashlib.sha256(f"{LISTING.tool}\n{LISTING.scope}".encode()).hexdigest()[:16]
    assert fingerprint == LISTING.fingerprint(KEY) and fingerprint != guessed
    other_server = CursorKeys.derive(["another server's secret"])
    assert LISTING.fingerprint(other_server.keys[0]) != fingerprint
    with pytest.raises(InvalidArguments, match="belongs to another search"):
        decode_cursor(LISTING, encode_cursor(LISTING, POSITION, other_server), KEYS)


def test_replicas_sharing_the_secrets_derive_the_same_keys_and_never_use_a_secret_raw():
    secrets = ["first secret of the ring", "second secret of the ring"]
    assert CursorKeys.derive(secrets) == CursorKeys.derive(list(secrets))
    assert not {secret.encode() for secret in secrets} & set(CursorKeys.derive(secrets).keys)


def test_a_new_first_key_breaks_no_cursor_and_dropping_the_old_one_loses_only_its_pages():
    old, new = "the secret before rotation", "the secret after rotation"
    before = encode_cursor(LISTING, POSITION, CursorKeys.derive([old]))
    rotated = CursorKeys.derive([new, old])
    assert decode_cursor(LISTING, before, rotated) == POSITION
    after = encode_cursor(LISTING, POSITION, rotated)  # signed with the new first key
    dropped = CursorKeys.derive([new])
    assert decode_cursor(LISTING, after, dropped) == POSITION
    with pytest.raises(InvalidArguments) as raised:
        decode_cursor(LISTING, before, dropped)
    assert "Call again" in raised.value.next_step and "without cursor" in raised.value.next_step


def test_a_page_keeps_limit_rows_and_the_last_ones_position_only_when_another_row_follows():
    rows = [Position(POSITION.at - timedelta(days=n), f"O-2026-{n:06d}") for n in range(4)]
    assert cut(rows, 3, lambda row: row) == (rows[:3], rows[2])
    assert cut(rows, 4, lambda row: row) == (rows, None)
    assert cut([], 4, lambda row: row) == ([], None)
