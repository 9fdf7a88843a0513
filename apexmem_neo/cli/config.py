"""`apexmem config`: the settings in effect, read from the environment (secrets masked)."""

from __future__ import annotations

import json

from rich.markup import escape
from rich.table import Table

from apexmem_neo.cli.common import JsonOpt, console, load_settings, print_json


def config(as_json: JsonOpt = False) -> None:
    """Show the settings in effect, by environment variable (secrets masked).

    Also shows what the LM resolves to (model, address); passwords and API keys print as ****.
    """
    effective = load_settings().effective()
    if as_json:
        print_json(effective)
        return
    table = Table("variable", "value")
    for name, value in effective.items():
        shown = value if isinstance(value, str) else json.dumps(value, default=str)
        table.add_row(name, escape(shown))
    console.print(table)
