"""Turning free text into an FTS5 query: words only, stop words dropped,
identifiers split (``parsePlan`` → parse, plan), every term quoted so no
character of the input can be FTS5 syntax. Shared by memory and the code
index."""

from __future__ import annotations

import re
from functools import lru_cache

STOP_WORDS = frozenset("""
a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its
let me my no not of on or our please should so some such than that the their them then there these they this
those to too us was we were what when where which who whom why will with would you your about after all also
any because before being both each few more most other over own same very just now find show tell get give
""".split())
#: Words a question about code uses that say nothing about where to look.
CODE_NOISE = frozenset("code file files function functions method methods class classes defined define "
                       "implemented implement implementation located handled handles does done work works".split())
_WORD = re.compile(r"[A-Za-z0-9]+|[^\x00-\x7f\W]+")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=65536)
def split_identifier(word: str) -> tuple[str, ...]:
    """``parsePlanFile`` → (parse, plan, file); ``HTTPServer`` → (http, server)."""
    return tuple(part.lower() for part in _CAMEL.findall(word))


def query_terms(text: str, *, keep_stop_words: bool = False, noise: frozenset[str] = frozenset(),
                keep_letters: bool = False) -> list[str]:
    """The distinct lower-case search terms of ``text``, in order: each word,
    and the parts of a camelCase word. Single letters count only with
    ``keep_letters`` (a prefix search, where "c" is the start of a word)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        parts = [word.lower()]
        if word.isascii() and not word.islower() and not word.isupper():
            parts += split_identifier(word)
        for part in parts:
            if len(part) > 1 or part.isdigit() or keep_letters:
                seen.setdefault(part, None)
    terms = list(seen)
    if keep_stop_words:
        return terms
    return [term for term in terms if term not in STOP_WORDS and term not in noise]


def fts_or_query(terms: list[str]) -> str:
    """``"a" OR "b"``; each term is an FTS5 string, so it is taken literally."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def fts_prefix_query(terms: list[str]) -> str:
    """``"a"* OR "b"*``: each term also matches the words it begins
    ("curr" finds "currency"); still literal, never FTS5 syntax."""
    return " OR ".join('"' + term.replace('"', '""') + '"*' for term in terms)


def like_pattern(term: str) -> str:
    """``%term%`` for ``LIKE … ESCAPE '\\'``, with ``%`` and ``_`` taken literally."""
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def identifier_terms(text: str) -> str:
    """The camelCase parts of every mixed-case identifier in ``text``, as
    one space-separated string (FTS5's tokenizer already splits on ``_``)."""
    parts: dict[str, None] = {}
    for word in set(_IDENTIFIER.findall(text)):
        if word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower()):
            continue
        for part in split_identifier(word):
            if len(part) > 1:
                parts.setdefault(part, None)
    return " ".join(parts)
