"""SQL vs Cypher: run the study's arms on the gold questions and report per model and arm.

    python -m benchmarks.query_languages.run --arms sqlite-sql,neo4j-sql,neo4j-cypher,text2cypher \\
        --limit 10 --out benchmarks/results/query_languages.json

Resumable: every (model, arm, question) result is appended to a JSONL file (``--results``,
default the ``--out`` path with ``.jsonl``) and skipped on the next run; records written
before the model was kept count as APEXMEM_LM's. Each model and arm asks all its questions
(in file order, kinds interleaved) before the next arm starts: an arm's instructions and
demos are a long prompt prefix that the LLM server keeps cached only while that arm's calls
follow each other (with arms interleaved, every call re-read it). Accuracy does not depend
on the order; latencies compare only in a run on an otherwise idle machine.

Questions: ``--split test`` (the default), ``train`` or ``all`` of the train / test split
over entities (``split``). ``--gold-seeds 7,8`` generates the gold graph of several seeds in
memory (more entities, so more questions per kind in each split) instead of reading the
data files; its qids carry the seeds, so keep one ``--out`` per seed set. ``--models a,b``
runs every arm for each LiteLLM model id (default: APEXMEM_LM).

Neo4j: the gold graph (ids prefixed ``ql_``) is loaded into the server at NEO4J_URI, so
point it at a server of its own, or pass ``--private-neo4j``: a Neo4j of the study's own
(data under $APEXMEM_HOME/study-neo4j, Bolt on 127.0.0.1:7798, borrowing the shared build),
started for the run and stopped after it. The runner refuses a server that holds entities
other than the study's, and replaces study nodes of another gold graph (other seeds).
``--delete-after`` removes the gold nodes. The model comes from APEXMEM_LM /
APEXMEM_LM_API_BASE (the local Qwen2.5-Coder-1.5B-Instruct Q4_K_M by default).

Real memory: ``--real-memory DIR`` asks the questions that ``real_memory`` wrote to DIR over
its graph (a memory construction built) instead of the generated set, with the same arms.
That set has no train split, so it runs whole (``--split all``) and the demos still come from
the generated train split; the run checks that no demo names an entity of the real graph,
and the record says where the questions came from (``real_memory``). The SQLite copy and the
default ``--out`` live in DIR.

Records and summary: each record keeps when its question was asked and the machine's load
then, so ``publish`` can tell whether the arms were measured one at a time. The summary lists
the commands (with their commits) that asked its questions (``runs``: those of the summary
already at ``--out`` for the same ``--results``, then this one), which ``publish`` names as the
run's provenance. ``--report-only --results FILE`` aggregates any records, such as the answers
``publish`` keeps in ``benchmarks/published/``. ``--models openai/qwen2.5-coder-0.5b-instruct``
asks the small model at ``apexmem services up llm-small`` (port 8082).

Few-shot: every arm carries its compiled demos from the train split (``fewshot``; written by
``compile`` to ``compiled/s<seeds>/``, or ``--compiled DIR``), after a check that none of them
touches the run's test split; ``--zero-shot`` runs without them. Each record says which
(``program``), and the report shows an arm's zero-shot results as a second row.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Final

from neo4j import Driver, GraphDatabase
from rich.console import Console

from apexmem_neo.errors import ApexMemError, ServiceUnavailableError
from apexmem_neo.llm import make_lm
from apexmem_neo.memory.build import local_lm_check
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.services.neo4j_server import private_neo4j
from apexmem_neo.settings import SMALL_LM, SMALL_LM_API_BASE, Settings
from benchmarks.charts import grouped_bars
from benchmarks.memory import head_commit
from benchmarks.query_languages.arms import (
    AGENT_ARMS,
    AGENT_CONFIG,
    ARMS,
    SQLITE_ARMS,
    Stores,
    build_agent_arm,
    delete_gold,
    open_stores,
)
from benchmarks.query_languages.fewshot import (
    FILES,
    MANIFEST,
    LeakError,
    check_train_only,
    check_unseen,
    compiled_dir,
    read_examples,
    read_manifest,
)
from benchmarks.query_languages.generate import (
    GOLD_GRAPH,
    QUESTIONS,
    generate_seeds,
    load_gold,
    load_questions,
)
from benchmarks.query_languages.gold import DEFAULT_SEED, PREFIX, people_names
from benchmarks.query_languages.metrics import QuestionRecord
from benchmarks.query_languages.questions import Question
from benchmarks.query_languages.real_memory import SOURCE, load_source
from benchmarks.query_languages.split import SPLITS, Split, select, split_sizes
from benchmarks.query_languages.stats import RESAMPLES, SEED, model_figures, program_rows
from benchmarks.query_languages.tables import markdown, print_tables
from benchmarks.query_languages.text2cypher import Text2CypherArm
from benchmarks.query_languages.text2sql import Text2SQLArm, text2sql_program

DEFAULT_LM: Final = "openai/qwen2.5-coder-1.5b-instruct"
DEFAULT_OUT: Final = Path("benchmarks/results/query_languages.json")
LOCAL_MODEL: Final = "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.5B parameters), llama-server"
MODEL_NOTES: Final = {
    DEFAULT_LM: LOCAL_MODEL,
    SMALL_LM: "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (0.5B parameters), llama-server "
    "(apexmem services up llm-small)",
}
console = Console()
__all__ = ["main", "markdown"]  # markdown: benchmarks.report renders the study's JSON with it


def _names(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def parse_seeds(text: str) -> list[int]:
    try:
        return [int(s) for s in _names(text)]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"seeds are integers: {text!r}") from exc


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="SQL vs Cypher on the gold question set.")
    p.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, of {ARMS}")
    p.add_argument("--limit", type=int, default=None, help="first N questions of the split")
    p.add_argument("--skip", type=int, default=0, help="leave out the first N of those")
    p.add_argument(
        "--split", choices=SPLITS, default=None,
        help="questions of this split (default: test; all with --real-memory)",
    )  # fmt: skip
    p.add_argument(
        "--gold-seeds", type=parse_seeds, default=None,
        help=f"comma-separated seeds of a generated gold graph (default: the data files, "
        f"seed {DEFAULT_SEED})",
    )  # fmt: skip
    p.add_argument(
        "--models", type=_names, default=None, help="comma-separated LiteLLM ids (APEXMEM_LM)"
    )
    p.add_argument("--out", type=Path, default=None, help=f"summary JSON (default {DEFAULT_OUT})")
    p.add_argument("--results", type=Path, default=None, help="per-question JSONL (resume)")
    p.add_argument("--questions", type=Path, default=None, help=f"default {QUESTIONS}")
    p.add_argument(
        "--real-memory", type=Path, default=None,
        help="a directory written by benchmarks.query_languages.real_memory: its graph and "
        "questions instead of the generated ones",
    )  # fmt: skip
    p.add_argument("--sqlite", type=Path, default=None, help="gold SQLite file to (re)build")
    p.add_argument("--delete-after", action="store_true", help="delete ql_ nodes from Neo4j")
    p.add_argument(
        "--private-neo4j",
        action="store_true",
        help=f"run the Neo4j arms on a Neo4j of the study's own (port {STUDY_NEO4J_PORT})",
    )
    p.add_argument(
        "--allow-foreign-data",
        action="store_true",
        help="run although the Neo4j server holds entities that are not the study's",
    )
    p.add_argument("--zero-shot", action="store_true", help="run the arms without their demos")
    p.add_argument(
        "--compiled", type=Path, default=None,
        help="directory of compiled programs (default: compiled/s<seeds> of this package)",
    )  # fmt: skip
    p.add_argument("--report-only", action="store_true", help="only aggregate the JSONL")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    resolve_question_set(p, args)
    args.program = "zero-shot" if args.zero_shot else "compiled"
    args.compiled = args.compiled or compiled_dir(args.gold_seeds or [DEFAULT_SEED])
    args.arms = _names(args.arms)
    unknown = [a for a in args.arms if a not in ARMS]
    if unknown:
        p.error(f"unknown arm(s) {unknown}; choose from {list(ARMS)}")
    args.results = args.results or args.out.with_suffix(".jsonl")
    if args.models == []:
        p.error("--models names no model")
    seeds = args.gold_seeds or []
    if len({people_names(s) for s in seeds}) < len(seeds):
        p.error(f"--gold-seeds {seeds}: two seeds give the same people (or a seed repeats)")
    return args


REAL_FILES: Final = (GOLD_GRAPH.name, QUESTIONS.name, SOURCE)


def resolve_question_set(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The split, question file and output of the generated set or of ``--real-memory``."""
    real: Path | None = args.real_memory
    if real is None:
        args.split, args.questions = args.split or "test", args.questions or QUESTIONS
        args.out = args.out or DEFAULT_OUT
        return
    if args.gold_seeds:
        p.error("--real-memory asks its own graph's questions: --gold-seeds does not apply")
    if args.split not in (None, "all"):
        p.error("--real-memory questions have no train split (the demos come from the "
                "generated one): they run with --split all")  # fmt: skip
    missing = [name for name in REAL_FILES if not (real / name).is_file()]
    if missing:
        p.error(f"{real} has no {', '.join(missing)}: write it with "
                f"python -m benchmarks.query_languages.real_memory --out-dir {real}")  # fmt: skip
    args.split, args.questions = "all", args.questions or real / QUESTIONS.name
    args.out = args.out or real / DEFAULT_OUT.name


