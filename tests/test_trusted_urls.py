"""The trusted-URL policy (P-6.6): what the person typed, what web_search
found in this branch, and what a child branch inherits."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.tools.trusted_urls import TrustedUrls, normalize_url, urls_in_text


def test_urls_typed_by_the_person_are_found_without_punctuation():
    text = ("Compare https://example.com/a, (see https://example.com/wiki/Foo_(bar)) and "
            "<https://docs.example.org/x?y=1#frag>. Also http://127.0.0.1:8000/p!")
    assert urls_in_text(text) == [
        "https://example.com/a",
        "https://example.com/wiki/Foo_(bar)",
        "https://docs.example.org/x?y=1#frag",
        "http://127.0.0.1:8000/p",
    ]


@pytest.mark.parametrize("typed, asked", [
    ("https://Example.COM/a", "https://example.com/a"),
    ("HTTPS://example.com:443/a", "https://example.com/a"),
    ("http://example.com:80", "http://example.com/"),
    ("https://example.com/a#section", "https://example.com/a"),
])
def test_allows_normalises_scheme_host_port_and_fragment(typed, asked):
    assert TrustedUrls([typed]).allows(asked)


@pytest.mark.parametrize("asked", [
    "https://example.com/A",           # paths are case-sensitive
    "https://example.com/a?x=1",       # a different query is a different resource
    "https://example.com:8443/a",
    "http://example.com/a",            # scheme matters
    "https://example.com.evil.test/a",
    "ftp://example.com/a",
    "not a url",
])
def test_allows_nothing_else(asked):
    assert not TrustedUrls(["https://example.com/a"]).allows(asked)


def test_normalize_rejects_non_http():
    assert normalize_url("file:///etc/passwd") is None
    assert normalize_url("javascript:alert(1)") is None
    assert normalize_url("http://[::1]:8080/x") == "http://[::1]:8080/x"


def test_search_results_are_trusted_and_recorded_once():
    trusted = TrustedUrls()
    trusted.add_search_results(["https://a.test/1", "https://A.test/1#x", "https://b.test/"])
    assert trusted.found_urls == ("https://a.test/1", "https://b.test/")
    assert trusted.allows("https://a.test/1")


def test_fork_passes_the_persons_urls_and_the_given_extras_only():
    parent = TrustedUrls.from_user_text("look at https://user.test/doc")
    parent.add_search_results(["https://found.test/parent"])
    child = parent.fork(["https://found.test/dependency"])
    assert child.allows("https://user.test/doc")
    assert child.allows("https://found.test/dependency")
    assert not child.allows("https://found.test/parent")
    assert child.found_urls == ()
    child.add_search_results(["https://found.test/child"])
    assert not parent.allows("https://found.test/child")
    grandchild = child.fork()
    assert not grandchild.allows("https://found.test/dependency")
    assert grandchild.allows("https://user.test/doc")


def test_concurrent_additions_are_all_kept():
    trusted = TrustedUrls()
    threads = [threading.Thread(target=trusted.add_search_results,
                                args=([f"https://t{n}.test/{i}" for i in range(200)],)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(trusted.found_urls) == 800
