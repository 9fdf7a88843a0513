"""docker/compose.yml and docker/Dockerfile stay in step with the code (no Docker engine runs
here): every setting the server's container is given is one the settings read, and the extras
the image installs exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from apexmem_neo.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def test_the_server_container_is_configured_with_known_settings() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    server = compose["services"]["apexmem"]
    aliases = {field.alias for field in Settings.model_fields.values()}
    assert set(server["environment"]) <= aliases
    assert server["build"]["dockerfile"] == "docker/Dockerfile"
    assert set(server["depends_on"]) == {"neo4j", "elasticsearch"}
    assert server["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"


def test_the_image_installs_extras_that_exist() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    (extras,) = re.findall(r"pip install [^']*'\.\[([a-z0-9,-]+)\]'", dockerfile)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(extras.split(",")) <= set(project["optional-dependencies"])
    assert '"apexmem", "serve", "--host", "0.0.0.0"' in dockerfile