def load_done(path: Path, default_model: str = "") -> list[QuestionRecord]:
    """The results recorded so far; a record without a model gets ``default_model``."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]
    for r in records:
        r.model = r.model or default_model
    return records


def load_study(args: argparse.Namespace) -> tuple[GraphBatch, list[Question]]:
    """The gold graph and every question: generated for ``--gold-seeds``, else the data files."""
    if args.gold_seeds:
        return generate_seeds(args.gold_seeds)
    if args.real_memory is not None:
        return load_gold(args.real_memory / GOLD_GRAPH.name), load_questions(args.questions)
    return load_gold(), load_questions(args.questions)


def generated_study(seeds: list[int]) -> tuple[GraphBatch, list[Question]]:
    """The generated gold graph and questions of ``seeds`` (the data files for the default)."""
    return (load_gold(), load_questions()) if seeds == [DEFAULT_SEED] else generate_seeds(seeds)


def sqlite_path(args: argparse.Namespace, settings: Settings) -> Path:
    """``--sqlite``, else a file of the data dir named after the seed set."""
    if args.sqlite is not None:
        return Path(args.sqlite)
    if args.real_memory is not None:
        return Path(args.real_memory) / "study.sqlite"
    tag = "_s" + "-".join(str(s) for s in args.gold_seeds) if args.gold_seeds else ""
    return settings.data_dir / f"query_languages_gold{tag}.sqlite"


def endpoint(settings: Settings, model: str) -> tuple[str | None, str | None]:
    """(api_base, api_key) for ``model``, by the rules ``Settings.lm_endpoint`` has for
    APEXMEM_LM; the small local model at its own server (``apexmem services up llm-small``)
    unless APEXMEM_LM names it with an address of its own."""
    if model != SMALL_LM:
        return settings.model_copy(update={"lm": model}).lm_endpoint()
    key = settings.lm_api_key.get_secret_value() if settings.lm_api_key else "local"
    if settings.lm == SMALL_LM and "lm_api_base" in settings.model_fields_set:
        return settings.lm_api_base, key
    return SMALL_LM_API_BASE, key


def require_local_lms(settings: Settings, models: list[str]) -> None:
    """Exit with one line when a model's server on this machine does not answer, instead of
    recording every question as a failed answer, or serves another model."""
    for model in models:
        api_base = endpoint(settings, model)[0]
        check = local_lm_check(api_base, model)
        if check is None or api_base is None:
            continue
        try:
            check()
        except ServiceUnavailableError as exc:
            raise SystemExit(f"error: {exc}") from None
        check_served(api_base, model)


def check_served(api_base: str, model: str) -> None:
    """Exit when the server at ``api_base`` lists its models and ``model`` is not one of them
    (llama-server answers any model name with the one it serves)."""
    import httpx

    try:
        listed = httpx.get(f"{api_base.rstrip('/')}/models", timeout=5.0).json()
    except (httpx.HTTPError, ValueError):
        return
    served = [m.get("id") for m in listed.get("data", []) if isinstance(m, dict)]
    if served and model.split("/")[-1] not in served:
        raise SystemExit(f"error: the server at {api_base} serves {served}, not {model}")


STUDY_NEO4J_PORT: Final = 7798


@contextmanager
def study_neo4j(settings: Settings) -> Iterator[str]:
    """The study's own Neo4j (started unless already up; stopped at the end if started here)."""
    home = settings.apexmem_home / "study-neo4j"
    service = private_neo4j(settings.apexmem_home, home, STUDY_NEO4J_PORT)
    console.print(f"starting the study's Neo4j at {service.uri} (data under {home})")
    started = service.up().started
    try:
        yield service.uri
    finally:
        if started:
            service.down()


