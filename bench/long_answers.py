"""Long answers in the transcript (P-7.6): the real paicli in a
pseudo-terminal asks three questions in a row; each answer streams ~6,000
characters of Markdown (paragraphs, lists, code fences, headings) into
the main screen's transcript. While each answer streams and lands, a
letter is typed into the prompt every 100 ms.

Measured, per tree:
- key echo: each letter from its write to the pty until the bytes that
  show it arrive (bench/pty_screen.py), over all three answers, p50 and
  p99 — the transcript's layouts and paints are what a key waits behind;
- CPU per answer: the process's CPU from the question's Enter until the
  answer's last line is on screen, averaged over the three; and that
  time itself (the stream takes 1.5 s: 150 chunks 10 ms apart).

The loopback model server runs in a process of its own (bench/server_apart.py).
``--before DIR`` measures another paicli tree in the same rounds,
alternating. The last line is one JSON object.

    python bench/long_answers.py [--rounds 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from pty_screen import PtyScreen  # noqa: E402
from server_apart import server_apart  # noqa: E402
from stream_cpu import markdown  # noqa: E402

from paicli_tui.llm.offline.scripted import Reply  # noqa: E402

QUESTIONS = 3
KEY_EVERY_S = 0.1


def answers():
    served = [0]

    def reply(request) -> Reply:
        served[0] += 1
        return Reply(content=markdown(served[0]), chunk_chars=40, chunk_delay=0.01)

    return reply


def run_tree(tree: Path, url: str, env: dict[str, str], work: Path, seed: int) -> dict[str, float]:
    env = {**env, "PYTHONPATH": str(tree), "PAICLI_HOME": str(work / f"home-{seed}")}
    argv = [sys.executable, "-m", "paicli_tui", "--base-url", url, "--model", "m", "-w", str(work / "project")]
    rng = random.Random(seed)
    echoes: list[float] = []
    cpu: list[float] = []
    waits: list[float] = []
    app = PtyScreen(argv, env=env, cwd=str(work))
    try:
        app.wait_for(lambda text: "type a goal" in text, 60)
        app.drain_for(0.5)
        for number in range(1, QUESTIONS + 1):
            app.send(f"question {number}".encode())
            app.wait_for(lambda text: f"question {number}" in text, 10)
            cpu0, asked = app.cpu(), time.perf_counter()
            app.send(b"\r")
            typed = ""
            marker = f"END-W{number}"
            landed = None
            while landed is None or time.perf_counter() - landed < 1.0:
                letter = rng.choice(string.ascii_lowercase)
                # Unique enough on screen: the last few letters typed.
                probe = (typed + letter)[-6:]
                sent = time.perf_counter()
                app.send(letter.encode())
                typed += letter
                try:
                    arrived = app.wait_for(lambda text: probe in text, 5)
                    echoes.append(arrived - sent)
                except TimeoutError:
                    echoes.append(5.0)
                if landed is None and marker in app.text():
                    landed = time.perf_counter()
                    cpu.append(app.cpu() - cpu0)
                    waits.append(landed - asked)
                while time.perf_counter() < sent + KEY_EVERY_S:
                    app.pump(max(0.0, sent + KEY_EVERY_S - time.perf_counter()))
            app.send(b"\x15")  # Ctrl+U: the typed letters go; the next question starts clean
            app.drain_for(0.3)
            if typed[-6:] in app.text():
                app.send(b"\x7f" * len(typed))
                app.drain_for(0.3)
    finally:
        app.close()
    ordered = sorted(echoes)
    return {"echo_p50_ms": 1000 * statistics.median(ordered),
            "echo_p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
            "keys": len(ordered), "cpu_per_answer_s": statistics.mean(cpu), "landed_s": statistics.mean(waits)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another paicli tree to measure alongside")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="paicli-answers-"))
    (work / "project").mkdir()
    (work / "project" / "README.md").write_text("# Bench\n")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    env.update({"PAICLI_LOCAL_PROFILE": "off", "PAICLI_PROBE_SERVER": "false"})
    trees = {"ours": HERE.parent}
    if args.before:
        trees["before"] = args.before.resolve()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    seed = 0
    for round_ in range(args.rounds):
        names = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for name in names:
            seed += 1
            with server_apart(answers()) as server:
                figures = run_tree(trees[name], server.url, env, work, seed)
            results[name].append(figures)
            print(f"round {round_ + 1} {name}: key echo p50 {figures['echo_p50_ms']:.0f} ms "
                  f"p99 {figures['echo_p99_ms']:.0f} ms ({figures['keys']} keys), "
                  f"CPU {figures['cpu_per_answer_s']:.2f} s per answer, on screen {figures['landed_s']:.1f} s "
                  f"after Enter · load {os.getloadavg()[0]:.1f}", flush=True)
    out: dict[str, object] = {"load": round(os.getloadavg()[0], 1)}
    for name, runs in results.items():
        out[f"echo_{name}_p50_ms"] = round(statistics.median(r["echo_p50_ms"] for r in runs), 1)
        out[f"echo_{name}_p99_ms"] = round(statistics.median(r["echo_p99_ms"] for r in runs), 1)
        out[f"cpu_{name}_s_per_answer"] = round(statistics.median(r["cpu_per_answer_s"] for r in runs), 3)
        out[f"landed_{name}_s"] = round(statistics.median(r["landed_s"] for r in runs), 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
