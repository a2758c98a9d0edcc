"""Client streaming throughput and CLI start-up time (issue 2).

1. A loopback server (tests/support/server.py, in its own process so it does
   not share our GIL) streams 100,000 chat.completion chunks. We time
   reading the raw SSE lines with httpx, then the real ChatClient (SSE
   decoding, JSON, accumulation, a Delta callback and a ModelDelta event
   per chunk). ``client_vs_raw`` = client throughput / raw throughput,
   target >= 0.5. Two server modes are measured:
     - "flush": one HTTP chunk written and flushed per event, as the
       loopback server (and real servers) stream: the headline number;
     - "body": the same stream pre-rendered and written in one go, so the
       socket delivers 64 KiB blocks and the raw side does almost no work
       per event. A stress figure: it isolates our per-chunk cost (JSON
       decoding alone costs about as much as the raw read of a chunk).
2. ``paicli --version`` wall time over ``python -c pass`` (medians), target <= 3.

The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHUNKS = 100_000
RUNS = 3


def serve(mode: str) -> None:
    """Child process: serve the stream until stdin closes."""
    from paicli_tui.llm.offline.scripted import Reply, sse_events
    from tests.support.server import LoopbackServer

    reply = Reply(content="tok " * CHUNKS, chunk_chars=4, usage=None)
    if mode == "body":
        reply = Reply(body=b"".join(sse_events(reply, "bench")).decode("utf-8"))
    with LoopbackServer(lambda request: reply) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def start_server(mode: str) -> tuple[subprocess.Popen, str]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def time_raw(base_url: str) -> tuple[float, int]:
    import httpx

    body = {"model": "bench", "messages": [], "stream": True}
    with httpx.Client(timeout=60) as http:
        started = time.perf_counter()
        lines = 0
        with http.stream("POST", base_url + "/chat/completions", json=body) as response:
            for line in response.iter_lines():
                lines += line.startswith("data:")
        return time.perf_counter() - started, lines


def time_client(base_url: str) -> tuple[float, int]:
    from paicli_tui.events import EventBus
    from paicli_tui.llm.client import ChatClient

    bus = EventBus("bench")
    bus.subscribe(lambda event: None)
    count = [0]

    def on_delta(delta) -> None:
        count[0] += 1

    with ChatClient(base_url=base_url, model="bench", bus=bus) as client:
        started = time.perf_counter()
        result = client.chat([{"role": "user", "content": "go"}], agent="bench", on_delta=on_delta)
        elapsed = time.perf_counter() - started
    assert len(result.content) == 4 * CHUNKS, len(result.content)
    return elapsed, count[0]


def stream_ratio(mode: str) -> float:
    child, base_url = start_server(mode)
    try:
        time_raw(base_url)  # warm up once
        raws, client_runs = [], []
        for _ in range(RUNS):  # interleaved, so background load hits both alike
            raws.append(time_raw(base_url)[0])
            client_runs.append(time_client(base_url))
        raw = min(raws)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
    client = min(elapsed for elapsed, _ in client_runs)
    deltas = client_runs[0][1]
    assert deltas >= CHUNKS, deltas
    print(f"[{mode:5}] raw httpx lines: {CHUNKS / raw:>10,.0f} chunks/s ({raw:.3f} s)")
    print(f"[{mode:5}] ChatClient:      {CHUNKS / client:>10,.0f} chunks/s ({client:.3f} s, {deltas:,} deltas)")
    ratio = raw / client
    print(f"[{mode:5}] client_vs_raw = {ratio:.2f} (target >= 0.5)")
    return ratio


def median_wall(command: list[str], runs: int = 9) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def startup_ratio() -> float:
    paicli = shutil.which("paicli")
    command = [paicli, "--version"] if paicli else [sys.executable, "-m", "paicli_tui", "--version"]
    median_wall(command, runs=2)  # warm the file cache
    baseline = median_wall([sys.executable, "-c", "pass"])
    version = median_wall(command)
    ratio = version / baseline
    print(f"python -c pass: {baseline * 1000:.0f} ms; paicli --version: {version * 1000:.0f} ms; "
          f"startup_ratio = {ratio:.2f} (target <= 3)")
    return ratio


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
        return
    headline = stream_ratio("flush")
    stream_ratio("body")
    startup = startup_ratio()
    print(json.dumps({"client_vs_raw": round(headline, 3), "startup_ratio": round(startup, 3)}))


if __name__ == "__main__":
    main()
