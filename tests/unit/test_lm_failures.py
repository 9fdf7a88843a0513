"""A language model that cannot be used stops ``add`` and ``ask`` with one typed error; a bad
reply stays a failure of its turn. The servers here are real: a port nobody listens on, and
the OpenAI-compatible stub answering an error or a fixed text."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import litellm
import pytest

from apexmem_neo import Memory
from apexmem_neo.agent import AgentConfig
from apexmem_neo.construction.calls import CompactJSONAdapter
from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.llm import make_lm
from apexmem_neo.llm.failures import language_model_error
from apexmem_neo.memory import (
    LanguageModelError,
    LanguageModelUnreachableError,
    UnknownModeError,
)
from apexmem_neo.testing import HashingEmbedder
from tests.openai_stub_server import OpenAIStubServer

SAID = [
    {"role": "user", "name": "Alice", "content": "I moved to Lisbon.", "timestamp": "2024-05-01"}
]
BANNERS = ("Give Feedback", "Provider List", "LiteLLM.Info")


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def open_memory(tmp_path: Path, lm: Any, **options: Any) -> Memory:
    return Memory.sqlite(
        tmp_path / "m.sqlite", lm=lm, embedder=HashingEmbedder(), home=tmp_path / "home",
        **options,
    )  # fmt: skip


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    """A memory with Alice's turn stored (no LLM) and no LM of its own."""
    with open_memory(tmp_path, None) as memory:
        memory.add(SAID, scope="alice", extract=False)
        yield memory


def test_an_unknown_mode_is_a_typed_error_listing_the_modes(tmp_path: Path) -> None:
    lm = dspy.utils.DummyLM([])  # never called: the mode is checked first
    expected = "'bogus': use one of fast, react, auto, query"
    with open_memory(tmp_path, lm) as memory, pytest.raises(UnknownModeError, match=expected):
        memory.ask("Where does Alice live?", scope="alice", mode="bogus")  # type: ignore[arg-type]
    assert lm.history == []


def test_a_local_model_that_does_not_answer_stops_ask_and_add(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    with open_memory(tmp_path, "openai/some-model", lm_api_base=base) as memory:
        with pytest.raises(LanguageModelUnreachableError) as info:
            memory.ask("Where does Alice live?", scope="alice")
        with pytest.raises(LanguageModelUnreachableError):
            memory.add(SAID, scope="alice")
    message = str(info.value)
    assert "openai/some-model" in message and base in message
    assert "apexmem services up llm" in message and "\n" not in message
    assert isinstance(info.value, ServiceUnavailableError) and info.value.service == "llm"


def test_a_refused_connection_during_a_call_stops_it(memory: Memory) -> None:
    """127.0.0.2 is this machine too, but not an address the memory checks before calling:
    the refusal comes back from the call itself."""
    lm = make_lm("openai/some-model", f"http://127.0.0.2:{free_port()}/v1", "k", num_retries=0)
    agent = memory.agent(scope="alice", lm=lm, config=AgentConfig(mode="fast"))
    with pytest.raises(LanguageModelUnreachableError, match="Connection refused") as info:
        agent.ask("Where does Alice live?")
    assert "openai/some-model" in str(info.value) and "APEXMEM_LM" in str(info.value)


def test_no_api_key_stops_add_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with open_memory(tmp_path, "openai/gpt-4o-mini") as memory:
        with pytest.raises(LanguageModelError, match="Fix: set OPENAI_API_KEY") as info:
            memory.add(SAID, scope="alice")
        assert memory.checkpoint.failed() == []  # no turn was recorded as failed
    assert not isinstance(info.value, LanguageModelUnreachableError)
    assert str(info.value).startswith("language model openai/gpt-4o-mini: no API key")


@pytest.mark.parametrize("mode", ["fast", "react", "query", "auto"])
def test_a_refused_key_stops_every_mode(memory: Memory, mode: str) -> None:
    with OpenAIStubServer(chat_error=(401, "Incorrect API key provided")) as stub:
        lm = make_lm("openai/some-model", stub.url, "wrong-key")
        agent = memory.agent(scope="alice", lm=lm, config=AgentConfig(mode=mode))
        with pytest.raises(LanguageModelError, match="Incorrect API key provided. Fix: set"):
            agent.ask("Where does Alice live?")
        assert len(stub.requests) == 1  # stopped at the first refusal, no retry, no loop


def test_a_model_no_provider_knows_is_named_without_litellm_banners(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(litellm, "suppress_debug_info", False)  # as before any LM was built
    with open_memory(tmp_path, "bogus-model") as memory:
        memory.add(SAID, scope="alice", extract=False)
        with pytest.raises(LanguageModelError, match="no provider serves this model id"):
            memory.ask("Where does Alice live?", scope="alice", mode="fast")
    out, err = capfd.readouterr()
    assert not [b for b in BANNERS if b in out + err]


def test_a_malformed_reply_stays_a_failure_of_its_turn(tmp_path: Path) -> None:
    adapter = CompactJSONAdapter()
    lm = dspy.utils.DummyLM([{"event": "garbage"}] * 3, adapter=adapter)
    with open_memory(tmp_path, lm) as memory:
        result = memory.add(SAID, scope="alice")
    assert [t.status for t in result.turns] == ["failed"]
    assert result.turns[0].error


def test_a_per_call_failure_is_not_fatal() -> None:
    assert language_model_error(ValueError("bad JSON")) is None
    assert language_model_error(dspy.LMTimeoutError("slow", model="m")) is None
    assert language_model_error(dspy.LMServerError("boom", model="m")) is None
    assert language_model_error(dspy.ContextWindowExceededError(model="m")) is None
    fatal = language_model_error(dspy.LMBillingError("quota exceeded", model="m"))
    assert fatal is not None and str(fatal).startswith("language model m: quota exceeded. Fix:")
