"""Run screen streaming bench (issue 7, P-7.6).

Four producer threads play four team workers, each publishing 20,000 small
``ModelDelta`` events on the session's real EventBus. They travel the real
event path — the bus, the app's EventPump, the app's per-frame drain — into
the real RunScreen of the real PaicliApp (its main screen's transcript paints
the same events too), headless under ``run_test``.

Measured:
- deltas/s absorbed: all deltas / (last delta in its pane − first emission);
- emission → pane latency, p50 and p99: each delta's emission time against
  the moment the pane's one write of that frame has returned. The write
  only appends to the answer's model; the pane paints at most
  ``FRAMES_PER_S`` times a second (worker_pane.py), so add up to
  1 / FRAMES_PER_S for the text to show — the bench checks that every pane
  painted its last words, after the last delta;
- producer cost per delta: the producer threads' CPU time / deltas (what a
  worker pays to report a token; it never waits for the UI).

Targets: >= 50,000 deltas/s, p99 <= 100 ms, producer <= 20 µs per delta.
The last line printed is one JSON object with the four figures.

    python bench/ui_stream.py [--workers 4] [--deltas 20000] [--rate 0]

``--rate`` paces each producer (deltas per second per worker), to see the
steady state a fast model gives instead of one burst; the targets are for
the default, as fast as possible.

The main screen's transcript gets every event too, as in the product; it
streams only the ReAct agent, so the workers' text costs it nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paicli_tui import events as ev  # noqa: E402
from paicli_tui.config.settings import Settings  # noqa: E402
from paicli_tui.plan.parser import plan_from_dict  # noqa: E402
from paicli_tui.session.live import Session  # noqa: E402
from paicli_tui.ui.app import PaicliApp  # noqa: E402
from paicli_tui.ui.run.pane_ops import TextOp  # noqa: E402
from paicli_tui.ui.run.run_screen import RunScreen  # noqa: E402
from paicli_tui.ui.run.worker_pane import WorkerPane  # noqa: E402

#: Every delta has the same length, so a pane's character count says how
#: many of its deltas arrived. One in 16 ends a line, like real output.
WORD = "tok: "
LINE_END = "tok:\n"
SIZE = (120, 36)


class Probe:
    """Counts what reaches each pane and when (patched into WorkerPane.write)."""

    def __init__(self, workers: list[str], deltas: int) -> None:
        self.emitted = {w: [0.0] * deltas for w in workers}
        self.arrived = {w: 0 for w in workers}
        self.latencies: list[float] = []
        self.last_arrival = 0.0
        self.writes = 0

    def absorbed(self, worker: str, chars: int) -> None:
        now = time.perf_counter()
        self.writes += 1
        start = self.arrived[worker]
        end = start + chars // len(WORD)
        emitted = self.emitted[worker]
        self.latencies.extend(now - emitted[i] for i in range(start, end))
        self.arrived[worker] = end
        self.last_arrival = now


def install_probe(probe: Probe) -> None:
    original = WorkerPane.write

    async def write(self: WorkerPane, frame_ops):
        frame_ops = list(frame_ops)
        await original(self, frame_ops)
        chars = sum(len(op.text) for op in frame_ops if isinstance(op, TextOp) and op.kind == "content")
        if chars and self.worker in probe.arrived:
            probe.absorbed(self.worker, chars)

    WorkerPane.write = write  # type: ignore[method-assign]


def producer(bus: ev.EventBus, worker: str, deltas: int, probe: Probe, cpu: list[float], rate: float = 0) -> None:
    emitted = probe.emitted[worker]
    clock = time.perf_counter
    publish = bus.publish
    Delta = ev.ModelDelta
    started = time.thread_time()
    begin = clock()
    for i in range(deltas):
        if rate and i % 20 == 0:  # paced like a model: sleep to the schedule every 20 deltas
            wait = begin + i / rate - clock()
            if wait > 0:
                time.sleep(wait)
        emitted[i] = clock()
        publish(Delta(worker, "call-1", "content", LINE_END if i % 16 == 15 else WORD))
    cpu.append(time.thread_time() - started)


async def run(workers: int, deltas: int, rate: float = 0) -> dict:
    names = [f"worker-{i}" for i in range(1, workers + 1)]
    probe = Probe(names, deltas)
    install_probe(probe)
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as workspace:
        os.environ["PAICLI_HOME"] = home
        session = Session(Settings(provider="demo", workers=workers), Path(workspace))
        app = PaicliApp(session, remember_theme=False)
        plan = plan_from_dict(
            {"steps": [{"id": f"s{i}", "description": f"Step {i}", "type": "ANALYSIS"} for i in range(1, workers + 1)]},
            "step",
        )
        try:
            async with app.run_test(size=SIZE) as pilot:
                screen = RunScreen(plan, "bench", names, kind="team", on_cancel=session.cancel)
                await app.push_screen(screen)
                await pilot.pause()
                for i, name in enumerate(names, start=1):
                    session.bus.publish(ev.TaskDispatched(f"step_{i}", f"step_{i}", name))
                    session.bus.publish(ev.TaskStatusChanged(f"step_{i}", f"step_{i}", "RUNNING"))
                await pilot.pause(0.2)
                cpu: list[float] = []
                threads = [
                    threading.Thread(target=producer, args=(session.bus, name, deltas, probe, cpu, rate))
                    for name in names
                ]
                first = time.perf_counter()
                for thread in threads:
                    thread.start()
                total = workers * deltas
                # A paced run lasts deltas / rate by design: wait that long plus the margin.
                deadline = time.monotonic() + 120 + (deltas / rate if rate else 0)
                while sum(probe.arrived.values()) < total:
                    if time.monotonic() > deadline:
                        raise SystemExit(f"only {sum(probe.arrived.values())} of {total} deltas arrived")
                    await asyncio.sleep(0.01)
                for thread in threads:
                    thread.join()
                elapsed = probe.last_arrival - first
                # Sanity: the panes really hold the text, rendered as Markdown.
                await pilot.pause()
                for name in names:
                    pane = screen.pane(name)
                    assert pane.text.rstrip().endswith("tok:"), pane.text[-80:]
                # The answer paints its lines a few times a second at most
                # (worker_pane.py): its last words must be painted soon.
                deadline = time.monotonic() + 10

                def painted(name: str) -> bool:
                    pane = screen.pane(name)
                    if hasattr(pane, "painted_text"):  # one view painting lines
                        return pane.painted_text().rstrip().endswith("tok:")
                    answers = [e for e in pane.entries if hasattr(e, "rendered_text")]  # a widget per entry
                    return bool(answers) and answers[-1].rendered_text().rstrip().endswith("tok:")

                while not all(painted(name) for name in names):
                    if time.monotonic() > deadline:
                        raise SystemExit("the panes never painted their text")
                    await asyncio.sleep(0.05)
        finally:
            session.close()
    lat = sorted(probe.latencies)
    return {
        "deltas": total,
        "seconds": elapsed,
        "frames_with_writes": probe.writes,
        "deltas_per_s": total / elapsed,
        "p50_ms": 1000 * lat[len(lat) // 2],
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "mean_ms": 1000 * statistics.fmean(lat),
        "producer_us_per_delta": 1e6 * sum(cpu) / total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--deltas", type=int, default=20_000, help="deltas per worker")
    parser.add_argument("--rate", type=float, default=0, help="deltas per second per worker (0: as fast as possible)")
    args = parser.parse_args()
    result = asyncio.run(run(args.workers, args.deltas, args.rate))
    print(f"{result['deltas']:,} deltas from {args.workers} workers in {result['seconds']:.3f} s "
          f"({result['frames_with_writes']:,} pane writes)")
    print(f"absorbed:  {result['deltas_per_s']:>10,.0f} deltas/s   (target >= 50,000)")
    print(f"latency:   p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, mean {result['mean_ms']:.1f} ms"
          "   (target p99 <= 100 ms)")
    print(f"producer:  {result['producer_us_per_delta']:.2f} µs CPU per delta   (target <= 20 µs)")
    keys = ("deltas_per_s", "p50_ms", "p99_ms", "producer_us_per_delta")
    print(json.dumps({key: round(result[key], 3) for key in keys}))


if __name__ == "__main__":
    main()
