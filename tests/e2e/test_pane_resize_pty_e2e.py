"""Worker panes in a real terminal: the real `paicli` in a pseudo-terminal
(tests/support/pty_app.py), a /plan of two tasks streamed by the loopback
server; half-way through each answer the server holds the stream while the
terminal is resized, and every pane must show its task's text intact and
in order (heading first, no fragments of other lines), as it does again
once the run ends."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from paicli_tui.llm.offline.scripted import Reply, Script
from tests.support.cli import paicli_env
from tests.support.pty_app import PtyApp
from tests.support.server import LoopbackServer, RawReply, sse_chunk
from tests.support.timing import scaled

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

SIZES = [(120, 36), (90, 28), (200, 50), (100, 30), (120, 36)]
PANE_TITLE = re.compile(r"╭─ (worker-\d) · (task_\d) ")
SCROLLBAR = "▁▂▃▄▅▆▇█▉▊▋▌▍▎▏"


def answer(task: int) -> str:
    """Markdown whose every kind of block differs per task: headings, list
    items with code, a fence with no language, a paragraph long enough to wrap."""
    parts = []
    for part in range(1, 5):
        items = "".join(f"- item {part}{i}: `t{task}/m{part}{i}.py` ok\n" for i in range(1, 5))
        prose = " ".join(f"w{task}.{part}.{i}" for i in range(1, 25))
        parts.append(f"## Part {task}.{part}\n\n{items}\n```\nx = {task}{part}\n```\n\n{prose}\n\n")
    return "".join(parts)


def held_stream(text: str, gate: threading.Event):
    """``text`` in 7-character pieces; at the half it waits for ``gate``."""
    pieces = [text[i:i + 7] for i in range(0, len(text), 7)]

    def stream(stopping: threading.Event):
        for number, piece in enumerate(pieces):
            if number == len(pieces) // 2:
                while not gate.wait(0.05):
                    if stopping.is_set():
                        return
            yield sse_chunk(piece)
            if stopping.wait(0.01):
                return
        yield sse_chunk(finish_reason="stop") + b"data: [DONE]\n\n"

    return stream


def expected_words(task: int) -> list[str]:
    words = ["▶", f"task_{task}", "·", "attempt", "1", "·", "look", str(task)]
    for line in answer(task).splitlines():
        if line.startswith("```"):
            continue
        line = line.removeprefix("## ").replace("`", "")
        words.extend(("•" + line[1:]).split() if line.startswith("- ") else line.split())
    return words


def pane_words(text: str) -> dict[str, tuple[int, list[str]]]:
    """Each worker pane's task and the words shown inside its border, in
    reading order, up to the line that ends the task."""
    rows = text.split("\n")
    panes = {}
    for y, row in enumerate(rows):
        for title in PANE_TITLE.finditer(row):
            left, right = title.start(), row.find("╮", title.start())
            words: list[str] = []
            for inside in rows[y + 1:]:
                if len(inside) <= right or inside[left] != "│":
                    break
                line = inside[left + 1:right].rstrip(SCROLLBAR + " ")
                if line.strip().startswith("■"):
                    break
                words.extend(word for word in line.replace("`", "").split() if word.strip("#"))
            panes[title.group(1)] = (int(title.group(2)[-1]), ["•" if w == "-" else w for w in words])
    return panes


def misplaced(shown: list[str], expected: list[str]) -> str | None:
    """None if ``shown`` is a run of ``expected`` in order (its last word may
    still be streaming); else where it breaks."""
    if not shown:
        return None
    for start in (i for i, word in enumerate(expected) if word == shown[0] or (len(shown) == 1 and word.startswith(shown[0]))):
        window = expected[start:start + len(shown)]
        if len(window) == len(shown) and window[:-1] == shown[:-1] and window[-1].startswith(shown[-1]):
            return None
    first_bad = next((i for i in range(1, len(shown)) if " ".join(shown[:i + 1]) not in " ".join(expected)), 0)
    return f"{' '.join(shown[max(0, first_bad - 4):first_bad + 4])!r} (word {first_bad} of {len(shown)})"


def quiet(app: PtyApp) -> str:
    """The screen once the panes have painted and then stayed the same for a
    moment (the clocks in the header and tree tick on; they are not compared)."""
    deadline = time.monotonic() + scaled(30)
    app.pump(scaled(0.5))
    while True:
        before = pane_words(app.text())
        app.pump(scaled(0.4))
        if pane_words(app.text()) == before or time.monotonic() > deadline:
            return app.text()


def assert_panes_intact(text: str, size: tuple[int, int], shown_at_least: int) -> None:
    panes = pane_words(text)
    assert len(panes) >= shown_at_least, f"at {size} only panes {sorted(panes)}:\n{text}"
    for worker, (task, words) in panes.items():
        broken = misplaced(words, expected_words(task))
        assert broken is None, f"{worker} at {size[0]}x{size[1]}: out of place {broken}\n{text}"


def test_resizing_while_two_workers_stream_keeps_each_panes_text_in_order(workspace, paicli_home):
    gate = threading.Event()
    tasks = [{"id": f"t{i}", "description": f"look {i}", "type": "ANALYSIS", "dependencies": []} for i in (1, 2)]
    script = Script({"planner": [Reply(content=json.dumps({"summary": "look twice", "tasks": tasks}))],
                     "task_1": [RawReply(held_stream(answer(1), gate))],
                     "task_2": [RawReply(held_stream(answer(2), gate))]})
    with LoopbackServer(script) as server:
        app = PtyApp(["--base-url", server.base_url, "--model", "m"], cwd=workspace,
                     env=paicli_env(paicli_home), columns=SIZES[0][0], lines=SIZES[0][1], resizable=True)
        try:
            app.wait_for(lambda text: "shift+tab to cycle" in text, 30)
            app.type("/plan look")
            app.send(b"\r")
            app.wait_for(lambda text: "Enter run" in text, 30)
            app.send(b"\r")
            app.wait_for(lambda text: "Part 1.2" in text and "Part 2.2" in text, 30)
            for size in SIZES[1:]:
                app.resize(*size)
                assert_panes_intact(quiet(app), size, shown_at_least=2)
            gate.set()
            app.wait_for(lambda text: "Run COMPLETED" in text, 60)
            app.resize(*SIZES[1])
            assert_panes_intact(quiet(app), SIZES[1], shown_at_least=1)
        finally:
            gate.set()
            app.close()
