"""Readers never crash on a damaged ledger (issue 12, class 7): a real team
ledger, one line changed at random — a field of another type, a field gone,
a line deleted, duplicated, swapped or cut — and `sessions`, `verify`,
`report` and `replay --text` still answer, naming what they skipped."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.records.report import session_reports
from paicli_tui.records.sessions import summarize_session
from paicli_tui.present.text_replay import replay_text
from paicli_tui.records.verify import render, verify_ledger
from tests.support.recorder import lines_of, team_with_retry

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> list[dict]:
    return lines_of(team_with_retry(tmp_path_factory.mktemp("fuzz")))


def _mutate(lines: list[dict], data) -> tuple[list[str], str]:
    """One damage, as text lines, and what it was ("delete-last" cannot be
    told from a crash before the last write, so it is named apart)."""
    rows = [json.dumps(line) for line in lines]
    at = data.draw(st.integers(0, len(lines) - 1), label="line")
    kind = data.draw(st.sampled_from(["retype", "drop_field", "retype_envelope", "delete", "duplicate", "swap",
                                      "truncate"]), label="kind")
    line = json.loads(rows[at])
    if kind == "retype" and line["payload"]:
        field = data.draw(st.sampled_from(sorted(line["payload"])), label="field")
        line["payload"][field] = data.draw(JSON_VALUES, label="value")
        rows[at] = json.dumps(line)
    elif kind == "drop_field" and line["payload"]:
        del line["payload"][data.draw(st.sampled_from(sorted(line["payload"])), label="field")]
        rows[at] = json.dumps(line)
    elif kind == "retype_envelope":
        field = data.draw(st.sampled_from(sorted(line)), label="field")
        line[field] = data.draw(JSON_VALUES, label="value")
        rows[at] = json.dumps(line)
    elif kind == "delete":
        del rows[at]
        kind = "delete-last" if at == len(rows) else kind
    elif kind == "duplicate":
        rows.insert(at, rows[at])
    elif kind == "swap" and at + 1 < len(rows):
        rows[at], rows[at + 1] = rows[at + 1], rows[at]
    elif kind == "truncate":
        rows[at] = rows[at][: data.draw(st.integers(1, max(1, len(rows[at]) - 1)), label="cut")]
    return rows, kind


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_reader_crashes_on_one_damaged_line(recorded, tmp_path_factory, data):
    rows, kind = _mutate(recorded, data)
    path: Path = tmp_path_factory.mktemp("damaged") / "damaged.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")

    summarize_session(path)
    result = verify_ledger(path)
    render(result)
    session_reports(path, {}, [])
    out, err = io.StringIO(), io.StringIO()
    replay_text(path, out, err, speed=None, warnings=[])
    if kind in ("delete", "duplicate"):
        assert not result.ok, "a deleted or duplicated line must not verify"


def test_one_broken_ledger_does_not_hide_the_other_sessions(recorded, tmp_path, paicli_home):
    from paicli_tui.records.sessions import list_sessions

    raw = paicli_home / "history" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    good = [dict(line) for line in recorded]
    (raw / "good.jsonl").write_text("\n".join(json.dumps(line) for line in good) + "\n", encoding="utf-8")
    broken = [dict(line) for line in recorded]
    broken[0] = {**broken[0], "ts": "yesterday"}
    broken[3] = {**broken[3], "payload": ["not", "an", "object"]}
    (raw / "broken.jsonl").write_text("\n".join(json.dumps(line) for line in broken) + "\n", encoding="utf-8")
    names = {summary.session for summary in list_sessions()}
    assert names == {"good", "broken"}


def _wrong(event: str, field: str):
    """A JSON value the field's declared type does not allow."""
    from paicli_tui.records.ledger_schema import payload_specs

    check = payload_specs()[event][field][0]
    return next(value for value in (7, "x", {"a": 1}, [{"id": 1}], 1.5, True, None) if not check(value))


def test_every_field_of_every_line_retyped_or_dropped(recorded, tmp_path):
    """Exhaustive where the property test samples: no reader raises, and
    verify names the damaged line."""
    path = tmp_path / "damaged.jsonl"
    for index, line in enumerate(recorded):
        for field in sorted(line["payload"]):
            for damage in ("retype", "drop"):
                damaged = json.loads(json.dumps(line))
                if damage == "retype":
                    damaged["payload"][field] = _wrong(line["event"], field)
                else:
                    del damaged["payload"][field]
                rows = [json.dumps(other) for other in recorded]
                rows[index] = json.dumps(damaged)
                path.write_text("\n".join(rows) + "\n", encoding="utf-8")
                summarize_session(path)
                session_reports(path, {}, [])
                replay_text(path, io.StringIO(), io.StringIO(), speed=None, warnings=[])
                result = verify_ledger(path)
                if damage == "retype" or field in REQUIRED.get(line["event"], ()):
                    assert any(v.line == index + 1 for v in result.violations), (line["event"], field, damage)


def _required() -> dict[str, set[str]]:
    from paicli_tui.records.ledger_schema import payload_specs
    import dataclasses

    return {name: {f for f, (_, _, default) in spec.items() if default is dataclasses.MISSING}
            for name, spec in payload_specs().items()}


REQUIRED = _required()
