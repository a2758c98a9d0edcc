"""Running ripgrep (the ``ripgrep`` wheel's ``rg``): finding the binary, the
flags every search shares, and reading its output without ever blocking
past a cancel or a deadline.

ripgrep, not Python ``re``, runs model-supplied patterns: its regex engine
is linear in the input, so no pattern can freeze a search."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Iterator

from paicli_tui.tools.base import ToolContext, ToolError
from paicli_tui.tools.confinement import SKIP_DIRS

POLL_S = 0.05
"""How often a blocked read wakes up to look at cancel and the deadline."""
STDERR_CAP = 64 * 1024
CHUNK = 64 * 1024


def rg_binary() -> str:
    """The ``rg`` executable: on PATH, else next to this Python's scripts."""
    found = shutil.which("rg")
    if found:
        return found
    for scripts in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(scripts) / "rg"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise ToolError("ripgrep (rg) is not installed; install the 'ripgrep' package (pip install ripgrep==14.1.0)")


def common_flags() -> list[str]:
    """What every run shares: no user config (RIPGREPRC must not change
    results), hidden files included, symlinks never followed, and the
    directories nobody wants searched left out at any depth."""
    flags = ["--no-config", "--hidden", "--no-follow", "--color", "never"]
    for name in sorted(SKIP_DIRS):
        flags += ["--glob", f"!{glob_escape(name)}/"]
    return flags


def glob_escape(text: str) -> str:
    """``text`` as a literal inside an rg glob."""
    return "".join("\\" + char if char in "\\*?[]{}!" else char for char in text)


class RgProcess:
    """One rg run, read line by line from the caller's thread. Use it as a
    context manager: leaving the block kills rg if it is still running."""

    def __init__(self, args: list[str], cwd: Path, ctx: ToolContext, tool: str) -> None:
        self._ctx = ctx
        self._tool = tool
        env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
        self._proc = subprocess.Popen(
            [rg_binary(), *args], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self._stderr = bytearray()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def __enter__(self) -> "RgProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lines(self) -> Iterator[bytes]:
        """stdout lines (without the newline) until rg exits. Raises
        ToolStopped, after killing rg, on cancel or the deadline."""
        assert self._proc.stdout is not None and self._proc.stderr is not None
        selector = selectors.DefaultSelector()
        selector.register(self._proc.stdout, selectors.EVENT_READ, "out")
        selector.register(self._proc.stderr, selectors.EVENT_READ, "err")
        pending = b""
        try:
            while selector.get_map():
                self._check()
                for key, _ in selector.select(POLL_S):
                    data = os.read(key.fd, CHUNK)
                    if not data:
                        selector.unregister(key.fileobj)
                    elif key.data == "err":
                        self._stderr += data[: max(0, STDERR_CAP - len(self._stderr))]
                    else:
                        pending += data
                        *complete, pending = pending.split(b"\n")
                        yield from complete
                        self._check()
            if pending:
                yield pending
        finally:
            selector.close()
        self._wait()

    def _check(self) -> None:
        try:
            self._ctx.check_stop(self._tool)
        except ToolError:
            self.close()
            raise

    def _wait(self) -> None:
        # Both pipes are closed, so rg has exited or is about to; still,
        # never wait unbounded.
        while True:
            try:
                self._proc.wait(POLL_S)
                return
            except subprocess.TimeoutExpired:
                self._check()

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    @property
    def stderr(self) -> str:
        return self._stderr.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()


def unreadable_paths(stderr: str, cwd: Path) -> list[str]:
    """The paths rg could not read, from its ``rg: PATH: reason`` lines. The
    reason may itself hold ': ' and so may a path, so the path is the first
    prefix that names something on disk (else the text before the first ': ')."""
    paths = []
    for line in stderr.splitlines():
        if not line.startswith("rg: ") or ": " not in line[4:]:
            continue
        text = line[4:]
        cuts = [i for i in range(len(text)) if text.startswith(": ", i)]
        path = next((text[:i] for i in cuts if os.path.lexists(cwd / text[:i])), text[:cuts[0]])
        paths.append(path.removeprefix("./"))
    return paths


def fatal_error(stderr: str) -> str:
    """The line of a failed run's stderr that says why (rg prints a
    multi-line regex error whose last line starts with 'error:')."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error:"):
            return line.removeprefix("error:").strip()
    return lines[0].removeprefix("rg: ") if lines else "ripgrep failed"
