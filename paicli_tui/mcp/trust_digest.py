"""What agreeing to a workspace's ``.mcp.json`` covers, as one digest and
as words for the person.

The file's bytes are not all a server depends on: a server started as
``python server.py`` runs whatever ``server.py`` holds now, and ``node`` is
whatever ``PATH`` finds. The digest covers the file, each server's resolved
program and the content of every workspace script it starts, so a change to
any of them asks again."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Iterable

from paicli_tui.config.secret_names import looks_like_secret_name

#: A larger file named on the command line is hashed by size only.
MAX_SCRIPT_BYTES = 16 * 1024 * 1024
#: Bumped when what the digest covers changes: older agreements ask again.
DIGEST_VERSION = "2"


def script_hashes(command: str, args: Iterable[str], cwd: str, workspace: Path) -> tuple[tuple[str, str], ...]:
    """(word, sha256) for every command word that is a regular file inside
    the workspace: the scripts the server runs."""
    root = workspace.resolve()
    found = []
    for word in (command, *args):
        if not word or word.startswith("-"):
            continue
        path = (Path(cwd or root) / word).resolve()
        try:
            if not path.is_relative_to(root) or not path.is_file():
                continue
            digest = hashlib.sha256()
            with open(path, "rb") as handle:
                if path.stat().st_size > MAX_SCRIPT_BYTES:
                    digest.update(f"size:{path.stat().st_size}".encode())
                else:
                    digest.update(handle.read())
        except OSError:
            continue
        found.append((word, digest.hexdigest()))
    return tuple(found)


def trust_digest(raw: bytes, specs) -> str:
    servers = [{"name": s.name, "command": s.command, "program": shutil.which(s.command) or "" if s.command else "",
                "args": list(s.args), "cwd": s.cwd, "env": sorted(name for name, _ in s.env), "url": s.url,
                "headers": sorted(name for name, _ in s.headers), "scripts": [list(p) for p in s.scripts]}
               for s in specs]
    canonical = json.dumps({"version": DIGEST_VERSION, "file": hashlib.sha256(raw).hexdigest(), "servers": servers},
                           sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def grants_text(spec) -> str:
    """What starting this server hands over, in one line: the program, the
    environment variables it is given (secrets marked) and its scripts."""
    parts = []
    if spec.transport == "stdio":
        program = shutil.which(spec.command) or spec.command
        parts.append(f"runs {program}")
    names = []
    for name, value in spec.env:
        secret = looks_like_secret_name(name) or value in spec.secrets
        names.append(f"{name} (secret)" if secret else name)
    if names:
        parts.append("gets " + ", ".join(names))
    else:
        parts.append("gets no variables beyond PATH, HOME, USER, SHELL, TERM, LOGNAME")
    for word, digest in spec.scripts:
        parts.append(f"script {word} sha256 {digest[:12]}")
    if spec.headers:
        parts.append("sends headers " + ", ".join(name for name, _ in spec.headers))
    return "; ".join(parts)