FOREIGN_ENTITIES: Final = (
    "MATCH (e:Entity) WHERE NOT e.entity_id STARTS WITH $prefix RETURN count(e) AS n"
)


@contextmanager
def neo4j_driver(uri: str, needed: bool, allow_foreign: bool = False) -> Iterator[Driver | None]:
    if not needed:
        yield None
        return
    # The study's own queries run before the gold graph exists (no `Entity` label yet): without
    # this, the server's "label does not exist" notices fill the log. GraphQuery sets its own.
    driver = GraphDatabase.driver(uri, auth=None, notifications_min_severity="OFF")
    try:
        driver.verify_connectivity()
        records, _, _ = driver.execute_query(FOREIGN_ENTITIES, prefix=PREFIX)
    except Exception as exc:
        driver.close()
        raise SystemExit(f"error: Neo4j at {uri} is unavailable: {exc}") from exc
    foreign = int(records[0]["n"])
    if foreign and not allow_foreign:
        driver.close()
        raise SystemExit(
            f"error: Neo4j at {uri} holds {foreign:,} entities that are not the study's; the "
            "Neo4j arms would read them (counts, scans) and time their queries against them. "
            "Point NEO4J_URI at an empty server, or pass --allow-foreign-data."
        )
    try:
        yield driver
    finally:
        driver.close()


