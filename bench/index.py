"""Code index bench (issue 18 item 5): speed, memory and search quality.

Part 1, scale. A generated 5,000-file repository (bench/index_repo.py:
Python, TypeScript, Go, Rust and Java modules that import and call each
other, fixed seed) is indexed from scratch through the real Indexer and
SQLite file: files/s, chunks, database size, and peak memory (VmHWM from
/proc/self/status, read after generating the tree and again after
indexing: the growth is what the index cost). Then a refresh with nothing
changed and one with 50 files edited, and the latency of 300 searches
(words, identifiers, phrases from the tree's vocabulary) and 100 graph
lookups: p50 and p99.

Part 2, quality. The source of a real open-source project, Textual (the UI
library paicli itself pins, so it is on every machine that runs paicli:
``textual==8.2.8``, copied out of site-packages), is indexed, and a fixed
set of questions a developer would ask about it, each with the file(s)
that answer it, is run two ways: search_code, and a grep baseline (the
same query words, case-insensitive, each file scored by how many distinct
words it contains, then by its number of matching lines, as `rg -c` counts
them). recall@5: the share of questions whose answer file is among the
first five distinct files. The ranking's bonuses were tuned while looking
at the first set (``tuned``); the second (``held_out``) was written after
and never tuned on.

The last line is one JSON object with the figures.

    python bench/index.py [--files 5000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from index_repo import VERBS, WORDS, generate  # noqa: E402

from paicli_tui.knowledge.codeindex.graph import symbol_graph  # noqa: E402
from paicli_tui.knowledge.codeindex.indexer import Indexer  # noqa: E402
from paicli_tui.knowledge.codeindex.search import search_code  # noqa: E402
from paicli_tui.knowledge.memory.database import Database  # noqa: E402
from paicli_tui.knowledge.memory.text_query import CODE_NOISE, query_terms  # noqa: E402
from paicli_tui.tools.rg import rg_binary  # noqa: E402

#: (question, files that answer it) about textual 8.2.8, paths inside the package.
QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("how are key bindings declared and looked up for a key press", ("binding.py",)),
    ("call a function repeatedly at an interval", ("timer.py",)),
    ("render a markdown document with headings and code fences", ("widgets/_markdown.py",)),
    ("table widget with rows, columns and a cursor that can be sorted", ("widgets/_data_table.py",)),
    ("expand and collapse nodes of a tree control", ("widgets/_tree.py",)),
    ("fuzzy match the characters typed in the command palette", ("fuzzy.py", "command.py")),
    ("attribute that refreshes the widget when its value changes", ("reactive.py",)),
    ("run work in a background thread and report its state", ("worker.py",)),
    ("dispatch queued messages to their handler methods", ("message_pump.py",)),
    ("parse a colour from a hex string or rgb()", ("color.py",)),
    ("single line text entry with a cursor and selection", ("widgets/_input.py",)),
    ("multi-line editor with syntax highlighting", ("widgets/_text_area.py",)),
    ("work out which widget is visible in which region of the screen", ("_compositor.py",)),
    ("easing curves for animations", ("_easing.py",)),
    ("check what the user typed with validators", ("validation.py",)),
    ("theme colours and the design variables derived from them", ("theme.py", "design.py")),
    ("names of keyboard keys and their aliases", ("keys.py",)),
    ("select widgets in the DOM with a CSS selector query", ("css/query.py",)),
    ("list of options with one highlighted", ("widgets/_option_list.py",)),
    ("progress bar showing percentage and estimated time left", ("widgets/_progress_bar.py",)),
    ("press keys and click in tests of an app", ("pilot.py",)),
    ("read terminal input on linux and put the terminal in raw mode", ("drivers/linux_driver.py",)),
    ("place widgets in rows and columns of a grid", ("layouts/grid.py",)),
    ("parse a stylesheet into rules and declarations", ("css/parse.py", "css/stylesheet.py", "css/tokenize.py")),
    ("toast notifications that time out", ("widgets/_toast.py", "notifications.py")),
)
#: Written after the ranking was tuned on QUESTIONS and never tuned on:
#: the honest figure for questions the ranking has not seen.
HELD_OUT: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scroll a container so that a widget becomes visible", ("widget.py", "scroll_view.py")),
    ("switch that toggles on and off", ("widgets/_switch.py",)),
    ("tabs that show one pane of content at a time", ("widgets/_tabbed_content.py", "widgets/_tabs.py")),
    ("widget that appends lines of log text", ("widgets/_log.py", "widgets/_rich_log.py")),
    ("regions, offsets and sizes on the screen", ("geometry.py",)),
    ("a line of segments that is cropped and padded when rendering", ("strip.py",)),
    ("copy text to the system clipboard", ("app.py",)),
    ("browse the files and folders on disk as a tree", ("widgets/_directory_tree.py",)),
    ("choose one value from a dropdown", ("widgets/_select.py",)),
    ("turn terminal escape sequences into key events", ("_xterm_parser.py", "_ansi_sequences.py")),
    ("spinner shown while something loads", ("widgets/_loading_indicator.py",)),
    ("modal screen that returns a result when it is dismissed", ("screen.py",)),
)


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def scale(root: Path, count: int) -> dict:
    repo = root / "repo"
    modules = generate(repo, count)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    before = vm_hwm_mb()
    db = Database(root / "scale.sqlite3")
    started, cpu = time.perf_counter(), time.process_time()
    report = Indexer(db, repo).build()
    index_s, index_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    after = vm_hwm_mb()
    noop = Indexer(db, repo).build()
    rng = random.Random(7)
    for module in rng.sample(modules, 50):
        path = repo / module.path
        path.write_text(path.read_text() + "\n// edited for the refresh bench\n")
    edited = Indexer(db, repo).build()
    queries = _queries(modules, rng)
    search_ms, search_cpu_ms = [], []
    for query in queries:
        t, c = time.perf_counter(), time.process_time()
        search_code(db, query, limit=8)
        search_ms.append((time.perf_counter() - t) * 1000)
        search_cpu_ms.append((time.process_time() - c) * 1000)
    names = [rng.choice(m.functions) for m in rng.sample(modules, 100)]
    graph_ms = []
    for name in names:
        t = time.perf_counter()
        symbol_graph(db, name)
        graph_ms.append((time.perf_counter() - t) * 1000)
    size = sum(p.stat().st_size for p in root.glob("scale.sqlite3*"))
    return {
        "files": report.files, "chunks": report.chunks, "symbols": report.symbols,
        "index_s": round(index_s, 2), "files_per_s": round(report.files / index_s, 1),
        # On a shared machine the wall clock waits for the CPU: this is the work itself.
        "index_cpu_s": round(index_cpu_s, 2), "files_per_cpu_s": round(report.files / index_cpu_s, 1),
        "db_mb": round(size / 2**20, 1),
        "vmhwm_mb_before": round(before, 1), "vmhwm_mb_after": round(after, 1),
        "vmhwm_growth_mb": round(after - before, 1),
        "refresh_unchanged_s": round(noop.duration_s, 2),
        "refresh_50_edited_s": round(edited.duration_s, 2), "refresh_parsed": len(edited.parsed_paths),
        "search_p50_ms": round(statistics.median(search_ms), 2), "search_p99_ms": round(percentile(search_ms, 0.99), 2),
        "search_cpu_p50_ms": round(statistics.median(search_cpu_ms), 2),
        "search_cpu_p99_ms": round(percentile(search_cpu_ms, 0.99), 2),
        "graph_p50_ms": round(statistics.median(graph_ms), 2), "graph_p99_ms": round(percentile(graph_ms, 0.99), 2),
        "queries": len(queries),
    }


def _queries(modules, rng: random.Random) -> list[str]:
    queries = []
    for _ in range(100):
        queries.append(f"{rng.choice(VERBS)} {rng.choice(WORDS)}")
    for _ in range(100):
        module = rng.choice(modules)
        queries.append(rng.choice(module.functions + [module.class_name]))
    for _ in range(100):
        queries.append(f"where do we {rng.choice(VERBS)} the {rng.choice(WORDS)} for a {rng.choice(WORDS)}")
    return queries


def quality(root: Path) -> dict:
    import textual

    source = Path(textual.__file__).parent
    project = root / "textual"
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    db = Database(root / "quality.sqlite3")
    report = Indexer(db, project).build()
    figures = {"project": f"textual {textual.__version__}", "files": report.files}
    for name, questions in (("tuned", QUESTIONS), ("held_out", HELD_OUT)):
        ours = grep = 0
        misses = []
        for question, answers in questions:
            found = _top_files([hit.path for hit in search_code(db, question, limit=30)])
            baseline = _grep_top(project, question)
            ours += any(a in found for a in answers)
            grep += any(a in baseline for a in answers)
            if not any(a in found for a in answers):
                misses.append(question)
        figures[name] = {"questions": len(questions), "recall_at_5": round(ours / len(questions), 2),
                         "grep_recall_at_5": round(grep / len(questions), 2), "missed": misses}
    return figures


def _top_files(paths: list[str], k: int = 5) -> list[str]:
    return list(dict.fromkeys(paths))[:k]


def _grep_top(project: Path, question: str, k: int = 5) -> list[str]:
    words: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    for term in query_terms(question, noise=CODE_NOISE):
        out = subprocess.run([rg_binary(), "-c", "-i", "-F", "--no-config", "-g", "*.py", term, "."], cwd=project,
                             capture_output=True, text=True).stdout
        for row in out.splitlines():
            path, _, count = row.rpartition(":")
            path = path[2:] if path.startswith("./") else path
            words.setdefault(path, set()).add(term)
            lines[path] = lines.get(path, 0) + int(count)
    ranked = sorted(words, key=lambda p: (-len(words[p]), -lines[p], p))
    return ranked[:k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="paicli-index-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        figures = {"scale": scale(root, args.files), "quality": quality(root)}
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
