"""The construction-quality benchmark's generator: deterministic per seed, the template
families (A tuning, B test, C holdout, D holdout2, E holdout3, F holdout4, G holdout5, H
holdout6) share no phrasing, value or name, every template keeps to its placeholders and
renders short, and every conversation's truth is consistent with its turns and questions."""

from __future__ import annotations

import itertools
import json
import re
import string
from datetime import date
from pathlib import Path

import pytest

from apexmem_neo.construction.loaders import load_jsonl
from benchmarks.construction_quality.generator import (
    FAMILIES,
    SETS,
    generate,
    jsonl_lines,
    write_set,
)
from benchmarks.construction_quality.questions import reads
from benchmarks.construction_quality.templates import FAMILY_A, FAMILY_B, Family
from benchmarks.construction_quality.templates_c import FAMILY_C
from benchmarks.construction_quality.templates_d import FAMILY_D
from benchmarks.construction_quality.templates_e import FAMILY_E
from benchmarks.construction_quality.templates_f import FAMILY_F
from benchmarks.construction_quality.templates_g import FAMILY_G
from benchmarks.construction_quality.templates_h import FAMILY_H
from benchmarks.construction_quality.truth import sure_span, truth_problems

SET_NAMES = sorted(SETS)
ALL_FAMILIES = [FAMILY_A, FAMILY_B, FAMILY_C, FAMILY_D, FAMILY_E, FAMILY_F, FAMILY_G, FAMILY_H]
FAMILY_IDS = [f.name for f in ALL_FAMILIES]
FULL_SETS = ["tuning", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6"]


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


def test_holdout_is_family_c_and_shares_no_turn() -> None:
    holdout = generate("holdout")
    assert (holdout.family, holdout.seed, len(holdout.conversations)) == ("C", 3, 4)
    assert SETS["holdout"].layout == "full"
    texts = {t.text for c in holdout.conversations for t in c.turns}
    for other in ("tuning", "test"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    tuning = generate("tuning")
    assert holdout.turns == tuning.turns
    questions = [sum(len(c.questions) for c in d.conversations) for d in (holdout, tuning)]
    assert questions[0] == questions[1]


def test_holdout2_is_family_d_shaped_like_holdout_and_shares_no_turn() -> None:
    holdout2, holdout = generate("holdout2"), generate("holdout")
    assert (holdout2.family, holdout2.seed, len(holdout2.conversations)) == ("D", 5, 4)
    assert SETS["holdout2"].layout == "full"
    texts = {t.text for c in holdout2.conversations for t in c.turns}
    for other in ("tuning", "test", "holdout"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    for data in (holdout2, holdout):
        assert [len(c.turns) for c in data.conversations] == [14] * 4
    assert [len(c.questions) for c in holdout2.conversations] == [
        len(c.questions) for c in holdout.conversations
    ]
    assert holdout2.turns == holdout.turns


def test_holdout3_is_family_e_shaped_like_holdout_and_shares_no_turn() -> None:
    holdout3, holdout = generate("holdout3"), generate("holdout")
    assert (holdout3.family, holdout3.seed, len(holdout3.conversations)) == ("E", 7, 4)
    assert SETS["holdout3"].layout == "full"
    texts = {t.text for c in holdout3.conversations for t in c.turns}
    for other in ("tuning", "test", "holdout", "holdout2"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    assert [len(c.turns) for c in holdout3.conversations] == [14] * 4
    assert [len(c.questions) for c in holdout3.conversations] == [
        len(c.questions) for c in holdout.conversations
    ]
    assert holdout3.turns == holdout.turns


def test_holdout4_is_family_f_shaped_like_holdout_and_shares_no_turn() -> None:
    holdout4, holdout = generate("holdout4"), generate("holdout")
    assert (holdout4.family, holdout4.seed, len(holdout4.conversations)) == ("F", 9, 4)
    assert SETS["holdout4"].layout == "full"
    texts = {t.text for c in holdout4.conversations for t in c.turns}
    for other in ("tuning", "test", "holdout", "holdout2", "holdout3"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    assert [len(c.turns) for c in holdout4.conversations] == [14] * 4
    assert [len(c.questions) for c in holdout4.conversations] == [
        len(c.questions) for c in holdout.conversations
    ]
    assert holdout4.turns == holdout.turns


def test_holdout5_is_family_g_shaped_like_holdout_and_shares_no_turn() -> None:
    holdout5, holdout = generate("holdout5"), generate("holdout")
    assert (holdout5.family, holdout5.seed, len(holdout5.conversations)) == ("G", 10, 4)
    assert SETS["holdout5"].layout == "full"
    texts = {t.text for c in holdout5.conversations for t in c.turns}
    for other in ("tuning", "test", "holdout", "holdout2", "holdout3", "holdout4"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    assert [len(c.turns) for c in holdout5.conversations] == [14] * 4
    assert [len(c.questions) for c in holdout5.conversations] == [
        len(c.questions) for c in holdout.conversations
    ]
    assert holdout5.turns == holdout.turns


def test_holdout6_is_family_h_shaped_like_holdout_and_shares_no_turn() -> None:
    holdout6, holdout = generate("holdout6"), generate("holdout")
    assert (holdout6.family, holdout6.seed, len(holdout6.conversations)) == ("H", 11, 4)
    assert SETS["holdout6"].layout == "full"
    texts = {t.text for c in holdout6.conversations for t in c.turns}
    for other in ("tuning", "test", "holdout", "holdout2", "holdout3", "holdout4", "holdout5"):
        assert texts.isdisjoint(t.text for c in generate(other).conversations for t in c.turns)
    assert [len(c.turns) for c in holdout6.conversations] == [14] * 4
    assert [len(c.questions) for c in holdout6.conversations] == [
        len(c.questions) for c in holdout.conversations
    ]
    assert holdout6.turns == holdout.turns


def test_families_are_registered_by_name() -> None:
    assert {name: f.name for name, f in FAMILIES.items()} == {n: n for n in "ABCDEFGH"}
    assert {spec.family for spec in SETS.values()} <= set(FAMILIES)
    assert set(FAMILY_C.wordings) == set(FAMILY_A.wordings)
    assert set(FAMILY_D.wordings) == set(FAMILY_A.wordings)
    assert set(FAMILY_E.wordings) == set(FAMILY_A.wordings)
    assert set(FAMILY_F.wordings) == set(FAMILY_A.wordings)
    assert set(FAMILY_G.wordings) == set(FAMILY_A.wordings)
    assert set(FAMILY_H.wordings) == set(FAMILY_A.wordings)


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


def _names(family: Family, third_parties: bool) -> set[str]:
    names = set(family.subjects + family.others)
    return names | {name for name, _ in family.third_parties} if third_parties else names


PAIRS = list(itertools.combinations(ALL_FAMILIES, 2))


@pytest.mark.parametrize(("one", "two"), PAIRS, ids=[f"{a.name}-{b.name}" for a, b in PAIRS])
def test_families_share_no_template_phrasing(one: Family, two: Family) -> None:
    assert _phrases(one).isdisjoint(_phrases(two))
    assert _ngrams(one, 4).isdisjoint(_ngrams(two, 4))
    # families C, D, E, F, G and H keep their third parties apart too (A and B were only
    # held to the speakers)
    third_parties = bool({"C", "D", "E", "F", "G", "H"} & {one.name, two.name})
    assert _names(one, third_parties).isdisjoint(_names(two, third_parties))
    for concept in set(one.values) & set(two.values):
        assert set(one.values[concept]).isdisjoint(two.values[concept])


_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # field -> (placeholders allowed, placeholders required; "when" stands for {when}/{When})
    "state": ({"value"}, {"value"}),
    "change": ({"value", "old"}, {"value"}),
    "change_dated": ({"value", "old", "when", "When"}, {"value", "when"}),
    "negate_dated": ({"old", "when", "When"}, {"old", "when"}),
    "after_negation": ({"value"}, {"value"}),
    "stable_other": ({"value"}, {"value"}),
    "third_party": ({"value", "name", "rel"}, {"value", "name", "rel"}),
    "now": ({"p"}, {"p"}),
    "as_of": ({"p", "date"}, {"p", "date"}),
    "when": ({"p", "value"}, {"p"}),
    "before": ({"p", "value"}, {"p", "value"}),
    "greetings": ({"name"}, set()),
    "openers": ({"name"}, set()),
    "fillers": (set(), set()),
    "reactions": (set(), set()),
    "corrections": ({"value", "old"}, {"value", "old"}),
}


def _placeholders(template: str) -> set[str]:
    found = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    return {"when" if name == "When" else name for name in found}


def _check(field: str, template: str) -> None:
    allowed, required = _FIELDS[field]
    found = _placeholders(template)
    assert found <= {"when" if a == "When" else a for a in allowed}, (field, template)
    assert required <= found, (field, template)


@pytest.mark.parametrize("family", ALL_FAMILIES, ids=FAMILY_IDS)
def test_templates_keep_to_their_placeholders_and_render_short(family: Family) -> None:
    """Each field uses only the placeholders the generator and questions fill (and the ones
    they need), and renders under 190 characters with the longest names and values."""
    for field in ("greetings", "openers", "fillers", "reactions", "corrections"):
        for template in getattr(family, field):
            _check(field, template)
    for rel in family.relative:
        assert _placeholders(rel.words) <= ({"month"} if rel.unit == "months" else set())
        assert rel.amount > 0
    assert _placeholders(family.as_of_month) == {"month", "year"}
    assert _placeholders(family.as_of_day) == {"day", "month", "year"}
    longest = {k: max(v, key=len) for k, v in family.values.items()}
    people = family.subjects + family.others + tuple(n for n, _ in family.third_parties)
    name = max(people, key=len)
    rel = max((r for _, r in family.third_parties), key=len)
    when = max((r.words.format(month="September") for r in family.relative), key=len)
    date_words = max(
        family.as_of_month.format(month="September", year=2024),
        family.as_of_day.format(day=30, month="September", year=2024),
        key=len,
    )
    fill = {"name": name, "rel": rel, "p": name, "date": date_words, "when": when}
    fill["When"] = when.capitalize()
    for concept, wording in family.wordings.items():
        value = longest[concept]
        for field in _FIELDS:
            templates = getattr(wording, field, None)
            if templates is None:
                continue
            for template in (templates,) if isinstance(templates, str) else templates:
                _check(field, template)
                assert len(template.format(value=value, old=value, **fill)) < 190, template
    for template in family.corrections:
        value = max(longest.values(), key=len)
        assert len(template.format(value=value, old=value)) < 190


@pytest.mark.parametrize("family", ALL_FAMILIES, ids=FAMILY_IDS)
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


@pytest.mark.parametrize("name", FULL_SETS)
def test_a_full_conversation_has_every_ingredient(name: str) -> None:
    for conv in generate(name).conversations:
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


@pytest.mark.parametrize("name", FULL_SETS)
def test_gold_answers_follow_the_truth(name: str) -> None:
    for conv in generate(name).conversations:
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


@pytest.mark.parametrize("name", FULL_SETS)
def test_reads_cover_every_timeline(name: str) -> None:
    for conv in generate(name).conversations:
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
