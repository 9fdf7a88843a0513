"""Which language-model failures stop a call, and the one-line error each becomes.

A model that cannot be used at all fails every call the same way: its server refuses the
connection, no API key is set, the provider refuses the key, or no provider knows the model.
Callers that record a failed call and go on (the construction's per-turn retries, the agent's
fast path and loops) re-raise these through ``raise_if_fatal``, so ``add`` and ``ask`` stop with
``LanguageModelError`` instead of marking every turn failed or answering ''. A failure of one
reply (output the adapter cannot parse, a timeout, a server error on one prompt) is not fatal:
the caller records it.

DSPy classifies LiteLLM's and its own engines' errors into typed ``dspy.LM*Error`` classes;
this module only reads those types.
"""

from __future__ import annotations

from typing import Any

import dspy

from apexmem_neo.errors import LanguageModelError, LanguageModelUnreachableError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "0.0.0.0", "[::1]", "::1")
CHOOSE_MODEL = "or choose another model with APEXMEM_LM (lm=)"
START_LOCAL = f"start it with `apexmem services up llm`, {CHOOSE_MODEL}"


def is_local_address(api_base: str | None) -> bool:
    """Whether ``api_base`` is a server on this machine (the local llama-server's kind)."""
    if not api_base:
        return False
    host = api_base.split("://")[-1].split("/")[0].rsplit(":", 1)[0]
    return host in LOCAL_HOSTS


def unreachable(model: str, api_base: str | None, cause: str) -> LanguageModelUnreachableError:
    """The error for a model whose server does not answer at ``api_base``."""
    if is_local_address(api_base):
        fix = START_LOCAL
    else:
        fix = f"check the network and the address (APEXMEM_LM_API_BASE, api_base=), {CHOOSE_MODEL}"
    return LanguageModelUnreachableError(model, api_base or "its provider", cause, fix)


def _key_names(model: str) -> str:
    """The provider's key variables LiteLLM looks for (e.g. OPENAI_API_KEY), as a phrase."""
    try:
        import litellm

        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:  # a model LiteLLM cannot place has no known key variable
        missing = []
    return " or ".join(str(name) for name in missing) or "the provider's API key variable"


def _knows_model(model: str) -> bool:
    """Whether LiteLLM can tell which provider serves ``model`` (``provider/name``)."""
    import litellm

    try:
        litellm.get_llm_provider(model)
    except Exception:  # LiteLLM's BadRequestError: "LLM Provider NOT provided"
        return False
    return True


def _first_sentence(exc: BaseException) -> str:
    """The error's own first sentence (DSPy's messages go on, in more lines, with advice about
    ``dspy.LM`` arguments, which a memory's user does not write)."""
    text = str(getattr(exc, "message", "") or exc).strip()
    first = " ".join(text.splitlines()[0].split()) if text else ""
    return first.split(". ")[0].rstrip(".") or type(exc).__name__


def language_model_error(exc: BaseException, lm: Any = None) -> LanguageModelError | None:
    """The ``LanguageModelError`` ``exc`` means, or None when it is a failure of one call.

    ``lm`` (default: DSPy's current LM) supplies the model name and its address."""
    if not isinstance(exc, dspy.LMError) or isinstance(exc, dspy.ContextWindowExceededError):
        return None
    lm = lm if lm is not None else dspy.settings.lm
    model = str(getattr(exc, "model", None) or getattr(lm, "model", None) or "(unnamed)")
    api_base = getattr(lm, "kwargs", {}).get("api_base")
    cause = _first_sentence(exc)
    keys = f"set {_key_names(model)} (or APEXMEM_LM_API_KEY, api_key=), {CHOOSE_MODEL}"
    if isinstance(exc, dspy.LMTransportError):
        return unreachable(model, api_base, cause)
    if isinstance(exc, dspy.LMConfigurationError | dspy.LMAuthError):
        return LanguageModelError(model, cause, keys)
    if isinstance(exc, dspy.LMBillingError):
        return LanguageModelError(model, cause, f"check the account's billing, {CHOOSE_MODEL}")
    unknown = isinstance(exc, dspy.LMUnsupportedModelError) or (
        isinstance(exc, dspy.LMInvalidRequestError) and not _knows_model(model)
    )
    if unknown:
        return LanguageModelError(
            model,
            "no such model" if _knows_model(model) else "no provider serves this model id",
            "set APEXMEM_LM (lm=) to a LiteLLM model id, provider/name "
            "(e.g. openai/gpt-4o-mini)",
        )
    return None


def raise_if_fatal(exc: BaseException, lm: Any = None) -> None:
    """Raise the ``LanguageModelError`` ``exc`` means (from ``exc``); return if it is a
    failure of this call only, for the caller to record."""
    fatal = language_model_error(exc, lm)
    if fatal is not None:
        raise fatal from exc
