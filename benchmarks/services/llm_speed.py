"""Raw speed of the local llama-server: prompt and generation tokens/s, no DSPy in the way.

    python -m benchmarks.services.llm_speed [--calls 2] [--api-base http://127.0.0.1:8080]

Sends a ~1,260-token prompt with the prompt cache off (each call reads the whole prompt) and
prints the server's own timings. Run it on a quiet machine: llama-server's two threads share
the two cores with anything else that is busy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request

PROMPT = "Summarise the following conversation. " + (
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt inspired. " * 60
)


def one_call(api_base: str, variant: int) -> dict[str, float]:
    body = {
        "model": "local",
        "messages": [{"role": "user", "content": f"{PROMPT} variant {variant} {time.time()}"}],
        "max_tokens": 120,
        "temperature": 0,
        "cache_prompt": False,
    }
    request = urllib.request.Request(
        f"{api_base.rstrip('/')}/v1/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        timings = json.load(response).get("timings", {})
    return {
        "wall_s": round(time.perf_counter() - t0, 1),
        "prompt_tokens": timings.get("prompt_n", 0),
        "prompt_tok_s": round(timings.get("prompt_per_second", 0.0), 1),
        "generated_tokens": timings.get("predicted_n", 0),
        "generation_tok_s": round(timings.get("predicted_per_second", 0.0), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--api-base", default="http://127.0.0.1:8080")
    args = parser.parse_args(argv)
    try:
        for i in range(args.calls):
            print(json.dumps(one_call(args.api_base, i)), flush=True)
    except OSError as exc:
        print(f"llama-server not reachable at {args.api_base}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
