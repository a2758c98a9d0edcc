"""Streaming CPU and key echo bench (P-7.6): the real paicli in a
pseudo-terminal, four plan tasks each streaming ~6,000 characters of
Markdown (paragraphs, lists, code fences, headings) at 100 tokens/s of 4
characters, against the same four streams into a minimal Textual app with
four ``Markdown`` widgets fed by ``MarkdownStream`` (bench/reference_apps.py),
in the same pseudo-terminal size, alternating.

Measured, per app:
- CPU per streamed character: the process's CPU (/proc, all its threads —
  the model client's threads do the same work in the product) from the
  moment all four streams were requested until every stream's last line is
  on screen (ours: or the run summary), over the characters streamed;
- key echo during the stream: every 250 ms a key with a visible effect,
  two kinds for ours, alternating: ``h`` hides/shows the task tree (its
  "Tasks" title; every pane changes width: a whole-screen layout, the
  heaviest key there is) and Down/Up move the task tree's cursor (its
  row's background); the reference: ``h`` hides/shows a line. Timed from
  the write to the pty
  until the bytes that show the change arrive (bench/pty_screen.py: not
  counting the bench's own slow parse of them); p50 and p99.

The loopback server runs in a process of its own (bench/server_apart.py),
so neither its CPU nor its pace depends on the app measured.
``--before DIR`` adds another paicli tree to the same rounds. The machine
may be shared: ratios are the figures to trust; the load is printed.
The last line is one JSON object.

Targets: ours ÷ reference CPU ≤ 0.5; key echo p99 ≤ 50 ms.

    python bench/stream_cpu.py [--pairs 3] [--before DIR] [--keys both|layout]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from pty_screen import PtyScreen  # noqa: E402

from server_apart import Served, server_apart  # noqa: E402

from paicli_tui.llm.offline.scripted import Reply  # noqa: E402

TASKS = 4
CHUNK_CHARS = 4
CHUNK_DELAY = 0.01  # 100 tokens/s per stream
DOWN, UP = b"\x1b[B", b"\x1b[A"
#: A column inside the task tree, left of its text.
TREE_COLUMN = 3
WORDS = ("the pane renders streamed markdown into cached lines so finished blocks cost nothing "
         "while keys answer at once and the clock keeps ticking through every burst of text").split()


def markdown(seed: int, size: int = 6000) -> str:
    rng = random.Random(seed)
    out: list[str] = []

    def words(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    while sum(map(len, out)) < size:
        kind = rng.random()
        if kind < 0.45:
            out.append(f"{words(rng.randint(20, 60)).capitalize()} with **bold words** and `inline_code()`.\n\n")
        elif kind < 0.7:
            out.append("".join(f"- item {i}: `x_{i}` {words(8)}\n" for i in range(rng.randint(2, 5))) + "\n")
        elif kind < 0.85:
            body = "".join(f"def f{i}(x):\n    return x * {i}\n" for i in range(rng.randint(2, 5)))
            out.append(f"```python\n{body}```\n\n")
        else:
            out.append(f"## Heading {rng.randint(1, 99)}\n\n")
    return "".join(out) + f"Final line END-W{seed}\n"


def responder(texts: dict[str, str]):
    def reply(request) -> Reply:
        return Reply(content=texts.get(request.agent, "done"), chunk_chars=CHUNK_CHARS, chunk_delay=CHUNK_DELAY)
    return reply


class Variant:
    def __init__(self, name: str, tree: Path | None, env: dict[str, str], work: Path, cursor_keys: bool = True) -> None:
        self.name, self.tree, self.work, self.cursor_keys = name, tree, work, cursor_keys
        self.env = dict(env)
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree)
            self.env["PAICLI_HOME"] = str(work / f"home-{name}")

    def run(self, server: Served) -> dict[str, float]:
        url = server.url
        if self.tree is None:
            argv = [sys.executable, str(HERE / "reference_apps.py"), "markdown", url]
            probe = "PROBE-SHOWN"
        else:
            argv = [sys.executable, "-m", "paicli_tui", "--base-url", url, "--model", "m",
                    "--plan-file", str(self.work / "plan.json"), "-w", str(self.work / "project")]
            probe = "╭─ Tasks ─"
        seen = server.requests
        app = PtyScreen(argv, env=self.env, cwd=str(self.work))
        try:
            if self.tree is not None:
                app.wait_for(lambda text: "Review the plan" in text and "bench the panes" in text, 60)
                app.drain_for(0.3)
                app.send(b"\r")
            deadline = time.perf_counter() + 60
            while server.requests - seen < TASKS and time.perf_counter() < deadline:
                app.pump(0.01)
            cpu0, t0 = app.cpu(), time.perf_counter()
            echoes: list[float] = []
            cursor_echoes: list[float] = []
            markers = [f"END-W{n}" for n in range(1, TASKS + 1)]

            def done(text: str) -> bool:
                return all(m in text for m in markers) or "Run COMPLETED" in text

            next_key = time.perf_counter() + 0.25
            presses = 0
            while not done(app.text()) and time.perf_counter() - t0 < 90:
                if time.perf_counter() >= next_key:
                    app.pump(0)  # what arrived before the key is on screen
                    # Ours: down, up in the task tree, then h twice (hidden and
                    # back, h gives the tree its focus back); the reference
                    # has only its line.
                    cursor = self.tree is not None and self.cursor_keys and presses % 4 < 2
                    if cursor:
                        key, marks = (DOWN if presses % 4 == 0 else UP), tree_cursor
                    else:
                        key, marks = b"h", (lambda screen: probe in app.text())
                    shown = marks(app.screen)
                    sent = time.perf_counter()
                    app.send(key)
                    try:
                        arrived = app.wait_for(lambda text: marks(app.screen) != shown, 5)
                        (cursor_echoes if cursor else echoes).append(arrived - sent)
                    except TimeoutError:
                        (cursor_echoes if cursor else echoes).append(5.0)
                    presses += 1
                    next_key = time.perf_counter() + 0.25
                else:
                    app.pump(max(0.0, next_key - time.perf_counter()))
            cpu1, t1 = app.cpu(), time.perf_counter()
        finally:
            app.close()
        figures = {"cpu_s": cpu1 - cpu0, "wall_s": t1 - t0, **percentiles("echo", echoes)}
        if cursor_echoes:
            figures.update(percentiles("cursor", cursor_echoes))
        return figures


def percentiles(name: str, seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {f"{name}_p50_ms": 1000 * statistics.median(ordered),
            f"{name}_p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
            f"{name}_keys": len(ordered)}


def tree_cursor(screen) -> tuple:
    """The task tree's row backgrounds: the cursor's row has its own."""
    return tuple(screen.buffer[y][TREE_COLUMN].bg for y in range(screen.lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another paicli tree to measure alongside")
    parser.add_argument("--keys", choices=("both", "layout"), default="both",
                        help="layout: only h, as trees before the cursor keys were measured (before 2026-12-05, "
                             "h took the tree's focus for good, so the cursor keys went to a pane)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="paicli-stream-"))
    (work / "project").mkdir()
    (work / "project" / "README.md").write_text("# Bench\n")
    plan = {"goal": "bench the panes", "tasks": [
        {"id": f"t{n}", "description": f"write part {n}", "type": "ANALYSIS", "dependencies": []}
        for n in range(1, TASKS + 1)]}
    (work / "plan.json").write_text(json.dumps(plan))
    texts = {f"task_{n}": markdown(n) for n in range(1, TASKS + 1)}
    chars = sum(len(text) for text in texts.values())
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    # The loopback server stands in for a hosted model: four streams at once.
    # As a local URL it would get the local profile's one request at a time
    # (config/settings.py slots_for), and the four tasks would stream in turn.
    env.update({"PAICLI_SERVER_SLOTS": "0", "PAICLI_LOCAL_PROFILE": "off", "PAICLI_PROBE_SERVER": "false"})
    cursor = args.keys == "both"
    variants = [Variant("ours", HERE.parent, env, work, cursor), Variant("reference", None, env, work)]
    if args.before:
        variants.insert(1, Variant("before", args.before.resolve(), env, work, cursor))

    results: dict[str, list[dict[str, float]]] = {v.name: [] for v in variants}
    with server_apart(responder(texts)) as server:
        for round_ in range(args.pairs):
            for variant in variants if round_ % 2 == 0 else list(reversed(variants)):
                figures = variant.run(server)
                results[variant.name].append(figures)
                cursor = (f", cursor key p50 {figures['cursor_p50_ms']:.0f} ms p99 {figures['cursor_p99_ms']:.0f} ms"
                          f" ({figures['cursor_keys']} keys)" if "cursor_keys" in figures else "")
                print(f"round {round_ + 1} {variant.name}: {1e6 * figures['cpu_s'] / chars:.0f} µs/char, "
                      f"{figures['wall_s']:.1f} s, layout key p50 {figures['echo_p50_ms']:.0f} ms "
                      f"p99 {figures['echo_p99_ms']:.0f} ms ({figures['echo_keys']} keys){cursor} · load {os.getloadavg()[0]:.1f}",
                      flush=True)
    out: dict[str, object] = {"chars": chars, "load": round(os.getloadavg()[0], 1)}
    per_char = {n: statistics.median(r["cpu_s"] for r in rs) / chars for n, rs in results.items()}
    for name, rs in results.items():
        out[f"cpu_{name}_us_per_char"] = round(1e6 * per_char[name])
        out[f"echo_{name}_p50_ms"] = round(statistics.median(r["echo_p50_ms"] for r in rs), 1)
        out[f"echo_{name}_p99_ms"] = round(statistics.median(r["echo_p99_ms"] for r in rs), 1)
        if "cursor_p99_ms" in rs[0]:
            out[f"cursor_{name}_p50_ms"] = round(statistics.median(r["cursor_p50_ms"] for r in rs), 1)
            out[f"cursor_{name}_p99_ms"] = round(statistics.median(r["cursor_p99_ms"] for r in rs), 1)
        if name != "reference":
            out[f"cpu_{name}_vs_reference"] = round(per_char[name] / per_char["reference"], 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
