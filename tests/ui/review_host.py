"""The host app for review-screen tests, with the product's app.tcss loaded:
its opaque ``Screen`` background is what once made the review dialogs blank
the graph, so dialogs are only tested (and drawn) under it."""

from __future__ import annotations

from pathlib import Path

import paicli_tui.ui
from tests.ui.run_host import HostApp

APP_CSS = Path(paicli_tui.ui.__file__).with_name("app.tcss")


class ReviewHost(HostApp):
    CSS_PATH = APP_CSS
