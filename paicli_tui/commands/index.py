"""`paicli index`: build or refresh the workspace's code index (P-9.4).

Prints a progress line while it works (rewritten in place on a terminal,
one line every few seconds otherwise) and the report at the end; exits 0
once the index is up to date, 1 when it could not be built, 130 on Ctrl+C
(the batches written so far stay: the next run goes on from there)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from paicli_tui.commands.common import CommandError, fail, load_or_fail, workspace_from_args

#: Seconds between progress lines when stdout is not a terminal.
PIPE_PROGRESS_S = 2.0


class ProgressLine:
    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty()
        self._last = 0.0
        self._width = 0

    def __call__(self, step) -> None:
        text = f"indexing: {step.done}/{step.total} files"
        if self.live:
            shown = f"{text}  {step.path}"[:100]
            self.stream.write("\r" + shown.ljust(self._width))
            self._width = len(shown)
            self.stream.flush()
            return
        now = time.monotonic()
        if now - self._last >= PIPE_PROGRESS_S or step.done == step.total:
            self._last = now
            print(text, file=self.stream, flush=True)

    def end(self) -> None:
        if self.live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()


def main(args: argparse.Namespace) -> int:
    from paicli_tui.knowledge.codeindex.indexer import IndexBuildError
    from paicli_tui.knowledge.service import Knowledge
    from paicli_tui.knowledge.memory.database import DatabaseError

    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    try:
        workspace = workspace_from_args(args)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    knowledge = Knowledge(workspace, settings=settings)
    progress = ProgressLine() if not args.json else None
    try:
        report = knowledge.build_index(progress=progress, on_wait=lambda: print(
            "paicli: another paicli index is running for this workspace; waiting", file=sys.stderr, flush=True))
    except (IndexBuildError, DatabaseError) as exc:
        return fail(str(exc), 1)
    finally:
        if progress is not None:
            progress.end()
        knowledge.close()
    if args.json:
        fields = {k: v for k, v in vars(report).items() if k not in ("parsed_paths", "removed_paths")}
        print(json.dumps({**fields, "duration_s": round(report.duration_s, 3), "database": str(knowledge.db.path)}))
    else:
        print(report.line())
    return 0
