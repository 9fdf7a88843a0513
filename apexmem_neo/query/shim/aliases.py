"""Name resolution of the SQL shim: which Cypher variable a SQL table alias or column means."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from apexmem_neo.errors import ToolError
from apexmem_neo.query import graph_mapping
from apexmem_neo.query.cypher.quoting import ident, prop


@dataclass
class TableRef:
    """One FROM / JOIN item: a node label, the PARTICIPANT relationship or a derived table."""

    alias: str
    var: str
    table: str | None
    """The base table, or None for a subquery / CTE (its rows are maps bound to ``var``)."""
    columns: tuple[str, ...]
    optional: bool = False
    using: frozenset[str] = frozenset()
    """Columns joined with USING: SQLite shows them once, from the left table."""

    def expr(self, column: str) -> str:
        return prop(self.var, column)

    def pattern(self, scope_label: str | None = None) -> str:
        """The table's graph pattern; with ``scope_label`` every node in it carries that label
        (the nodes of one scope), so the translated query reads that scope only."""
        extra = f":{scope_label}" if scope_label else ""
        if self.table in graph_mapping.TABLE_LABELS:
            return f"({self.var}:{graph_mapping.TABLE_LABELS[self.table]}{extra})"
        start, rel, end = graph_mapping.RELATIONSHIP_TABLES[str(self.table)]
        return f"(:{start}{extra})-[{self.var}:{rel}]->(:{end}{extra})"

    def completions(self) -> list[str]:
        """``var.col IS NOT NULL`` for the NOT NULL columns that complete composite indexes."""
        columns = graph_mapping.INDEX_COMPLETIONS.get(self.table or "", ())
        return [f"{self.expr(c)} IS NOT NULL" for c in columns]

    def nullable(self, column: str) -> bool:
        if self.optional or self.table is None:
            return True
        return graph_mapping.is_nullable(self.table, column)


@dataclass
class Scope:
    """The tables of one SELECT, with the enclosing SELECT's scope for correlated subqueries."""

    parent: Scope | None = None
    refs: dict[str, TableRef] = field(default_factory=dict)

    def add(self, ref: TableRef) -> None:
        if ref.alias in self.refs:
            raise ToolError("Duplicate table alias", f"the alias {ref.alias!r} is used twice.")
        self.refs[ref.alias] = ref

    def find(self, column: exp.Column) -> tuple[TableRef, str]:
        """The table ref and column name a SQL column reference means."""
        name = column.name.lower()
        table = column.table.lower()
        scope: Scope | None = self
        while scope is not None:
            hit = scope._find_here(name, table)
            if hit is not None:
                return hit, name
            scope = scope.parent
        where = f"{column.table}.{column.name}" if table else column.name
        raise ToolError(
            "Unknown column",
            f"no table in the query has the column {where!r}; see SchemaViewer for the columns.",
        )

    def _find_here(self, name: str, table: str) -> TableRef | None:
        if table:
            ref = self.refs.get(table)
            if ref is None:
                return None
            if name not in ref.columns:
                raise ToolError(
                    "Unknown column",
                    f"{table!r} has no column {name!r}; its columns: {', '.join(ref.columns)}.",
                )
            return ref
        hits = [r for r in self.refs.values() if name in r.columns and name not in r.using]
        if len(hits) > 1:
            raise ToolError(
                "Ambiguous column",
                f"{name!r} is a column of {', '.join(r.alias for r in hits)}; "
                "qualify it (alias.column).",
            )
        return hits[0] if hits else None

    def resolve(self, column: exp.Column) -> str:
        ref, name = self.find(column)
        return ref.expr(name)

    def nullable(self, e: exp.Expr) -> bool:
        if isinstance(e, exp.Count):
            return False
        if isinstance(e, exp.Literal):
            return False
        if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star):
            try:
                ref, name = self.find(e)
            except ToolError:
                return True
            return ref.nullable(name)
        return True


def output_name(e: exp.Expr) -> str:
    """The column name SQLite gives a select item: its alias, its column, else its text."""
    if isinstance(e, exp.Alias):
        return e.alias
    if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star):
        return e.name
    return e.sql(dialect="sqlite")


def unique_names(names: list[str]) -> list[str]:
    """Cypher needs distinct column names; later duplicates get a ``_2``, ``_3`` suffix."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        out.append(name if count == 1 else f"{name}_{count}")
    return out


def map_literal(names: tuple[str, ...], keys: tuple[str, ...] = ()) -> str:
    """A derived table's row as a map of its columns ``names``, under ``keys`` if given (a
    CTE's column list); keys lower-cased, as SQL column references resolve."""
    pairs = zip(keys or names, names, strict=True)
    return "{" + ", ".join(f"{ident(k.lower())}: {ident(n)}" for k, n in pairs) + "}"
