"""Retry policy pieces: Retry-After, backoff, error text from servers."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from paicli_tui.llm.retry import backoff_delay, is_retryable_status, parse_retry_after, server_message


@pytest.mark.parametrize("status, expected", [(408, True), (409, True), (429, True), (500, True), (503, True), (400, False), (401, False), (404, False), (422, False)])
def test_retryable_statuses(status, expected):
    assert is_retryable_status(status) is expected


def test_retry_after_in_seconds_and_as_http_date():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(formatdate(1_000_030, usegmt=True), now=1_000_000) == pytest.approx(30.0)
    assert parse_retry_after(formatdate(999_000, usegmt=True), now=1_000_000) == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None


def test_backoff_doubles_with_jitter_and_is_capped():
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (6, 10.0)]:
        delays = [backoff_delay(retry, 1.0, 10.0) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1  # jittered


def test_retry_after_wins_over_backoff_but_respects_the_cap():
    assert backoff_delay(1, 1.0, 30.0, retry_after=12.0) == 12.0
    assert backoff_delay(1, 1.0, 30.0, retry_after=120.0) == 30.0


@pytest.mark.parametrize(
    "body, message",
    [
        (b'{"error": {"message": "model not found", "type": "invalid_request_error"}}', "model not found"),
        (b'{"error": "rate limited"}', "rate limited"),
        (b'{"detail": "Not Found"}', "Not Found"),
        (b'{"message": "bad\\n  input"}', "bad input"),
        (b"<html>502 Bad Gateway</html>", "<html>502 Bad Gateway</html>"),
        (b"", ""),
    ],
)
def test_server_message(body, message):
    assert server_message(body) == message


def test_server_message_is_cut_to_200_characters():
    assert len(server_message(b"x" * 1000)) == 200
