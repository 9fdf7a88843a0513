"""DSPy signatures of the memory agent; each docstring is the instruction."""

from __future__ import annotations

import dspy

# Said as "a date as YYYY-MM-DD" alone, it made the small model answer a date to "what" and
# "where" questions; the wording says when a date is wanted.
FAST_ANSWER_DESC = (
    "the short answer in the context's own words (a name, a place, a number or a phrase); "
    "a date only when the question asks when, written as the context writes it"
)
QUESTION_DATE_DESC = "today: when the question is asked, not when things happened"
ANSWER_DESC = (
    "the short answer the question asks for (a name, a place, a number or a phrase); "
    "a date (YYYY-MM-DD) only when the question asks when"
)
# Without a cap a small model can list turn ids without end (until max_tokens); an answer
# rests on one to a few turns.
MAX_EVIDENCE_TURNS = 5
# The same for the answer: an unbounded answer can run on until max_tokens and fail to
# parse; a short answer fits well within this.
MAX_ANSWER_CHARS = 240
EVIDENCE_DESC = "turn ids supporting the answer (the few that matter most)"


class AnswerFromContext(dspy.Signature):  # type: ignore[misc]
    """Answer the question from the memory context only. Lines computed for this question
    answer it when they name what it asks. Otherwise read the turns: each is [T1] the day it
    was said, the speaker and their words, where relative times are followed by the date they
    mean ("yesterday (19 January 2023)"): for a when-question answer with those dates. In a
    timeline a value holds from its date until the next value's date. The question date is when the
    question is asked, never the answer by itself. Cite the turns (T1, T2, ...) the answer
    rests on. Set enough_context to false if the context does not contain the answer."""

    # The context comes first and the question last, as in plain RAG's prompt: the small model
    # reads the question right before it answers.
    context: str = dspy.InputField(desc="computed lines and the matching turns")
    # "the date the question is asked on" made the small model answer it to when-questions
    question_date: str = dspy.InputField(desc=QUESTION_DATE_DESC)
    time_hints: str = dspy.InputField(desc="time words of the question as explicit dates")
    question: str = dspy.InputField()
    answer: str = dspy.OutputField(desc=FAST_ANSWER_DESC, max_length=MAX_ANSWER_CHARS)
    evidence_turn_ids: list[str] = dspy.OutputField(
        desc=EVIDENCE_DESC, max_length=MAX_EVIDENCE_TURNS
    )
    enough_context: bool = dspy.OutputField(desc="true if the context answers the question")


class AnswerWithTools(dspy.Signature):  # type: ignore[misc]
    """Answer the question about the user's long-term memory using the tools. Lines computed
    for this question answer it when they name what it asks. Facts are never overwritten: a
    value holds from its t_from until the next value's t_from. A question about a date asks
    for the value that held on that date, not for the one that holds now. Resolve times with
    the explicit dates given. Give the short answer the question asks for and cite the turn
    ids it rests on."""

    question: str = dspy.InputField()
    # "the date the question is asked on" made the small model answer it (see AnswerFromContext)
    question_date: str = dspy.InputField(desc=QUESTION_DATE_DESC)
    time_hints: str = dspy.InputField(desc="time words of the question as explicit dates")
    context: str = dspy.InputField(desc="what a first lookup found (may be incomplete)")
    answer: str = dspy.OutputField(desc=ANSWER_DESC, max_length=MAX_ANSWER_CHARS)
    evidence_turn_ids: list[str] = dspy.OutputField(
        desc=EVIDENCE_DESC, max_length=MAX_EVIDENCE_TURNS
    )
