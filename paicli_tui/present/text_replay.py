"""`paicli replay SESSION --text`: the run as the headless printer showed it.

The rebuilt events go onto a fresh bus with the same ``TextPrinter`` that
`paicli run` uses, so a replay prints what the live run printed, with one
line before each run (what the person asked) and one after (how it ended)
from ``RunMarks``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TextIO

from paicli_tui.events import EventBus
from paicli_tui.present.headless import TextPrinter
from paicli_tui.records.player import play, timeline
from paicli_tui.records.run_marks import RunMarks
from paicli_tui.records.runs import load


def replay_text(
    path: Path,
    out: TextIO,
    err: TextIO,
    *,
    speed: float | None = None,
    cancel: threading.Event | None = None,
    warnings: list[str] | None = None,
) -> bool:
    lines = load(path, warnings)
    bus = EventBus(path.stem)
    bus.subscribe(RunMarks(out))
    bus.subscribe(TextPrinter(out, err))
    return play(timeline(lines, warnings), bus.publish, speed=speed, cancel=cancel)