def compiled_file(compiled: Path | None, arm: str) -> Path | None:
    """The compiled program of ``arm`` in the directory ``compiled`` (None: zero-shot)."""
    return None if compiled is None else compiled / FILES[arm]


def build_arms(
    names: Sequence[str],
    model: str,
    settings: Settings,
    stores: Stores,
    driver: Driver | None,
    compiled: Path | None = None,
) -> dict[str, Any]:
    """The arms ``names`` for ``model`` over the opened stores, with the programs compiled in
    the directory ``compiled`` (None: zero-shot)."""
    api_base, api_key = endpoint(settings, model)
    lm = make_lm(model, api_base, api_key, max_tokens=400, timeout=600)
    arms: dict[str, Any] = {a: build_agent_arm(a, lm, stores, compiled_file(compiled, a))
                            for a in names if a in AGENT_ARMS}  # fmt: skip
    if "text2cypher" in names and driver is not None and stores.neo4j_backend:
        t2c = compiled_file(compiled, "text2cypher")
        arms["text2cypher"] = Text2CypherArm(
            driver, stores.neo4j_backend.schema(), model, api_base or "", api_key or "",
            read_examples(t2c) if t2c else (),
        )  # fmt: skip
    if "text2sql" in names and stores.sqlite_backend is not None:
        schema = stores.sqlite_backend.schema()
        program = text2sql_program(
            stores.sqlite_backend, schema, compiled_file(compiled, "text2sql")
        )
        arms["text2sql"] = Text2SQLArm(lm, stores.sqlite_backend, schema, program=program)
    return arms


def ask_all(
    args: argparse.Namespace,
    todo: list[tuple[Question, str, str]],
    arms: dict[str, dict[str, Any]],
) -> None:
    """Ask every (question, model, arm) of ``todo``; append each result at once."""
    for n, (question, model, arm) in enumerate(todo, 1):
        started, load = time.time(), os.getloadavg()[0]
        record: QuestionRecord = arms[model][arm].ask(question)
        record.model, record.program = model, args.program
        record.started_at, record.load_at_start = round(started, 1), round(load, 2)
        with args.results.open("a", encoding="utf-8") as fh:
            fh.write(record.model_dump_json() + "\n")
        mark = "[green]ok[/]" if record.correct else "[red]wrong[/]"
        console.print(
            f"{n}/{len(todo)} {model} {arm} {question.qid} {mark} {record.seconds:.0f}s "
            f"answer={record.answer[:60]!r} gold={record.gold!r}",
            highlight=False,
        )


