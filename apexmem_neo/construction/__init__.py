"""Construction: conversations and document streams -> the append-only temporal graph."""

from apexmem_neo.construction.calls import CallResult, LLMRunner, UsageLedger
from apexmem_neo.construction.candidates import (
    Candidate,
    CandidateSource,
    EntityCatalog,
    PropertyCatalog,
)
from apexmem_neo.construction.checkpoint import Checkpoint, DecisionRecord
from apexmem_neo.construction.grounding import GroundedTime, TimeSource, ground_time
from apexmem_neo.construction.loaders import TurnInput, load_jsonl, load_turns
from apexmem_neo.construction.online import OnlineResult, build_online, relevance
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)

__all__ = [
    "CallResult",
    "Candidate",
    "CandidateSource",
    "Checkpoint",
    "ConstructionPipeline",
    "DecisionRecord",
    "EntityCatalog",
    "GroundedTime",
    "LLMRunner",
    "OnlineResult",
    "PipelineConfig",
    "PropertyCatalog",
    "RunStats",
    "TimeSource",
    "TurnInput",
    "TurnReport",
    "UsageLedger",
    "build_online",
    "ground_time",
    "load_jsonl",
    "load_turns",
    "relevance",
]
