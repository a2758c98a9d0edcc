"""Keeping the secrets a session knows out of everything it prints or records.

A session owns one ``Redactor``. It knows the secret values — the configured
API key and the values of credential-looking environment variables — and
its EventBus passes every event through ``filter`` before any subscriber
sees it, so the ledger, the text and JSON printers and the UI all get the
same redacted events. The session also scrubs the run outcome (the final
report) and the tool registry scrubs tool results before the model sees
them. Engine logic never reads events, so nothing depends on the raw text.

Streamed deltas are checked with a substring test only; when a delta ends
with the first characters of a secret, those characters are held back until
the next delta shows whether the secret completes, so a key split across two
deltas is caught too.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from paicli_tui.events import Event, ModelDelta, SecretsRedacted
from paicli_tui.config.secret_names import credential_variables, looks_like_secret_name

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.types import ToolCall
    from paicli_tui.tools.base import ToolContext, ToolResult

REDACTED = "[REDACTED]"
#: The configured API key is redacted from 4 characters on: shorter values
#: are placeholders ("x", "no") a local server ignores, and replacing every
#: "x" would make the output unreadable.
MIN_KEY_CHARS = 4
#: Other credential variables count from 8 characters, so a flag such as
#: ``FOO_TOKEN=1`` does not blank every "1".
MIN_ENV_SECRET_CHARS = 8
#: Open streams with held-back text; more means streams ended without a
#: response event, and their leftovers are dropped.
MAX_PENDING_STREAMS = 256

# Secret shapes in tool results (only with ``redact_tool_secrets``).
_PRIVATE_KEY = re.compile(
    r"(-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----)[\s\S]*?(?:(-----END \2PRIVATE KEY-----)|(?=\n[ \t]*\n)|\Z)")
#: ``NAME=value`` / ``NAME: value`` lines (.env, shell, YAML) and JSON pairs;
#: the name decides, by the same rules as the command environment.
_ASSIGNMENT = re.compile(
    r"(?m)^([ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:][ \t]*)(\"[^\"\n]+\"|'[^'\n]+'|[^\s#\"']+)")
_JSON_PAIR = re.compile(r'("([A-Za-z_][A-Za-z0-9_.-]*)"[ \t]*:[ \t]*)("[^"\n]+")')
#: A value that is code (``os.environ["X"]``, ``$X``), not a literal secret.
_CODE_VALUE = re.compile(r"^[\"']?(?:\$|[A-Za-z_][\w.]*[\[(])")
_URL_PASSWORD = re.compile(r"([a-z][a-z0-9+.-]*://[^/\s:@]+:)[^/\s@]+(?=@)")
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_-])(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{30,}"
    r"|npm_[A-Za-z0-9]{36}|AIza[0-9A-Za-z_-]{35}|eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,})(?![A-Za-z0-9_-])")


def redact_secret_shapes(text: str) -> tuple[str, list[str]]:
    """``text`` with private keys, secret assignments, URL passwords and
    token-shaped strings replaced; and one kind name per replacement."""
    kinds: list[str] = []

    def private_key(match: re.Match) -> str:
        kinds.append("private key")
        return f"{match.group(1)}\n{REDACTED}\n" + (match.group(3) or "")

    def assignment(match: re.Match) -> str:
        name, value = match.group(2), match.group(3)
        if not looks_like_secret_name(name) or _CODE_VALUE.match(value) or REDACTED in value:
            return match.group(0)
        kinds.append(f"{name} value")
        quote = value[0] if value[0] in "\"'" else ""
        return f"{match.group(1)}{quote}{REDACTED}{quote}"

    def token(match: re.Match) -> str:
        kinds.append("token")
        return REDACTED

    def url_password(match: re.Match) -> str:
        kinds.append("URL password")
        return match.group(1) + REDACTED

    text = _PRIVATE_KEY.sub(private_key, text)
    text = _ASSIGNMENT.sub(assignment, text)
    text = _JSON_PAIR.sub(assignment, text)
    text = _URL_PASSWORD.sub(url_password, text)
    text = _TOKEN.sub(token, text)
    return text, kinds


class Redactor:
    def __init__(self, secrets: Iterable[str] = (), *, patterns: bool = False) -> None:
        unique = {s for s in secrets if s and s.strip()}
        # Longest first, so a secret containing another is replaced whole.
        self.secrets: tuple[str, ...] = tuple(sorted(unique, key=len, reverse=True))
        self.patterns = patterns
        """Whether tool results are also searched for secret shapes (.env
        values, private keys, tokens): the ``redact_tool_secrets`` setting."""
        self._pending: dict[tuple, str] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_session(cls, settings: "Settings", environ: Mapping[str, str] | None = None) -> "Redactor":
        environ = os.environ if environ is None else environ
        # A path (GOOGLE_APPLICATION_CREDENTIALS=/home/u/key.json) points at a
        # secret and is not one: redacting it would blank paths everywhere.
        secrets = [environ[name] for name in credential_variables(environ)
                   if len(environ[name]) >= MIN_ENV_SECRET_CHARS and not environ[name].startswith(("/", "~", "./"))]
        key = settings.resolved().api_key()
        if key and len(key) >= MIN_KEY_CHARS:
            secrets.append(key)
        return cls(secrets, patterns=settings.redact_tool_secrets)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    # -- text and values ---------------------------------------------------------

    def contains(self, text: str) -> bool:
        return any(secret in text for secret in self.secrets)

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def at_rest(self, text: str) -> str:
        """``text`` as it may be stored on disk (checkpoints, undo records):
        known secrets and every secret shape replaced, whatever ``patterns``."""
        return redact_secret_shapes(self.text(text))[0]

    def scrub(self, value: Any) -> Any:
        """``value`` with every known secret replaced, in strings, dicts,
        lists, tuples and dataclasses; the same object when nothing changed."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value) if self.contains(value) else value
        if isinstance(value, dict):
            pairs = [(self.scrub(k), self.scrub(v)) for k, v in value.items()]
            if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items())):
                return value
            return dict(pairs)
        if isinstance(value, (list, tuple)):
            items = [self.scrub(item) for item in value]
            if all(a is b for a, b in zip(items, value)):
                return value
            return type(value)(items) if isinstance(value, list) or type(value) is tuple else value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                if not f.init:
                    continue
                old = getattr(value, f.name)
                new = self.scrub(old)
                if new is not old:
                    changes[f.name] = new
            return dataclasses.replace(value, **changes) if changes else value
        return value

    def tool_result(self, result: "ToolResult", ctx: "ToolContext", call: "ToolCall") -> "ToolResult":
        """``result`` without the known secrets (and, with ``patterns``,
        without secret shapes) before it is recorded or sent to the model.
        A redaction is noted in the text and as a ``secrets_redacted`` event."""
        content, kinds = result.content, []
        if self.patterns:
            content, kinds = redact_secret_shapes(content)
        known = sum(content.count(secret) for secret in self.secrets)
        if known:
            content = self.text(content)
            kinds += ["secret known to this session"] * known
        if not kinds:
            return result
        named = sorted(set(kinds))
        content += f"\n[paicli redacted {len(kinds)} secret value(s) from this result: {', '.join(named)}]"
        if ctx.bus is not None:
            ctx.bus.publish(SecretsRedacted(ctx.actor, call.id, call.name, len(kinds), tuple(named)))
        return dataclasses.replace(result, content=content, summary=self.text(result.summary))

    # -- events --------------------------------------------------------------------

    def filter(self, event: Event, deliver: Callable[[Event], None]) -> None:
        """Hand ``event`` to ``deliver`` redacted; a delta may be delivered
        shortened (its tail held back) or not at all."""
        if not self.secrets:
            deliver(event)
        elif type(event) is ModelDelta:
            self._delta(event, deliver)
        else:
            if self._pending and hasattr(event, "call_id"):
                self._flush(event, deliver)
            deliver(self.scrub(event))

    def _delta(self, event: ModelDelta, deliver: Callable[[Event], None]) -> None:
        key = (event.actor, event.call_id, event.kind, event.tool)
        with self._lock:
            held = self._pending.pop(key, "")
        text = held + event.text if held else event.text
        if self.contains(text):
            text = self.text(text)
        hold = self._partial_tail(text)
        if hold:
            with self._lock:
                if len(self._pending) >= MAX_PENDING_STREAMS:
                    self._pending.clear()
                self._pending[key] = text[-hold:]
            text = text[:-hold]
        if text is event.text:
            deliver(event)
        elif text:
            deliver(dataclasses.replace(event, text=text))

    def _partial_tail(self, text: str) -> int:
        """Length of the longest end of ``text`` that begins some secret."""
        longest = 0
        for secret in self.secrets:
            first, end = secret[0], len(text) - longest  # only a longer tail matters
            i = text.find(first, max(0, len(text) - len(secret) + 1), end)
            while i != -1:
                if secret.startswith(text[i:]):
                    longest = len(text) - i
                    break
                i = text.find(first, i + 1, end)
        return longest

    def _flush(self, event: Event, deliver: Callable[[Event], None]) -> None:
        """The call's stream ended (response, error or retry): release what
        was held back; it is not a whole secret."""
        call_id = getattr(event, "call_id")
        with self._lock:
            keys = [k for k in self._pending if k[0] == event.actor and k[1] == call_id]
            held = [(k, self._pending.pop(k)) for k in keys]
        for (actor, _call, kind, tool), text in held:
            deliver(ModelDelta(actor=actor, call_id=call_id, kind=kind, text=text, tool=tool))
