"""The run screen's heaviest key, headless (P-7.6): ``h`` hides or shows
the task tree, so every pane is drawn again at a new width and the whole
screen is laid out and painted before the key returns.

Four workers' panes hold ~6,000 characters of Markdown each (paragraphs,
lists, code fences, headings); the key is pressed 40 times, 0.1 s apart,
with the app's collector settings (start-up objects frozen, automatic full
collections held). Measured: the time the key's action takes, median and
p90 — its layout and paint included. ``--before DIR`` runs another paicli
tree the same way, alternating, each in its own process; the last line is
one JSON object.

    python bench/layout_key.py [--rounds 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PRESSES = 40


async def _measure() -> list[float]:
    import asyncio
    import gc
    import time

    from paicli_tui import events as ev
    from stream_cpu import markdown
    from tests.ui.test_run_screen import frame, host, open_run, start

    app = host(4)
    async with app.run_test(size=(120, 36)) as pilot:
        workers = [f"worker-{n}" for n in range(1, 5)]
        screen = await open_run(app, pilot, workers=workers)
        for number, worker in enumerate(workers, 1):
            start(app.bus, f"step_{number}", worker)
            text = markdown(number)
            for at in range(0, len(text), 40):
                app.bus.publish(ev.ModelDelta(worker, "c1", "content", text[at:at + 40]))
        for _ in range(5):
            await frame(app, pilot)
        await asyncio.sleep(0.5)
        gc.freeze()
        gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], 2**31 - 1)
        seconds = []
        for _ in range(PRESSES):
            began = time.perf_counter()
            screen.action_toggle_tree()
            seconds.append(time.perf_counter() - began)
            await pilot.pause(0.1)
    return seconds


def child() -> int:
    import asyncio

    sys.path.insert(0, str(HERE))
    print(json.dumps(asyncio.run(_measure())))
    return 0


def run(tree: Path) -> list[float]:
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{HERE}"}
    out = subprocess.run([sys.executable, str(HERE / "layout_key.py"), "--child"], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another paicli tree to measure alongside")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child()
    trees = {"ours": HERE.parent}
    if args.before:
        trees["before"] = args.before.resolve()
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    for round_ in range(args.rounds):
        for name in trees if round_ % 2 == 0 else reversed(trees):
            got = sorted(run(trees[name]))
            seconds[name].extend(got)
            print(f"round {round_ + 1} {name}: median {1000 * statistics.median(got):.1f} ms "
                  f"p90 {1000 * got[int(0.9 * len(got))]:.1f} ms · load {os.getloadavg()[0]:.1f}", flush=True)
    out: dict[str, object] = {"load": round(os.getloadavg()[0], 1)}
    for name, values in seconds.items():
        values.sort()
        out[f"{name}_median_ms"] = round(1000 * statistics.median(values), 1)
        out[f"{name}_p90_ms"] = round(1000 * values[int(0.9 * len(values))], 1)
    if "before" in seconds:
        out["ours_vs_before_median"] = round(out["ours_median_ms"] / out["before_median_ms"], 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
