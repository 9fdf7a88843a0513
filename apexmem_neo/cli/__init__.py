"""The `apexmem` command line: a thin typer layer over the library, split by command group."""
