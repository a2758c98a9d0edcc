"""Command-line entry point.

Only argparse and the settings loader are imported up front: commands that
don't open the UI never import Textual, and each handler module is imported
when its command runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from paicli_tui import __version__


def _executor_flags(parser: argparse.ArgumentParser, *, default: str) -> None:
    parser.add_argument("--executor", choices=["local", "ray"],
                        help="where /plan tasks and /team steps run: here or on a Ray cluster (pip install "
                             f"'paicli-tui[ray]'; docs/executors.md); default: {default}")
    parser.add_argument("--ray-address", metavar="ADDR",
                        help="with --executor ray: auto, HOST:PORT or ray://HOST:10001 (default: start a local Ray "
                             "on 127.0.0.1)")


def _model_flags(parser: argparse.ArgumentParser, *, sub: bool = False) -> None:
    # On a subcommand the defaults are suppressed so `paicli --model X run`
    # keeps X instead of being reset by the subparser's own default.
    kw = {"default": argparse.SUPPRESS} if sub else {}
    group = parser.add_argument_group("model")
    group.add_argument("--provider", help="preset: openai, deepseek, glm, ollama, llamacpp, openrouter, vllm, lmstudio, custom (docs/providers.md)", **kw)
    group.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1", **kw)
    group.add_argument("--model", help="model name sent to the server", **kw)
    group.add_argument("--api-key-env", metavar="VAR", help="name of the environment variable holding the API key", **kw)
    group.add_argument("--demo", action="store_true", help="use the built-in offline demo model (no network, no key)", **kw)
    parser.add_argument("--workspace", "-w", metavar="DIR", help="project folder the agent works in (default: current)", **kw)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paicli",
        description="Terminal coding agent: plan, review, and run parallel sub-agents in a full-screen UI.",
        epilog="Two choices, made apart: what runs (in the app a goal, /plan GOAL or /team GOAL; on the command "
               "line `paicli run --mode react|plan|team`), and when a tool call asks you first (the app's AUTO / ASK "
               "/ PLAN mode, cycled with Shift+Tab, where PLAN also sends plain input through /plan; on the command "
               "line `--approval auto|ask|plan`, or --yes to approve everything).",
    )
    parser.add_argument("--version", action="version", version=f"paicli {__version__}")
    _model_flags(parser)
    parser.add_argument("--plan-file", metavar="FILE", help="open the review screen on a saved plan")
    parser.add_argument("--theme", help="theme name (remembered when changed in the app)")
    goes_on = parser.add_mutually_exclusive_group()
    goes_on.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                         help="continue the last session of this workspace: its conversation and transcript")
    goes_on.add_argument("--resume", metavar="SESSION", dest="resume_session",
                         help="continue SESSION (an id from `paicli sessions`): its conversation and transcript")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run one goal without the full-screen UI")
    _model_flags(run, sub=True)
    run.add_argument("--mode", choices=["react", "plan", "team"], default=None,
                     help="react: one agent with tools (default); plan: a planner writes a task graph, tasks run in "
                          "parallel; team: workers do each step and a reviewer approves it. With --plan-file, the "
                          "mode the plan was saved from")
    run.add_argument("--yes", "-y", action="store_true", help="approve plans and tool calls without asking")
    run.add_argument("--json", action="store_true", help="print JSON events (one per line) instead of text")
    run.add_argument("--trust-mcp", action="store_true",
                     help="start the MCP servers of the workspace's .mcp.json this run without asking (nothing is "
                          "remembered; --yes alone never starts them)")
    run.add_argument("--trust-hooks", action="store_true",
                     help="run the hooks of the workspace's .paicli/config.toml this run without asking (nothing is "
                          "remembered; --yes alone never runs them)")
    run.add_argument("--schedule", choices=["ready", "batch"], help="plan scheduling policy")
    run.add_argument("--parallelism", type=int, help="tasks at once in /plan (default 4)")
    run.add_argument("--workers", type=int, help="team workers (default 2)")
    run.add_argument("--isolation", choices=["on", "off"],
                     help="/plan tasks and /team steps each work in their own tree, merged back in dependency order "
                          "(default on; docs/isolation.md)")
    run.add_argument("--on-conflict", choices=["rerun", "drop", "fail"],
                     help="when a task's work conflicts with work merged before it: rerun it on top (once, then "
                          "fail; the default), drop its changes, or fail it")
    run.add_argument("--apply", choices=["tree", "branch", "none"],
                     help="where an isolated run's result goes: your files (default), a paicli/<run> branch, or "
                          "nowhere")
    _executor_flags(run, default="here, or [executor] in config.toml")
    run.add_argument("--plan-file", metavar="FILE", help="run a saved plan without planning", default=argparse.SUPPRESS)
    run.add_argument("--approval", choices=["auto", "ask", "plan"],
                     help="when a tool call asks first: auto (reads and writes run, a risky command asks), ask (writes, "
                          "edits and commands ask), plan (as auto; in the app plain input goes through /plan)")
    limits = run.add_argument_group("budgets (an agent stops with a PARTIAL result; a run stops dispatching)")
    limits.add_argument("--max-turns", type=int, metavar="N", help="model calls per agent turn (default 50)")
    limits.add_argument("--max-tokens", type=int, metavar="N", help="tokens per agent turn")
    limits.add_argument("--max-seconds", type=float, metavar="S", help="wall time per agent turn")
    limits.add_argument("--run-max-turns", type=int, metavar="N", help="model calls for the whole run")
    limits.add_argument("--run-max-tokens", type=int, metavar="N", help="tokens for the whole run")
    limits.add_argument("--run-max-seconds", type=float, metavar="S", help="wall time for the whole run")
    limits.add_argument("--max-cost", type=float, metavar="USD", help="money per agent turn (needs a price for the model)")
    limits.add_argument("--run-max-cost", type=float, metavar="USD", help="money for the whole run")
    run.add_argument("goal", nargs="*", help="what to do")

    resume = sub.add_parser("resume", help="go on with an interrupted /plan or /team run (killed, cancelled or "
                                           "stopped by a budget): completed work is kept, not run again")
    _model_flags(resume, sub=True)
    resume.add_argument("session", nargs="?", help="session id or ledger path (default: --last)")
    resume.add_argument("--last", action="store_true", help="the newest interrupted run of this workspace")
    resume.add_argument("--yes", "-y", action="store_true", help="resume without asking; approve tool calls")
    resume.add_argument("--json", action="store_true", help="print JSON events (one per line) instead of text")
    _executor_flags(resume, default="where the interrupted run ran them")
    budgets = resume.add_argument_group("budgets (default: the run's own; the run goes on from what it spent)")
    budgets.add_argument("--run-max-turns", type=int, metavar="N", help="model calls for the whole run")
    budgets.add_argument("--run-max-tokens", type=int, metavar="N", help="tokens for the whole run")
    budgets.add_argument("--run-max-seconds", type=float, metavar="S", help="wall time for the whole run")

    acp = sub.add_parser("acp", help="serve editors (Zed, JetBrains, Toad) over the Agent Client Protocol on stdio",
                         description="An Agent Client Protocol agent on stdin/stdout for editors; see docs/acp.md. "
                                     "The editor starts it; stdout carries only the protocol, logs go to stderr.")
    _model_flags(acp, sub=True)

    plan = sub.add_parser("plan", help="plan utilities")
    plan_sub = plan.add_subparsers(dest="plan_command", metavar="PLAN_COMMAND", required=True)
    check = plan_sub.add_parser("check", help="check a plan file: ids, dependencies, types, no cycles; every problem listed")
    check.add_argument("file", help="plan file, or - for standard input")
    check.add_argument("--prefix", choices=["task", "step"], default="task", help="id prefix for renumbering")

    sessions = sub.add_parser("sessions", help="list past runs, one row per run under its session, newest first")
    sessions.add_argument("--json", action="store_true", help="one JSON object per session, for scripts")
    sessions.add_argument("--all", action="store_true", help="also list launches of the app that ran nothing")

    replay = sub.add_parser("replay", help="re-watch a past run from its ledger (no model calls)")
    replay.add_argument("session", help="session id or ledger path")
    speed = replay.add_mutually_exclusive_group()
    speed.add_argument("--speed", type=float, default=None, help="playback speed (1 = recorded pace)")
    speed.add_argument("--instant", action="store_true", help="no waiting between events")
    replay.add_argument("--text", action="store_true", help="print the run as text instead of opening the UI")

    verify = sub.add_parser("verify", help="check a past run against the engine's rules")
    verify.add_argument("session", help="session id or ledger path")
    verify.add_argument("--json", action="store_true", help="print the checks as one JSON object, for scripts")

    report = sub.add_parser("report", help="print a past run's report (tasks, verdicts, tokens, cost)")
    report.add_argument("session", help="session id or ledger path")
    form = report.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object per run, each task with its full result")
    form.add_argument("--markdown", action="store_true", help="a Markdown document to paste into a pull request")

    undo = sub.add_parser("undo", help="revert the file changes of the last run (or of RUN); shows the diff first")
    undo.add_argument("run", nargs="?", help="run id or number from --list (default: the newest run not undone)")
    undo.add_argument("--list", action="store_true", help="list the runs that changed files, newest first")
    undo.add_argument("--task", metavar="ID", help="only the changes of one /plan task or /team step of RUN")
    undo.add_argument("--yes", "-y", action="store_true", help="revert (without it, only show what would change)")
    undo.add_argument("--overwrite", action="store_true",
                      help="also revert files changed since by someone else (their later changes are lost)")
    undo.add_argument("--workspace", "-w", metavar="DIR", help="project folder (default: current)")

    index = sub.add_parser("index", help="build or refresh the code index of the workspace (search_code, /search, /graph)")
    _model_flags(index, sub=True)
    index.add_argument("--json", action="store_true", help="print the report as one JSON object")

    doctor = sub.add_parser("doctor", help="whether commands run in the OS sandbox here; what the model server is and "
                                           "offers: slots, context, tokenizer, tool calls, speed")
    _model_flags(doctor, sub=True)
    doctor.add_argument("--only", choices=("sandbox", "server"), help="check one part only")
    doctor.add_argument("--json", action="store_true", help="print the server's description as one JSON object")
    doctor.add_argument("--no-calls", action="store_true", help="only read the server's information endpoints")

    memory = sub.add_parser("memory", help="list, search, add, keep or delete the facts saved for the workspace")
    memory.add_argument("--workspace", "-w", metavar="DIR", default=argparse.SUPPRESS,
                        help="project folder whose facts these are (default: current)")
    memory_sub = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    listing = memory_sub.add_parser("list", help="the facts, newest first")
    searching = memory_sub.add_parser("search", help="facts matching the words, best first (exit 1: none)")
    searching.add_argument("query", nargs="+", help="words to look for")
    for action in (listing, searching):
        action.add_argument("--limit", type=int, default=50, help="most facts to print (default 50)")
    adding = memory_sub.add_parser("add", help="save a fact as yours")
    adding.add_argument("fact", nargs="+", help="the fact")
    deleting = memory_sub.add_parser("delete", help="delete facts by id (exit 1 when one does not exist)")
    deleting.add_argument("ids", nargs="+", type=int, metavar="ID", help="fact ids, as `list` shows them")
    keeping = memory_sub.add_parser("keep", help="keep facts agents saved in auto mode, waiting for your yes "
                                                 "(exit 1 when one is not waiting)")
    keeping.add_argument("ids", nargs="+", type=int, metavar="ID", help="fact ids, as `list` shows them")
    for action in (listing, searching, adding):
        action.add_argument("--json", action="store_true", help="one JSON object per fact")
    deleting.set_defaults(json=False)
    keeping.set_defaults(json=False)
    for action in (listing, searching, adding, deleting, keeping):
        action.add_argument("--workspace", "-w", metavar="DIR", default=argparse.SUPPRESS,
                            help="project folder whose facts these are (default: current)")
    return parser


#: command → module under paicli_tui.commands exposing ``main(args) -> int``
HANDLERS = {
    None: "tui",
    "run": "run",
    "acp": "acp",
    "resume": "resume",
    "plan": "plan_check",
    "sessions": "sessions",
    "replay": "replay",
    "verify": "verify",
    "report": "report",
    "undo": "undo",
    "index": "index",
    "memory": "memory",
    "doctor": "doctor",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # Before the slow imports: a Return typed while the app starts must stay a Return.
        from paicli_tui.commands import typeahead

        typeahead.hold()
        from paicli_tui.ui import startup_gc

        startup_gc.pause()  # until the first frame is drawn
    from paicli_tui.config.paths import ConfigError, check_dirs

    try:
        # The app and `run` write a ledger, `undo` its record of what it restored, index and memory
        # the database; the rest only read.
        check_dirs(create=args.command in (None, "run", "resume", "acp", "undo", "index", "memory"))
    except ConfigError as exc:
        print(f"paicli: {exc}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"paicli_tui.commands.{HANDLERS[args.command]}")
    try:
        code = int(module.main(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if args.command is None and argv is None:
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """The app has closed its session (the ledger is fsynced line by line,
    MCP servers and command groups are stopped): what is left is tearing
    down a large heap, joining idle threads and closing files, which the
    OS does at once. That teardown took most of a second after a long
    session, so the program ends here."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


#: What a shell reports for a writer killed by SIGPIPE (128 + 13), the
#: convention `yes | head` follows; scripts with pipefail see the same.
EXIT_STDOUT_CLOSED = 141


def _stdout_closed() -> int:
    """The reader of our stdout went away (`paicli sessions | head -1`):
    stop quietly. Pointing stdout at /dev/null keeps the interpreter's own
    flush at exit from raising a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return EXIT_STDOUT_CLOSED
