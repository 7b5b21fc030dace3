"""Paging cursors signed whole: they continue exactly the search that issued them, and nothing edited is read."""

import base64
import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from aftersales.domain.errors import InvalidArguments
from aftersales.domain.paging import CURSOR_PATTERN, Listing, Position
from aftersales.mcp.problems import AnchoredValidator
from aftersales.security.cursors import CURSOR_EXAMPLE, SignedCursors

LISTING = Listing("after_sales_find_orders", "email:qiang.guo.1@example.com")
POSITION = Position(datetime(2026, 11, 23, 18, 0, 0, 123456, tzinfo=UTC), "O-2026-001423")
CURSORS = SignedCursors(["one server secret, shared by every replica"])
ISSUED = CURSORS.write(LISTING, POSITION)


def fields_of(cursor: str) -> dict[str, object]:
    """The JSON payload of a cursor, as anyone who reads one can see it."""
    payload = cursor.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def with_field(cursor: str, field: str, value: object) -> str:
    """A cursor whose payload has one field changed and whose signature is the original's, as an editor would."""
    signature = cursor.rsplit(".", 1)[1]
    payload = json.dumps(fields_of(cursor) | {field: value}).encode()
    return base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + signature


def refused_as_not_issued(cursor: str, cursors: SignedCursors = CURSORS) -> InvalidArguments:
    """The refusal of a cursor, checked to be the one that says it is not this server's and to start again."""
    with pytest.raises(InvalidArguments) as raised:
        cursors.read(LISTING, cursor)
    assert raised.value.what.startswith('cursor "') and "is not a cursor this server issued" in raised.value.what
    assert "Call again without cursor" in raised.value.next_step
    return raised.value


def test_a_cursor_gives_back_the_position_it_was_made_from_to_the_microsecond():
    assert CURSORS.read(LISTING, ISSUED) == POSITION


def test_a_position_in_another_time_zone_comes_back_as_the_same_moment_in_utc():
    shanghai = Position(POSITION.at.astimezone(timezone(timedelta(hours=8))), POSITION.id)
    back = CURSORS.read(LISTING, CURSORS.write(LISTING, shanghai))
    assert back == POSITION and back.at.tzinfo == UTC


def test_every_cursor_matches_the_published_pattern_and_carries_no_email_in_clear():
    for cursor in (CURSOR_EXAMPLE, ISSUED):
        assert AnchoredValidator({"type": "string", "pattern": CURSOR_PATTERN}).is_valid(cursor)
        assert "qiang" not in json.dumps(fields_of(cursor))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("at", "9999-12-31T23:00:00-05:00"),  # past the last time Python can hold once moved to UTC
        ("at", "0001-01-01T00:00:00+05:00"),
        ("at", "2026-11-23T18:00:00+00:00"),  # a readable time, only not the one signed
        ("id", "O-2026-\ud800"),  # a lone surrogate no database can store
        ("id", "O-2026-001423\x00"),  # a NUL PostgreSQL refuses in text
        ("id", "O-2026-000001"),
        ("at", 7),
        ("id", None),
    ],
)
def test_a_cursor_with_an_edited_position_is_refused_before_anything_reads_it(field, value):
    refused_as_not_issued(with_field(ISSUED, field, value))


@pytest.mark.parametrize(
    "cursor",
    [
        "not-a-cursor-at-all",
        "!!!!",
        ISSUED[:-1],  # truncated
        ISSUED[: ISSUED.index(".")],  # the payload alone
        ISSUED + "A",
        ISSUED.replace(".", ""),
        ISSUED[:-1] + ("B" if ISSUED[-1] == "A" else "A"),  # one character of the signature
        "A" + ISSUED[1:] if ISSUED[0] != "A" else "B" + ISSUED[1:],  # one character of the payload
        ISSUED + "\ud800",
        base64.urlsafe_b64encode(b"\xff\xfe\x00").decode() + "." + ISSUED.rsplit(".", 1)[1],
        # the version 2 cursors covered only the listing with an HMAC: they read as not issued, the search restarts
        base64.urlsafe_b64encode(json.dumps({"v": 2, "l": "0" * 16, "at": "2026-11-23T18:00:00+00:00"}).encode())
        .decode()
        .rstrip("="),
    ],
)
def test_a_cursor_this_server_did_not_write_is_an_argument_error_that_says_to_start_again(cursor):
    refused_as_not_issued(cursor)


def test_a_cursor_spelled_another_way_in_base64_is_not_the_cursor_issued():
    signature = ISSUED.rsplit(".", 1)[1]
    # The last character of unpadded base64 carries bits no byte uses: flipping them spells the same bytes.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(signature[-1])
    same_bytes = ISSUED[:-1] + alphabet[last ^ 1]
    assert base64.urlsafe_b64decode(same_bytes.rsplit(".", 1)[1] + "=") == base64.urlsafe_b64decode(signature + "=")
    refused_as_not_issued(same_bytes)


def test_a_cursor_of_another_search_is_refused_as_belonging_to_it():
    other = CURSORS.write(Listing("after_sales_find_orders", "email:shan.li.2@example.com"), POSITION)
    tickets = CURSORS.write(Listing("after_sales_list_tickets", "email:qiang.guo.1@example.com"), POSITION)
    for cursor in (other, tickets):
        with pytest.raises(InvalidArguments, match="belongs to another search"):
            CURSORS.read(LISTING, cursor)


def test_the_fingerprint_is_keyed_so_no_one_without_the_key_can_confirm_a_guessed_email():
    fingerprint = fields_of(ISSUED)["l"]
    guessed = hashlib.sha256(f"{LISTING.tool}\n{LISTING.scope}".encode()).hexdigest()[:16]
    assert fingerprint != guessed and LISTING.scope not in str(fingerprint)
    other_server = SignedCursors(["another server's secret"])
    assert fields_of(other_server.write(LISTING, POSITION))["l"] != fingerprint
    refused_as_not_issued(other_server.write(LISTING, POSITION))


def test_replicas_sharing_the_secrets_write_the_same_cursor():
    secrets = ["first secret of the ring", "second secret of the ring"]
    assert SignedCursors(secrets).write(LISTING, POSITION) == SignedCursors(list(secrets)).write(LISTING, POSITION)


def test_a_new_first_key_breaks_no_cursor_and_dropping_the_old_one_loses_only_its_pages():
    old, new = "the secret before rotation", "the secret after rotation"
    before = SignedCursors([old]).write(LISTING, POSITION)
    rotated = SignedCursors([new, old])
    assert rotated.read(LISTING, before) == POSITION
    after = rotated.write(LISTING, POSITION)  # signed with the new first key
    assert after != before
    dropped = SignedCursors([new])
    assert dropped.read(LISTING, after) == POSITION
    refused_as_not_issued(before, dropped)
