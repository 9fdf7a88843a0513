"""The construction-quality benchmark's generator: deterministic per seed, tuning and test
share no phrasing, and every conversation's truth is consistent with its turns and
questions."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from apexmem_neo.construction.loaders import load_jsonl
from benchmarks.construction_quality.generator import SETS, generate, jsonl_lines, write_set
from benchmarks.construction_quality.questions import reads
from benchmarks.construction_quality.templates import FAMILY_A, FAMILY_B, Family
from benchmarks.construction_quality.truth import sure_span, truth_problems

SET_NAMES = sorted(SETS)


@pytest.mark.parametrize("name", SET_NAMES)
def test_generation_is_deterministic(name: str) -> None:
    assert generate(name).model_dump() == generate(name).model_dump()


def test_sets_differ_in_seed_and_family() -> None:
    tuning, test = generate("tuning"), generate("test")
    assert (tuning.family, tuning.seed) == ("A", 1)
    assert (test.family, test.seed) == ("B", 2)
    assert {t.text for c in tuning.conversations for t in c.turns}.isdisjoint(
        t.text for c in test.conversations for t in c.turns
    )


def _phrases(family: Family) -> set[str]:
    """Each template lower-cased, its placeholders unnamed and its spaces collapsed."""
    return {" ".join(re.sub(r"\{\w+\}", "{}", t.lower()).split()) for t in family.templates()}


def _ngrams(family: Family, n: int) -> set[tuple[str, ...]]:
    grams = set()
    for template in family.templates():
        for part in re.split(r"\{\w+\}", template.lower()):
            tokens = re.findall(r"[a-z']+", part)
            grams |= {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}
    return grams


def test_tuning_and_test_share_no_template_phrasing() -> None:
    assert _phrases(FAMILY_A).isdisjoint(_phrases(FAMILY_B))
    assert _ngrams(FAMILY_A, 4).isdisjoint(_ngrams(FAMILY_B, 4))
    assert set(FAMILY_A.subjects + FAMILY_A.others).isdisjoint(FAMILY_B.subjects + FAMILY_B.others)
    for concept in set(FAMILY_A.values) & set(FAMILY_B.values):
        assert set(FAMILY_A.values[concept]).isdisjoint(FAMILY_B.values[concept])


@pytest.mark.parametrize("family", [FAMILY_A, FAMILY_B], ids=["A", "B"])
def test_values_share_no_word_within_a_family(family: Family) -> None:
    """So a fact value that is part of a value ("Civic") stands for one value only."""
    seen: dict[str, str] = {}
    for values in family.values.values():
        for value in values:
            for word in re.findall(r"[0-9a-z]+", value.lower()):
                assert seen.setdefault(word, value) == value, (word, value)


@pytest.mark.parametrize("name", SET_NAMES)
def test_truth_is_consistent(name: str) -> None:
    data = generate(name)
    for conv in data.conversations:
        assert truth_problems(conv) == []
        days = [t.timestamp for t in conv.turns]
        assert days == sorted(days) and conv.question_date > days[-1][:10]
        assert len({t.text for t in conv.turns}) == len(conv.turns)
        assert all(len(t.text) < 190 for t in conv.turns)  # a query cell holds 200
        for tl in conv.truth:
            starts = [i.sure_from() for i in tl.intervals]
            assert starts == sorted(starts)
            for i, interval in enumerate(tl.intervals):
                turn = next(t for t in conv.turns if t.id == interval.turn)
                assert interval.value in turn.text
                assert sure_span(tl, i, conv.question_date) is not None


def test_a_full_conversation_has_every_ingredient() -> None:
    for conv in generate("tuning").conversations:
        assert len(conv.turns) == 14 and {t.session for t in conv.turns} == {"s1", "s2", "s3"}
        roles = sorted(p.role for p in conv.people)
        assert roles.count("subject") == 1 and "third_party" in roles
        subject = next(tl for tl in conv.truth if tl.retracted)
        assert len(subject.retracted) == 1  # the correction
        assert any(i.end is not None for tl in conv.truth for i in tl.intervals)  # negation
        dated = [
            i for tl in conv.truth for i in tl.intervals if i.start and i.start.lo < i.stated_on
        ]
        assert dated, "a change with a relative date"
        assert sum(1 for tl in conv.truth if len(tl.intervals) > 1) == 3
        assert [q.kind for q in conv.questions].count("now") == 5
        assert any(not t.asserts and not t.denies for t in conv.turns)  # filler


def test_gold_answers_follow_the_truth() -> None:
    for conv in generate("tuning").conversations:
        for q in conv.questions:
            tl = conv.timeline(q.owner, q.concept)
            if q.kind == "now":
                assert q.gold == tl.intervals[-1].value
            elif q.kind == "before":
                assert q.gold == tl.intervals[-2].value
                assert tl.intervals[-1].value in q.text
            elif q.kind == "when":
                assert q.gold_window == tl.intervals[-1].start
            else:
                assert q.gold == tl.intervals[0].value and q.read_at is not None
                first, last = sure_span(tl, 0, conv.question_date) or ("", "")
                assert first <= q.read_at <= last


def test_month_gold_for_last_month() -> None:
    conv = generate("tiny").conversations[0]
    change = conv.turns[2]
    when = next(q for q in conv.questions if q.kind == "when")
    assert "last month" in change.text.lower() or "ago" in change.text or "yesterday" in change.text
    said = date.fromisoformat(change.timestamp[:10])
    assert when.gold_window is not None and when.gold_window.hi < said.isoformat()


def test_reads_cover_every_timeline() -> None:
    for conv in generate("tuning").conversations:
        planned = reads(conv)
        assert {(r.owner, r.concept) for r in planned if r.kind == "current"} == {
            (t.owner, t.concept) for t in conv.truth
        }
        assert all(r.at is not None for r in planned if r.kind == "as_of")


def test_jsonl_is_what_the_loader_reads(tmp_path: Path) -> None:
    data = generate("tuning")
    turns_file, truth_file = write_set(data, tmp_path)
    loaded = load_jsonl(turns_file)
    assert len(loaded) == data.turns == len(jsonl_lines(data))
    assert {t.conversation_id for t in loaded} == {c.conversation_id for c in data.conversations}
    first = data.conversations[0].turns[0]
    assert (loaded[0].speaker, loaded[0].text) == (first.speaker, first.text)
    assert json.loads(truth_file.read_text())["name"] == "tuning"