def run_arms(
    args: argparse.Namespace,
    settings: Settings,
    models: list[str],
    gold: GraphBatch,
    questions: list[Question],
) -> None:
    """Ask every (model, arm, question) not yet in the results file for this run's program
    (compiled or zero-shot), arm by arm: an arm's instructions and demos are a long prompt
    prefix the LLM server keeps cached only while that arm's questions follow each other."""
    done = {(r.model, r.arm, r.qid) for r in load_done(args.results, settings.lm)
            if r.program == args.program}  # fmt: skip
    todo = [(q, m, a) for m in models for a in args.arms for q in questions
            if (m, a, q.qid) not in done]  # fmt: skip
    if not todo:
        return
    require_local_lms(settings, models)
    needs_neo4j = any(a not in SQLITE_ARMS for a in args.arms)
    needs_sqlite = any(a in SQLITE_ARMS for a in args.arms)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        uri = settings.neo4j_uri
        if args.private_neo4j and needs_neo4j:
            uri = stack.enter_context(study_neo4j(settings))
        driver = stack.enter_context(neo4j_driver(uri, needs_neo4j, args.allow_foreign_data))
        path = sqlite_path(args, settings) if needs_sqlite else None
        stores = stack.enter_context(open_stores(gold, path, driver))
        compiled = None if args.zero_shot else args.compiled
        try:
            arms = {m: build_arms(args.arms, m, settings, stores, driver, compiled)
                    for m in models}  # fmt: skip
        except ApexMemError as exc:  # a compiled program for other instructions or tools
            raise SystemExit(f"error: {exc} (python -m benchmarks.query_languages.compile "
                             "writes them again)") from exc  # fmt: skip
        ask_all(args, todo, arms)
        if args.delete_after and driver is not None:
            console.print(f"deleted {delete_gold(driver, gold)} gold nodes from Neo4j")


def model_note(model: str) -> str:
    return MODEL_NOTES.get(model, model)


def report(
    args: argparse.Namespace,
    settings: Settings,
    models: list[str],
    every_question: list[Question],
    questions: list[Question],
) -> dict[str, Any]:
    """The summary: the run's provenance, the split, and per model its arms' figures."""
    wanted = {q.qid for q in questions}
    records = [r for r in load_done(args.results, settings.lm)
               if r.qid in wanted and r.arm in args.arms and r.model in models]  # fmt: skip
    by_model = {}
    for model in models:
        by_arm = program_rows(args.arms, [r for r in records if r.model == model], args.program)
        by_model[model] = {
            "model_note": model_note(model), "lm_api_base": endpoint(settings, model)[0],
            **model_figures(by_arm),
        }  # fmt: skip
    command = "python -m benchmarks.query_languages." + shlex.join(["run", *args.argv])
    return {
        "command": command,
        "runs": run_history(args, command),
        "results": str(shown_path(args.results)),
        "model": ", ".join(models),
        "models": models,
        "neo4j_uri": (
            f"bolt://127.0.0.1:{STUDY_NEO4J_PORT} (the study's own, --private-neo4j)"
            if args.private_neo4j
            else settings.neo4j_uri
        ),
        "agent_config": AGENT_CONFIG.model_dump(mode="json"),
        "few_shot": few_shot_note(args),
        "load_average": list(os.getloadavg()),
        **question_set_note(args, every_question),
        "split": args.split,
        "skip": args.skip,
        "limit": args.limit,
        "questions": len(questions),
        "qids": [q.qid for q in questions],
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "interval": "percentile, 95%"},
        "by_model": by_model,
    }


