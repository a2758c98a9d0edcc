"""The protocol's own copy of stdin and stdout. One stray ``print`` (ours, a
library's, a child process's) on the protocol's stdout would corrupt the
JSON-RPC stream, so the protocol gets private duplicates of fds 0 and 1 and
everything else sees fd 1 pointing at stderr and fd 0 at /dev/null. The
duplicates are not inheritable (PEP 446): a command or hook never holds the
editor's pipes open."""

from __future__ import annotations

import asyncio
import os
import sys

#: Longest protocol line read (an embedded file can be large).
LINE_LIMIT = 50 * 2**20


async def protected_stdio() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    protocol_out = os.dup(1)
    protocol_in = os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(protocol_in, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(protocol_out, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
