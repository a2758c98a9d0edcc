"""Start-up, quit and idle bench (P-7.6): the real `paicli --demo` in a
pseudo-terminal against a minimal Textual app (Header, Input, Footer) in the
same pseudo-terminal, alternating, medians.

Measured:
- first screen: ``Popen`` → the screen showing the app's marker (ours: the
  status bar's "shift+tab to cycle"; the reference: its placeholder);
- idle CPU: 10 s of the process's CPU (/proc) once the first screen is up,
  and again after a session of three turns, as % of one core;
- quit: after those three turns, the second Ctrl+C → the process gone (and
  → the terminal given back, ``ESC[?1049l`` seen);
- first opens (each in a fresh process, after the session has started):
  F1 → the help, Ctrl+P → the palette, Enter on a typed ``/memory`` → its screen.

Bytecode: the environment may set PYTHONDONTWRITEBYTECODE; an installed
wheel has its bytecode compiled, so both apps get a private
PYTHONPYCACHEPREFIX and one warm-up launch before the timed ones.

``--before DIR`` adds a second tree of paicli (e.g. ``git archive BASE``
unpacked) measured in the same rounds, for before/after figures.

Targets: first screen ÷ reference ≤ 1.5; quit ≤ 0.3 s; idle ≤ 1 % of a core;
/memory < 0.3 s.

Before/after in one run, ``before`` being main:
    git -C REPO worktree add --detach /tmp/startup-main main
    python bench/startup.py --before /tmp/startup-main
    git -C REPO worktree remove /tmp/startup-main
The machine may be shared: the load average is printed, ratios are the
figures to trust. The last line is one JSON object.

    python bench/startup.py [--runs 5] [--before DIR] [--idle 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pty_screen import PtyScreen  # noqa: E402

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
CTRL_C = b"\x03"
STEP = 60.0


def status_ready(text: str) -> bool:
    return "shift+tab to cycle" in text


def reference_ready(text: str) -> bool:
    return "type here" in text


class Variant:
    def __init__(self, name: str, tree: Path | None, base_env: dict[str, str], workdir: Path) -> None:
        self.name = name
        self.tree = tree
        self.workdir = workdir
        self.env = dict(base_env)
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree)
            self.env["PAICLI_HOME"] = str(workdir / f"home-{name}")

    def launch(self) -> PtyScreen:
        if self.tree is None:
            argv = [sys.executable, str(HERE / "reference_apps.py"), "first-screen"]
        else:
            argv = [sys.executable, "-m", "paicli_tui", "--demo", "-w", str(self.workdir / "project")]
        return PtyScreen(argv, env=self.env, cwd=str(self.workdir))

    @property
    def ready(self):
        return reference_ready if self.tree is None else status_ready


def first_screen(variant: Variant) -> tuple[float, PtyScreen]:
    app = variant.launch()
    shown = app.wait_for(variant.ready, STEP)
    return shown - app.started, app


#: First opens measured, one per round in turn: what is typed first (untimed),
#: the key that opens it (timed from here), and what shows the screen.
FIRST_OPENS = {
    "help": (b"", b"\x1bOP", "paicli help"),
    "palette": (b"", b"\x10", "Search for commands"),
    "memory": (b"/memory", b"\r", "search the facts"),
}
#: Seconds of quiet after the first screen before a first open (the session starts meanwhile).
SETTLE_S = 4.0


def first_open(app: PtyScreen, what: str) -> float:
    """Seconds from the keys to the screen showing, the first time in this process."""
    typed, keys, shown = FIRST_OPENS[what]
    app.drain_for(SETTLE_S)
    if typed:
        app.send(typed)
        app.wait_for(lambda text: typed.decode() in text, STEP)
        app.drain_for(0.5)  # the completion menu settles
    pressed = time.perf_counter()
    app.send(keys)
    return app.wait_for(lambda text: shown in text, STEP) - pressed


def idle_share(app: PtyScreen, seconds: float) -> float:
    app.drain_for(SETTLE_S)  # let the first frame's follow-ups (the session starting) settle
    before = app.cpu()
    app.drain_for(seconds)
    return (app.cpu() - before) / seconds


def session_then_quit(app: PtyScreen, idle: float) -> dict[str, float]:
    for n in range(3):
        for char in f"what is in this project, take {n + 1}?":
            app.send(char.encode())
            app.pump(0.005)
        app.send(b"\r")
        app.wait_for(lambda text: "esc cancels" in text, STEP)
        app.wait_for(lambda text: "esc cancels" not in text, STEP)
    share = idle_share(app, idle)
    app.send(CTRL_C)
    app.wait_for(lambda text: "again to quit" in text, STEP)
    pressed = time.perf_counter()
    app.send(CTRL_C)
    gone = app.wait_exit(STEP)
    return {"quit_s": (gone or float("nan")) - pressed,
            "released_s": (app.released_at or float("nan")) - pressed,
            "idle_after_session": share}


ROWS = [
    ("first screen ÷ reference (≤ 1.5)", "first_screen_{}_vs_reference", ""),
    ("first screen, median (s)", "first_screen_{}_s", ""),
    ("quit after 3 turns (s, ≤ 0.3)", "quit_{}_s", ""),
    ("idle CPU at start (% core)", "idle_{}_core_pct", ""),
    ("idle CPU after 3 turns (% core, ≤ 1)", "idle_after_session_{}_core_pct", ""),
    ("F1 help first open (s)", "first_open_help_{}_s", ""),
    ("Ctrl+P palette first open (s)", "first_open_palette_{}_s", ""),
    ("/memory first open (s, < 0.3)", "first_open_memory_{}_s", ""),
]


def print_side_by_side(result: dict[str, object], names: list[str]) -> None:
    """One row per figure, one column per tree (before, ours)."""
    columns = sorted(names, key=lambda name: name != "before")
    print(f"{'':40}" + "".join(f"{name:>10}" for name in columns) + f"   reference {result.get('first_screen_reference_s', '')} s")
    for label, key, _ in ROWS:
        cells = [result.get(key.format(name), "—") for name in columns]
        print(f"{label:40}" + "".join(f"{cell!s:>10}" for cell in cells))
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured")
    parser.add_argument("--before", type=Path, help="another paicli tree to measure alongside")
    parser.add_argument("--no-opens", action="store_true", help="skip the first opens of help, palette, /memory")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="paicli-startup-"))
    project = work / "project"
    project.mkdir()
    (project / "README.md").write_text("# Demo\n\nA tiny project.\n")
    (project / "main.py").write_text("print('hi')\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    variants = [Variant("ours", TREE, env, work), Variant("reference", None, env, work)]
    if args.before:
        variants.insert(1, Variant("before", args.before.resolve(), env, work))

    cold: dict[str, float] = {}
    for variant in variants:  # warm-up: compiles the bytecode once
        seconds, app = first_screen(variant)
        cold[variant.name] = seconds
        app.close()
    times: dict[str, list[float]] = {v.name: [] for v in variants}
    opens: dict[str, dict[str, list[float]]] = {v.name: {k: [] for k in FIRST_OPENS} for v in variants if v.tree}
    idle: dict[str, float] = {}
    for round_ in range(args.runs + 2 * len(FIRST_OPENS) * (not args.no_opens)):
        timed = round_ < args.runs
        for variant in variants if round_ % 2 == 0 else reversed(variants):
            if not timed and variant.tree is None:
                continue
            seconds, app = first_screen(variant)
            if timed:
                times[variant.name].append(seconds)
            if round_ == 0:
                idle[variant.name] = idle_share(app, args.idle)
            elif not timed and variant.tree is not None:
                what = list(FIRST_OPENS)[round_ % len(FIRST_OPENS)]
                opens[variant.name][what].append(first_open(app, what))
            app.close()
        if not timed:
            continue
        print(f"round {round_ + 1}: " + ", ".join(f"{n} {t[-1]:.3f}s" for n, t in times.items())
              + f" · load {os.getloadavg()[0]:.1f}", flush=True)

    result: dict[str, object] = {"load": round(os.getloadavg()[0], 1)}
    median = {name: statistics.median(values) for name, values in times.items()}
    for name in times:
        result[f"first_screen_{name}_s"] = round(median[name], 3)
        result[f"first_screen_{name}_cold_s"] = round(cold[name], 3)
        result[f"idle_{name}_core_pct"] = round(100 * idle[name], 2)
    for name in times:
        if name != "reference":
            result[f"first_screen_{name}_vs_reference"] = round(median[name] / median["reference"], 2)
    for variant in variants:
        if variant.tree is None:
            continue
        _, app = first_screen(variant)
        try:
            figures = session_then_quit(app, args.idle)
        finally:
            app.close()
        result[f"quit_{variant.name}_s"] = round(figures["quit_s"], 3)
        result[f"screen_released_{variant.name}_s"] = round(figures["released_s"], 3)
        result[f"idle_after_session_{variant.name}_core_pct"] = round(100 * figures["idle_after_session"], 2)
    for name, per_what in opens.items():
        for what, values in per_what.items():
            if values:
                result[f"first_open_{what}_{name}_s"] = round(statistics.median(values), 3)
    print_side_by_side(result, [v.name for v in variants if v.tree is not None])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
