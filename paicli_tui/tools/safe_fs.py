"""Race-free file access inside the workspace (P-6.3).

``resolve_in_workspace`` checks a path by name, and a name can change between
the check and the use: a directory swapped for a symlink to ``/`` in that gap
used to lead the tools outside. Here the check and the use are one walk.
Every component is opened relative to the descriptor of the directory before
it, starting from a descriptor of the workspace root, with O_NOFOLLOW, so the
kernel never follows a symlink for us. A symlink met on the way is read with
readlink and its target walked from the root (absolute) or from where it
sits (relative); ".." pops the walk's own stack of descriptors, so neither
can climb above the root. Whatever the other process does, the walk either
sees a real directory and stays in it, or sees the symlink and judges it.

Needs O_NOFOLLOW, O_DIRECTORY and ``dir_fd`` (Linux, macOS). Not covered: a
hard link inside the workspace to an outside file (it is a regular file
here), and a directory moved out of the workspace while a walk holds its
descriptor (the walk finishes in it, wherever it now is).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from paicli_tui.tools.base import ToolError

#: Symlinks one walk may follow, as the kernel's own limit (MAXSYMLINKS).
MAX_SYMLINKS = 40
#: Walks retried when a name changes between looking at it and opening it.
ATTEMPTS = 8

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# Opening a symlink with O_NOFOLLOW fails with ELOOP (EMLINK on FreeBSD);
# with O_DIRECTORY some systems say ENOTDIR instead.
_SYMLINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})


class _Changed(Exception):
    """A name changed under the walk; the caller walks again."""


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    is_symlink: bool
    size: int | None


def open_file(workspace: Path, raw: str, shown: str, directory_hint: str = "") -> BinaryIO:
    """The regular file at ``raw`` opened for reading in binary mode."""
    def attempt(walk: _Walk) -> BinaryIO:
        name, found = walk.locate(create_dirs=False)
        _require(found, shown, directory_hint)
        fd = walk.open(name, _READ_FLAGS)
        try:
            _require(os.fstat(fd), shown, directory_hint)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
    return _retrying(workspace, raw, shown, attempt)


def stat_file(workspace: Path, raw: str, shown: str) -> os.stat_result | None:
    """What ``raw`` names, after in-workspace symlinks, or None if it (or a
    parent directory) does not exist yet."""
    def attempt(walk: _Walk) -> os.stat_result | None:
        try:
            return walk.locate(create_dirs=False)[1]
        except FileNotFoundError:
            return None
    return _retrying(workspace, raw, shown, attempt)


def replace_file(workspace: Path, raw: str, shown: str, data: bytes, *, mode: int | None = None) -> bool:
    """Write ``data`` to ``raw`` atomically, creating parent directories; the
    old file's mode is kept unless ``mode`` is given (an undo restores the
    mode it recorded). Returns whether a file was there before."""
    def attempt(walk: _Walk) -> bool:
        name, found = walk.locate(create_dirs=True)
        if found is not None:
            _require(found, shown)
        kept = stat.S_IMODE(found.st_mode) if found else None
        _replace(walk.top, name, data, mode if mode is not None else kept, shown)
        return found is not None
    return _retrying(workspace, raw, shown, attempt)


def remove_file(workspace: Path, raw: str, shown: str) -> bool:
    """Delete the regular file at ``raw`` (never what a symlink points to
    outside); False when there was none."""
    def attempt(walk: _Walk) -> bool:
        try:
            name, found = walk.locate(create_dirs=False)
        except FileNotFoundError:
            return False
        if found is None:
            return False
        _require(found, shown)
        os.unlink(name, dir_fd=walk.top)
        return True
    return _retrying(workspace, raw, shown, attempt)


def remove_empty_dir(workspace: Path, raw: str, shown: str) -> bool:
    """Remove the directory ``raw`` if it is empty; False when it is not
    empty, not a directory or not there."""
    def attempt(walk: _Walk) -> bool:
        try:
            name, found = walk.locate(create_dirs=False)
        except FileNotFoundError:
            return False
        if found is None or not stat.S_ISDIR(found.st_mode) or name in (".", ".."):
            return False
        try:
            os.rmdir(name, dir_fd=walk.top)
        except OSError:  # not empty (someone put a file there since), or busy
            return False
        return True
    return _retrying(workspace, raw, shown, attempt)


def list_dir(workspace: Path, raw: str, shown: str, limit: int) -> tuple[list[Entry], int]:
    """The first ``limit`` entries of the directory ``raw`` (directories
    first, then by name) and how many it has in all."""
    def attempt(walk: _Walk) -> tuple[list[Entry], int]:
        name, found = walk.locate(create_dirs=False)
        if found is None:
            raise FileNotFoundError
        if not stat.S_ISDIR(found.st_mode):
            raise ToolError(f"{shown} is a file, not a directory; use read_file")
        fd = walk.open(name, _DIR_FLAGS)
        try:
            with os.scandir(fd) as scan:
                # (not a directory, name, is a symlink): directories sort first
                rows = sorted((not e.is_dir(follow_symlinks=False), e.name, e.is_symlink()) for e in scan)
            return [Entry(entry, not other, link, None if link or not other else _size(fd, entry))
                    for other, entry, link in rows[:limit]], len(rows)
        finally:
            os.close(fd)
    return _retrying(workspace, raw, shown, attempt)


def _retrying(workspace: Path, raw: str, shown: str, attempt):
    if "\0" in raw:
        raise ToolError(f"refused: path {raw!r} contains a NUL byte")
    parts = _relative_parts(workspace, raw)
    for _ in range(ATTEMPTS):
        try:
            with _Walk(workspace, raw, parts) as walk:
                return attempt(walk)
        except _Changed:
            continue
        except FileNotFoundError:
            raise ToolError(f"{shown} does not exist") from None
        # Any other OSError (a file where a directory should be, no
        # permission) goes to the registry, which names the tool and the entry.
    raise ToolError(f"refused: path {raw!r} kept changing while it was being opened")


def _relative_parts(workspace: Path, raw: str) -> tuple[str, ...]:
    root = workspace.resolve()
    path = PurePosixPath(raw)
    if not path.is_absolute():
        return path.parts
    for base in (root, Path(os.path.abspath(workspace))):
        if path.parts[:len(base.parts)] == base.parts:
            return path.parts[len(base.parts):]
    # Only names come from realpath here: the walk checks each one again.
    real = Path(os.path.realpath(raw))
    if real == root or real.is_relative_to(root):
        return real.relative_to(root).parts
    raise ToolError(f"refused: path {raw!r} is outside the workspace")


def _require(found: os.stat_result | None, shown: str, directory_hint: str = "") -> None:
    if found is None:
        raise FileNotFoundError
    if stat.S_ISDIR(found.st_mode):
        raise ToolError(f"{shown} is a directory{directory_hint}")
    if not stat.S_ISREG(found.st_mode):  # a FIFO or device would block or never end
        raise ToolError(f"{shown} is not a regular file")


def _size(dir_fd: int, name: str) -> int | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_size
    except OSError:
        return None


def _replace(dir_fd: int, name: str, data: bytes, mode: int | None, shown: str) -> None:
    """Write a temp file beside ``name`` and rename it over ``name``, both in
    ``dir_fd``: readers never see half a file, a crash leaves the old one,
    and the rename replaces the entry itself, never a symlink's target."""
    for _ in range(100):
        temp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temp, _TEMP_FLAGS, 0o666 if mode is None else 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise ToolError(f"cannot write {shown}: no free temporary name beside it")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