def run_history(args: argparse.Namespace, command: str) -> list[dict[str, str]]:
    """The commands (with their commits) that asked this summary's questions: those of the
    summary already at ``--out`` for the same results file, then this one unless it only
    reported; a command run again to resume is listed once."""
    runs: list[dict[str, str]] = []
    if args.out.is_file():
        try:
            old = json.loads(args.out.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = {}
        if old.get("results") == str(shown_path(args.results)):
            runs = old.get("runs", [])
    if not args.report_only and command not in [r["command"] for r in runs]:
        runs.append({"command": command, "commit": args.commit})
    return runs


def question_set_note(args: argparse.Namespace, every: list[Question]) -> dict[str, Any]:
    """Where the questions came from: the generated set's seeds and split sizes, or the
    real memory's source (its store, sha256, scope and seed)."""
    if args.real_memory is None:
        return {"gold_seeds": args.gold_seeds or [DEFAULT_SEED], "split_sizes": split_sizes(every)}
    return {"real_memory": {"dir": str(shown_path(args.real_memory)),
                            **load_source(args.real_memory)}}  # fmt: skip


def shown_path(path: Path) -> Path:
    """``path`` relative to the working directory when it lies under it."""
    resolved = path.resolve()
    return resolved.relative_to(Path.cwd()) if resolved.is_relative_to(Path.cwd()) else resolved


def few_shot_note(args: argparse.Namespace) -> dict[str, Any]:
    """Which programs the run used, and the demo questions of the compiled ones."""
    note: dict[str, Any] = {"program": args.program, "compiled_dir": str(shown_path(args.compiled))}
    if (args.compiled / MANIFEST).is_file():
        manifest = read_manifest(args.compiled)
        note["demos_per_arm"] = len(manifest.demos)
        note["demo_qids"] = [d.qid for d in manifest.demos]
        if args.real_memory is not None:
            note["demo_source"] = (
                f"the generated train split (gold seeds {manifest.gold_seeds}): the "
                "real-memory questions have no train split"
            )
    return note


def check_compiled(args: argparse.Namespace, gold: GraphBatch, every: list[Question]) -> None:
    """Refuse compiled programs that are missing or touch this question set's test split."""
    if args.zero_shot or args.report_only:
        return
    if not (args.compiled / MANIFEST).is_file():
        raise SystemExit(
            f"error: no compiled programs at {args.compiled}: write them with `python -m "
            "benchmarks.query_languages.compile` (with the same --gold-seeds), or pass --zero-shot"
        )
    try:
        if args.real_memory is None:
            check_train_only(args.compiled, every, {e.entity_id: e.name for e in gold.entities})
        else:
            check_foreign_demos(args.compiled, gold, every)
    except LeakError as exc:
        raise SystemExit(f"error: {exc}") from exc
    if args.split != "test" and args.real_memory is None:
        console.print(f"note: the {args.split} split holds the demo questions themselves")


def check_foreign_demos(compiled: Path, gold: GraphBatch, questions: list[Question]) -> None:
    """Demos for a question set without a train split: train questions of the generated set
    they were compiled from, none naming an entity of ``gold`` or holding one of ``questions``."""
    seeds = read_manifest(compiled).gold_seeds
    generated_gold, generated = generated_study(seeds)
    check_train_only(compiled, generated, {e.entity_id: e.name for e in generated_gold.entities})
    check_unseen(compiled, [e.name for e in gold.entities], [q.text for q in questions])


def study_questions(
    every_question: list[Question], split: Split, limit: int | None, skip: int = 0
) -> list[Question]:
    """The questions of ``split`` in file order, from the ``skip``-th up to the ``limit``-th."""
    return select(every_question, split)[skip:limit]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    args.commit = head_commit()  # taken when the run starts
    settings = Settings()
    models = args.models or [settings.lm]
    gold, every_question = load_study(args)
    questions = study_questions(every_question, args.split, args.limit, args.skip)
    check_compiled(args, gold, every_question)
    if not args.report_only:
        run_arms(args, settings, models, gold, questions)
    summary = report(args, settings, models, every_question, questions)
    print_tables(summary, console)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    summary["plots"] = [accuracy_plot(summary, args.out).name]
    args.out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(summary), encoding="utf-8")
    console.print(f"wrote {args.out}, {args.out.with_suffix('.md')} and {args.results}")


def accuracy_plot(summary: dict[str, Any], out: Path) -> Path:
    """Bars of accuracy per question kind, one per arm (the first model's), next to ``out``."""
    part = next(iter(summary["by_model"].values()))
    series = {arm: figures["accuracy_by_kind"] for arm, figures in part["arms"].items()}
    return grouped_bars(out.with_name(f"{out.stem}_by_kind.png"),
                        f"SQL vs Cypher: accuracy by question kind ({summary['split']} split)",
                        series, "accuracy %", (0, 100))  # fmt: skip


def exit_on_sigterm() -> None:
    """Make SIGTERM raise SystemExit, so a run stopped with ``kill`` still leaves through its
    ``finally`` blocks and stops the private Neo4j it started."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


if __name__ == "__main__":
    exit_on_sigterm()
    main()
