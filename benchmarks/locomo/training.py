"""Training questions for `apexmem optimize` from a LOCOMO conversation.

Writes JSON Lines of {"question", "answer", "date"} for the questions of categories 1-4 whose
gold evidence lies in the first --sessions sessions, asked on the conversation's last session
date (as the LOCOMO harness asks them). ``--skip-sessions N`` leaves out the questions a
development run over the first N sessions asks (those answered from them alone), so one
conversation gives both a training and a development set. Only tuning conversations belong
here: a conversation used for training is never reported as evaluation.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.training --data locomo10.json \\
        --conversation conv-30 --sessions 10 \\
        --skip-sessions 3 --out benchmarks/results/train_conv-30.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.locomo.data import (
    add_data_argument,
    last_session_date,
    load_sample,
    locomo_data,
    sample_turns,
    select_questions,
)


def training_rows(
    data: Path, conversation: str, sessions: int | None, skip_sessions: int = 0
) -> list[dict[str, str]]:
    sample = load_sample(data, conversation)
    categories = (1, 2, 3, 4)
    questions = select_questions(sample, sample_turns(sample, sessions), categories)
    if skip_sessions:
        dev = select_questions(sample, sample_turns(sample, skip_sessions), categories)
        seen = {q.qid for q in dev}
        questions = [q for q in questions if q.qid not in seen]
    date = last_session_date(sample)
    return [{"question": q.question, "answer": q.gold, "date": date} for q in questions]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(p)
    p.add_argument("--conversation", required=True)
    p.add_argument("--sessions", type=int, default=None)
    p.add_argument(
        "--skip-sessions", type=int, default=0, help="leave out the first N sessions' questions"
    )
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    args.data = locomo_data(args.data)
    rows = training_rows(args.data, args.conversation, args.sessions, args.skip_sessions)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} questions of {args.conversation} written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
