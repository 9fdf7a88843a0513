"""``MemoryConfig``: built from the settings at the edges, the same memory whether given as a
config or as keyword options, one clear error for an unknown option, secrets kept out of
sight."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from apexmem_neo import AsyncMemory, Memory, MemoryConfig
from apexmem_neo.cli.app import app
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory import MemoryOptions
from apexmem_neo.memory.config import SettingsChoices
from apexmem_neo.settings import LOCAL_LM, LOCAL_LM_API_BASE, Settings
from apexmem_neo.testing import HashingEmbedder

LM_SECRET = "lm-secret-5678"
ES_SECRET = "es-secret-9012"


def test_the_keyword_options_are_the_config_fields() -> None:
    assert set(MemoryOptions.__annotations__) == set(MemoryConfig.model_fields)


def test_the_settings_choices_are_the_keywords_open_from_settings_takes() -> None:
    from apexmem_neo.memory.build import open_from_settings

    keywords = inspect.signature(open_from_settings).parameters.values()
    names = {p.name for p in keywords if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(SettingsChoices.__annotations__) == names


def test_the_defaults_are_the_local_model_and_the_stores_own_search() -> None:
    config = MemoryConfig()
    assert config.lm == LOCAL_LM and config.search == "auto"
    assert config.max_turn_chars == Settings().max_turn_chars


def test_a_config_round_trips_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_LM", "openai/gpt-4o-mini")
    monkeypatch.setenv("APEXMEM_LM_API_KEY", LM_SECRET)
    monkeypatch.setenv("APEXMEM_SEARCH", "elasticsearch")
    monkeypatch.setenv("APEXMEM_INDEX_NAME", "team")
    monkeypatch.setenv("ELASTICSEARCH_API_KEY", ES_SECRET)
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")
    monkeypatch.setenv("APEXMEM_MAX_TURN_CHARS", "500")
    config = MemoryConfig.from_settings(Settings())
    assert (config.lm, config.lm_api_base, config.api_key()) == (
        "openai/gpt-4o-mini",
        None,
        LM_SECRET,
    )
    assert (config.search, config.index_name) == ("elasticsearch", "team")
    assert config.elasticsearch_options == {"api_key": ES_SECRET}
    assert (config.embedder, config.max_turn_chars) == ("all-MiniLM-L6-v2", 500)
    assert config.home == tmp_path and config.embed_cache == tmp_path / "cache" / "embeddings.db"
    assert MemoryConfig.model_validate(config.model_dump()) == config


def test_the_local_model_gets_the_local_server_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("APEXMEM_LM", raising=False)
    monkeypatch.delenv("APEXMEM_LM_API_BASE", raising=False)
    config = MemoryConfig.from_settings(Settings())
    assert (config.lm, config.lm_api_base) == (LOCAL_LM, LOCAL_LM_API_BASE)


def opened(memory: Memory) -> dict[str, Any]:
    """What a memory was opened with, as far as it shows."""
    with memory:
        return {
            "location": memory.location,
            "search": memory.search_location,
            "max_turn_chars": memory.max_turn_chars,
            "lm": memory.lm,
            "agent": memory.agent_config,
        }


def test_options_and_a_config_open_the_same_memory(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    path = tmp_path / "m.sqlite"
    home = tmp_path / "home"
    config = MemoryConfig(lm=None, embedder=embedder, home=home, max_turn_chars=77)
    by_config = opened(Memory.sqlite(path, config))
    by_options = opened(
        Memory.sqlite(path, lm=None, embedder=embedder, home=home, max_turn_chars=77)
    )
    assert by_config == by_options
    assert by_config["max_turn_chars"] == 77
    assert by_config["search"] == str(tmp_path / "m.search.sqlite")


def test_options_lay_over_a_config(tmp_path: Path) -> None:
    config = MemoryConfig(lm=None, embedder=HashingEmbedder(), home=tmp_path, max_turn_chars=77)
    shown = opened(Memory.sqlite(tmp_path / "m.sqlite", config, max_turn_chars=55, search=None))
    assert shown["max_turn_chars"] == 55 and shown["search"] is None
    assert config.max_turn_chars == 77  # the given config is left as it was


def test_from_settings_opens_what_its_config_opens(tmp_path: Path) -> None:
    settings = Settings(APEXMEM_HOME=tmp_path, APEXMEM_MAX_TURN_CHARS=99)
    path = tmp_path / "s.sqlite"
    from_settings = opened(Memory.from_settings(settings, db=path))
    by_config = opened(Memory.sqlite(path, MemoryConfig.from_settings(settings)))
    from_settings.pop("lm"), by_config.pop("lm")  # two equal LMs, not one object
    assert from_settings == by_config


def test_an_unknown_option_is_one_error_naming_it_and_the_valid_ones(tmp_path: Path) -> None:
    options: dict[str, Any] = {"lm": None, "embeder": HashingEmbedder()}
    with pytest.raises(InvalidInputError) as refused:
        Memory.sqlite(tmp_path / "m.sqlite", **options)
    message = str(refused.value)
    assert message.startswith("unknown memory option 'embeder'")
    assert "embedder" in message and "max_turn_chars" in message
    assert not (tmp_path / "m.sqlite").exists()  # refused before anything is made
    with pytest.raises(InvalidInputError, match="unknown memory option 'embeder'"):
        asyncio.run(AsyncMemory.sqlite(tmp_path / "m.sqlite", **options))


def test_a_bad_value_is_one_error_naming_the_option() -> None:
    with pytest.raises(InvalidInputError, match="search: Input should be 'auto'"):
        MemoryConfig().with_options({"search": "solr"})
    with pytest.raises(InvalidInputError, match="max_turn_chars: max_turn_chars 0 is out"):
        MemoryConfig().with_options({"max_turn_chars": 0})


def test_a_config_is_frozen() -> None:
    with pytest.raises(ValueError, match="frozen"):
        MemoryConfig().index_name = "other"  # type: ignore[misc]


def test_secrets_are_masked_in_repr() -> None:
    config = MemoryConfig(
        lm_api_key=SecretStr(LM_SECRET), elasticsearch_options={"api_key": ES_SECRET}
    ).with_options({"lm_api_key": LM_SECRET})
    for text in (repr(config), str(config)):
        assert LM_SECRET not in text and ES_SECRET not in text
    assert config.api_key() == LM_SECRET


def test_secrets_are_masked_by_apexmem_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_LM_API_KEY", LM_SECRET)
    monkeypatch.setenv("ELASTICSEARCH_PASSWORD", ES_SECRET)
    result = CliRunner().invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["APEXMEM_LM_API_KEY"] == shown["ELASTICSEARCH_PASSWORD"] == "****"
    assert LM_SECRET not in result.output and ES_SECRET not in result.output
