"""Which environment variables hold credentials, judged by name or value.

Shared by the command environment (tools/command_env: what a command is not
given) and the redactor (which values are never printed, and which
``NAME=value`` lines in tool results hide a secret).
"""

from __future__ import annotations

import os
import re
from typing import Mapping

#: A name part (between underscores) that marks a credential on its own.
SECRET_WORDS = frozenset({
    "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "CREDENTIAL",
    "CREDENTIALS", "APIKEY", "COOKIE", "DSN",
})
#: ``<QUALIFIER>_KEY`` is a credential; a bare ``*_KEY`` (``SORT_KEY``) is not.
KEY_QUALIFIERS = frozenset({
    "API", "ACCESS", "SECRET", "PRIVATE", "SIGNING", "ENCRYPTION", "MASTER", "AUTH", "SERVICE", "ACCOUNT",
    "CLIENT", "SESSION", "STORAGE", "LICENSE", "DEPLOY", "WEBHOOK", "SSH", "GPG", "PGP", "ADMIN", "APP",
})
#: Credentials whose names the rules above do not catch.
KNOWN_SECRET_NAMES = frozenset({
    "AWS_ACCESS_KEY_ID", "AZURE_STORAGE_CONNECTION_STRING", "MYSQL_PWD", "PGPASSFILE", "NPM_CONFIG__AUTH",
    "DOCKER_AUTH_CONFIG", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK_URL", "KAGGLE_KEY", "NETLIFY_AUTH",
})
#: Values that are credentials whatever the name: a URL with a password,
#: and the token shapes of common providers.
SECRET_VALUE = re.compile(
    r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"  # scheme://user:password@host
    r"|^(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{20,}"
    r"|AIza[0-9A-Za-z_-]{30,})$"
)


def looks_like_secret_name(name: str) -> bool:
    upper = name.upper()
    if upper in KNOWN_SECRET_NAMES:
        return True
    words = [w for w in upper.split("_") if w]
    if any(w in SECRET_WORDS or w.endswith(("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY")) for w in words):
        return True
    if len(words) >= 2 and words[-1] in ("KEY", "KEYS") and words[-2] in KEY_QUALIFIERS:
        return True
    return bool(words) and words[-1] == "AUTH"


def looks_like_secret_value(value: str) -> bool:
    return bool(SECRET_VALUE.search(value.strip()))


def credential_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """Names in ``environ`` that look like credentials, by name or value."""
    environ = os.environ if environ is None else environ
    return [name for name, value in environ.items()
            if looks_like_secret_name(name) or looks_like_secret_value(value)]