class _Walk:
    """One walk from the workspace root: a stack of open directory
    descriptors (the root at the bottom, the current directory on top)."""

    def __init__(self, workspace: Path, raw: str, parts: tuple[str, ...]) -> None:
        self.root = workspace.resolve()
        self.given = Path(os.path.abspath(workspace))
        self.raw = raw
        self.pending = list(reversed(parts))  # pop() gives the next component
        self.links = 0
        self.last_link = ""
        self.stack = [os.open(self.root, _DIR_FLAGS)]

    def __enter__(self) -> _Walk:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.stack:
            os.close(fd)
        self.stack.clear()

    @property
    def top(self) -> int:
        return self.stack[-1]

    def locate(self, create_dirs: bool) -> tuple[str, os.stat_result | None]:
        """Walks to the last component, following in-workspace symlinks all
        the way, and returns its name in ``top`` with its lstat (None when it
        does not exist). Missing parents are made when ``create_dirs``."""
        while True:
            name = self._enter_all_but_last(create_dirs)
            try:
                found = os.stat(name, dir_fd=self.top, follow_symlinks=False)
            except FileNotFoundError:
                return name, None
            if not stat.S_ISLNK(found.st_mode):
                return name, found
            self._follow(name)

    def open(self, name: str, flags: int) -> int:
        """``name`` in ``top`` opened without following a symlink; one that
        appeared since ``locate`` looked means walking again."""
        try:
            return os.open(name, flags, dir_fd=self.top)
        except OSError as exc:
            if exc.errno in _SYMLINK_ERRNOS:
                raise _Changed from None
            raise

    def _enter_all_but_last(self, create_dirs: bool) -> str:
        while self.pending:
            part = self.pending.pop()
            if part == "..":
                self._up()
            elif not self.pending:
                return part
            else:
                self._enter(part, create_dirs)
        return "."

    def _enter(self, part: str, create_dirs: bool) -> None:
        try:
            self.stack.append(os.open(part, _DIR_FLAGS, dir_fd=self.top))
        except FileNotFoundError:
            if not create_dirs:
                raise
            try:
                os.mkdir(part, 0o777, dir_fd=self.top)
            except FileExistsError:
                pass  # made by someone else meanwhile: look at it again
            self._again(part)
        except OSError as exc:
            if exc.errno not in _SYMLINK_ERRNOS:
                raise
            mode = self._lstat_mode(part)
            if stat.S_ISLNK(mode):
                self._follow(part)
            elif exc.errno == errno.ENOTDIR and mode and not stat.S_ISDIR(mode):
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), part) from None
            else:  # it changed between the open and the look
                self._again(part)

    def _follow(self, name: str) -> None:
        """Replace the symlink ``name`` in ``top`` by its target's components."""
        self._count()
        try:
            target = os.readlink(name, dir_fd=self.top)
        except OSError:  # no longer a symlink
            self.pending.append(name)
            return
        path = PurePosixPath(target)
        self.last_link = f"{name} -> {target}"
        if not target:
            raise ToolError(f"refused: path {self.raw!r} goes through an empty symlink ({name})")
        if path.is_absolute():
            inside = self._inside(target)
            if inside is None:
                raise self._escape()
            while len(self.stack) > 1:
                os.close(self.stack.pop())
            self.pending.extend(reversed(inside))
        else:
            self.pending.extend(reversed(path.parts))

    def _inside(self, target: str) -> tuple[str, ...] | None:
        parts = PurePosixPath(target).parts
        for base in (self.root, self.given):
            if parts[:len(base.parts)] == base.parts:
                return parts[len(base.parts):]  # a ".." left in it is checked by _up
        real = Path(os.path.realpath(target))  # names only; the walk checks each again
        return real.relative_to(self.root).parts if real == self.root or real.is_relative_to(self.root) else None

    def _up(self) -> None:
        if len(self.stack) == 1:
            raise self._escape()
        os.close(self.stack.pop())

    def _again(self, part: str) -> None:
        self._count()
        self.pending.append(part)

    def _count(self) -> None:
        self.links += 1
        if self.links > MAX_SYMLINKS:
            raise ToolError(f"refused: path {self.raw!r} has too many levels of symlinks (or keeps changing)")

    def _lstat_mode(self, part: str) -> int:
        try:
            return os.stat(part, dir_fd=self.top, follow_symlinks=False).st_mode
        except OSError:
            return 0

    def _escape(self) -> ToolError:
        if self.last_link:
            return ToolError(f"refused: path {self.raw!r} resolves outside the workspace through a symlink "
                             f"({self.last_link})")
        return ToolError(f"refused: path {self.raw!r} is outside the workspace")
