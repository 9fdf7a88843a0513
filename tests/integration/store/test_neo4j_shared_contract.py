"""Every case of the shared GraphStore suite (tests/unit/store/test_contract.py and its paged
reads, test_contract_pages.py) on Neo4j.

``make_store`` / ``store`` come from this folder's conftest: each store starts from an empty
graph, once with the default UNWIND chunk size and once with 2-row chunks.
"""

from __future__ import annotations

import pytest

from tests.unit.store.test_contract import *  # noqa: F403
from tests.unit.store.test_contract_pages import *  # noqa: F403

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]
