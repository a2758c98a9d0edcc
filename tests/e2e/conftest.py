"""Fixtures the end-to-end tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def workspace(tmp_path):
    """A project folder for `paicli` to work in, with one small text file."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return ws
