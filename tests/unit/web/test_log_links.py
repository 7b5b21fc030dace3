"""A bank-account page's one-time token never reaches a log line: the access log and the HTTP clients' lines."""

import logging

from starlette.applications import Starlette

from aftersales.web import serving
from aftersales.web.log_links import PageTokensHidden, without_tokens

TOKEN = "sc9_QTlQkBHHYbXY3h6iQs_AhZDvxeAggaFUDdc1BpM"


def access_line(path: str) -> logging.LogRecord:
    """A record as uvicorn's access logger makes it."""
    return logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "h11_impl.py",
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "POST", path, "1.1", 200),
        None,
    )


def test_an_access_line_of_a_page_in_a_world_shows_its_path_without_the_token():
    record = access_line(f"/payout/w-13636da1/{TOKEN}")
    assert PageTokensHidden().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "POST /payout/w-13636da1/… HTTP/1.1" 200'


def test_a_client_request_line_loses_the_token_and_other_paths_are_left_as_they_are():
    assert without_tokens(f'HTTP Request: GET http://127.0.0.1:8000/payout/{TOKEN} "HTTP/1.1 200 OK"') == (
        'HTTP Request: GET http://127.0.0.1:8000/payout/… "HTTP/1.1 200 OK"'
    )
    assert without_tokens("POST /mcp HTTP/1.1 200") == "POST /mcp HTTP/1.1 200"
    assert without_tokens("/payout/short") == "/payout/short"  # no token: nothing to hide


def test_every_server_this_project_starts_hides_page_tokens_in_its_access_log():
    serving.config(Starlette(), log_level="info")
    assert any(isinstance(found, PageTokensHidden) for found in logging.getLogger("uvicorn.access").filters)
