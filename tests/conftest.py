"""The test run is an entry point like the CLI: LiteLLM reads the model metadata it ships
with instead of fetching it when first imported (the library itself sets no variable)."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
