"""Time limits stretch with the machine's load (tests/support/timing.py):
each test's timeout, and the waits that use ``scaled``/``wait_until``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import STRETCHED_BY
from tests.support.timing import MAX_SCALE, SCALE, scaled, wait_until

ROOT = Path(__file__).resolve().parent.parent


def test_this_tests_time_limit_is_the_ini_limit_times_the_scale(request):
    marker = request.node.get_closest_marker("timeout")
    limit = marker.args[0] if marker else float(request.config.getini("timeout"))
    # The load at collection, or a higher one when the test started.
    assert 60 * SCALE - 1e-6 <= limit <= 60 * max(SCALE, MAX_SCALE) + 1e-6
    assert limit == pytest.approx(60 * request.node.stash.get(STRETCHED_BY, 1.0))
    assert 10 * SCALE <= scaled(10) <= 10 * MAX_SCALE and SCALE >= 1.0


def test_a_set_scale_stretches_every_limit():
    env = {**os.environ, "PAICLI_TEST_TIME_SCALE": "3", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
         f"{Path(__file__).name}::test_this_tests_time_limit_is_the_ini_limit_times_the_scale",
         "--override-ini", "addopts=-ra"],
        cwd=ROOT / "tests", env=env, capture_output=True, text=True, timeout=scaled(120))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_load_that_rose_after_collection_stretches_the_next_tests_limit(tmp_path):
    """Busy loops started just before the suite show in the load average a
    minute later: a test's limit follows the load when it starts."""
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_collection_modifyitems, pytest_runtest_protocol  # noqa: F401\n")
    (tmp_path / "test_rising.py").write_text(
        "import os\n\n"
        "def test_a_load_arrives():\n"
        "    os.environ['PAICLI_TEST_TIME_SCALE'] = '6'\n\n"
        "def test_its_limit(request):\n"
        "    assert request.node.get_closest_marker('timeout').args[0] == 360\n")
    env = {**os.environ, "PAICLI_TEST_TIME_SCALE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
         "-o", "timeout=60", "--override-ini", "addopts=-ra", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=scaled(120))
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_wait_until_names_what_it_waited_for():
    wait_until(lambda: True, "nothing")
    with pytest.raises(AssertionError, match="waiting for the moon"):
        wait_until(lambda: False, "the moon", timeout=0.05 / MAX_SCALE)


def test_a_load_that_rose_after_start_up_stretches_the_waits_too(monkeypatch):
    monkeypatch.delenv("PAICLI_TEST_TIME_SCALE", raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1000.0, 1000.0, 1000.0))  # busy loops started just before
    assert scaled(10) == pytest.approx(10 * MAX_SCALE)
