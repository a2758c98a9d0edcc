"""Which commands a ``network: allow`` rule lets reach the network.

The sandbox gives a command the network or not, all or nothing: a host rule
cannot filter connections (that needs a proxy), so it lets a command through
only when the command is one plain program and every URL or ``user@host:``
address in it names the rule's host or a subdomain of it. A command naming
no host at all is not covered by a host rule.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from typing import TYPE_CHECKING

from paicli_tui.policy.command_split import single_command_words

if TYPE_CHECKING:
    from paicli_tui.policy.grants import Grant

#: ``git@github.com:owner/repo`` and ``user@host:path`` (scp, rsync, git).
_SCP_ADDRESS = re.compile(r"^(?:[\w.+-]+@)([A-Za-z0-9.-]+):")


def covers_network(rule: "Grant", command: str) -> bool:
    words = single_command_words(command)
    if words is None:
        return False
    if rule.kind == "network_command":
        prefix = rule.pattern.split(" ")
        words = [os.path.basename(words[0]), *words[1:]]
        return words[: len(prefix)] == [os.path.basename(prefix[0]), *prefix[1:]]
    if rule.kind == "network_host":
        hosts = named_hosts(words)
        return bool(hosts) and all(_within(host, rule.pattern) for host in hosts)
    return False


def named_hosts(words: list[str]) -> list[str]:
    """The hosts the words address: in URLs (also as ``--opt=URL``) and in
    ``user@host:path`` addresses."""
    hosts = []
    for word in words:
        for part in (word, word.partition("=")[2]):
            if "://" in part:
                try:
                    host = urlsplit(part).hostname
                except ValueError:
                    host = None
                hosts.append((host or "").lower())
                break
            if match := _SCP_ADDRESS.match(part):
                hosts.append(match.group(1).lower())
                break
    return hosts


def _within(host: str, allowed: str) -> bool:
    return bool(host) and (host == allowed or host.endswith("." + allowed))
