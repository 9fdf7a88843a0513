"""The SQL-compat shim: a read-only SELECT over the paper's tables, translated to Cypher.

Tables become labels (``facts`` -> ``(f:Fact)``) and ``event_participants`` becomes the
relationship ``(:Event)-[ep:PARTICIPANT]->(:Entity)``; node and relationship properties carry
the same names and values as the SQL columns, so a join is a property equality on the mirrored
id columns. Supported: SELECT [DISTINCT], FROM with aliases, [INNER|LEFT|CROSS] JOIN ... ON /
USING, comma joins, subqueries and CTEs in FROM (as ``CALL () { ... }``; a CTE may list its
columns and read the other CTEs of its WITH, and one that reads itself is refused, as SQLite
refuses it), WHERE, GROUP BY with aggregates, HAVING, ORDER BY (with SQLite's NULL order),
LIMIT / OFFSET, UNION [ALL], scalar / IN / EXISTS subqueries, ``:name`` parameters, and the
expressions of ``expressions`` (with SQLite's date functions from ``dates``). Anything else
raises ``ToolError`` naming the construct and showing the Cypher to write instead.

For speed on large graphs the translation adds ``x.col IS NOT NULL`` for the NOT NULL columns
that complete a composite index (``graph_mapping.INDEX_COMPLETIONS``; no row changes), and
moves WHERE conditions on required tables in front of OPTIONAL MATCH (LEFT JOIN).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from apexmem_neo.errors import ToolError
from apexmem_neo.query import graph_mapping
from apexmem_neo.query.cypher.quoting import ident
from apexmem_neo.query.shim.aliases import Scope, TableRef, map_literal, output_name
from apexmem_neo.query.shim.expressions import (
    ExprTranslator,
    Namer,
    SubqueryTranslator,
    unsupported,
)
from apexmem_neo.query.shim.projection import Projection, negative, project
from apexmem_neo.query.sql.guard import check_sql, circular_cte, too_large

Ctes = dict[str, exp.CTE]
"""The CTEs a query sees, by lower-cased name: its own WITH's and the enclosing queries'."""

JOIN_HINT = "MATCH (f:Fact) OPTIONAL MATCH (e:Entity) WHERE e.entity_id = f.entity_id RETURN f, e"


@dataclass(frozen=True)
class Translation:
    cypher: str
    columns: tuple[str, ...]


def sql_to_cypher(sql: str, scope_label: str | None = None) -> Translation:
    """Check ``sql`` with the SQL guard and translate it (raises ``ToolError``). The
    translation recurses once per nesting level or chained operator, so a query too deep
    for the interpreter's stack is refused like the guard refuses it. With ``scope_label``
    every node pattern of the translation carries it: the query reads that scope only."""
    tree = check_sql(sql, graph_mapping.QUERYABLE_TABLES)
    try:
        return ShimTranslator(scope_label).top(tree)
    except RecursionError as exc:
        raise too_large() from exc


class ShimTranslator:
    """One translation; holds the fresh-name generator shared by all nested queries."""

    def __init__(self, scope_label: str | None = None) -> None:
        self.namer = Namer()
        self.scope_label = scope_label
        self.open_ctes: set[int] = set()
        """The CTEs being translated (by node id): reading one of them again is a cycle."""

    def top(self, tree: exp.Query) -> Translation:
        if isinstance(tree, exp.Union):
            text, names = self.union(tree, {})
            return Translation(text, names)
        clauses, projection = self.select(tree, None, {})
        return Translation(_join(clauses, projection.render("RETURN")), projection.names)

    # ---- queries ----

    def union(self, tree: exp.Union, ctes: Ctes) -> tuple[str, tuple[str, ...]]:
        ctes = {**ctes, **self._ctes(tree)}
        branches = _branches(tree)
        kinds = _union_kinds(tree)
        parts: list[str] = []
        names: tuple[str, ...] = ()
        for i, branch in enumerate(branches):
            clauses, projection = self.select(branch, None, ctes, names or None)
            names = names or projection.names
            if i:
                parts.append(kinds[i - 1])
            parts.append(_join(clauses, projection.render("RETURN")))
        text = " ".join(parts)
        tail = self._union_tail(tree, names)
        if tail:
            text = f"CALL () {{ {text} }} RETURN {', '.join(ident(n) for n in names)}{tail}"
        return text, names

    def _union_tail(self, tree: exp.Union, names: tuple[str, ...]) -> str:
        tail = ""
        order = tree.args.get("order")
        if order is not None:
            keys = []
            for o in order.expressions:
                name = _named_order(o.this, list(names))
                if name is None:
                    raise unsupported("ORDER BY an expression on a UNION", "ORDER BY a column name")
                keys.append(ident(name) + (" DESC" if o.args.get("desc") else ""))
            tail += " ORDER BY " + ", ".join(keys)
        literal = ExprTranslator(_no_columns, self.subquery_in(None, {}), self.namer)
        return tail + _skip_limit(tree, literal.tr)

    def select(
        self,
        tree: exp.Expr,
        parent: Scope | None,
        ctes: Ctes,
        names: tuple[str, ...] | None = None,
    ) -> tuple[list[str], Projection]:
        """The clauses and the final projection of one SELECT (``names`` forces column names)."""
        if isinstance(tree, exp.Subquery):
            tree = tree.this
        if not isinstance(tree, exp.Select):
            raise unsupported(f"a nested {tree.key.upper()} here", "a plain SELECT")
        ctes = {**ctes, **self._ctes(tree)}
        out_names = [output_name(e) for e in tree.expressions]
        self.namer.used.update(n for n in out_names)
        scope = Scope(parent)
        clauses = self._from(tree, scope, ctes)
        pre = ExprTranslator(scope.resolve, self.subquery_in(scope, ctes), self.namer)
        where = tree.args.get("where")
        if where is not None:
            early, late = _split_where(where.this, scope)
            _add_where(clauses, [pre.tr(c) for c in early], [pre.tr(c) for c in late], scope)
        projection = project(tree, scope, pre, self.namer, clauses)
        if names is not None:
            if len(names) != len(projection.items):
                raise ToolError("UNION column count", "every UNION branch needs the same columns.")
            projection.items = [(e, n) for (e, _), n in zip(projection.items, names, strict=True)]
        return clauses, projection

    def subquery_in(self, scope: Scope | None, ctes: Ctes) -> SubqueryTranslator:
        """Translates a value subquery (scalar, IN, EXISTS) that sees ``scope`` (correlated)."""

        def translate(query: exp.Query) -> tuple[str, tuple[str, ...]]:
            if isinstance(query, exp.Union):
                raise unsupported(
                    "UNION inside a value subquery", "two COLLECT { } lists joined with +"
                )
            clauses, projection = self.select(query, scope, ctes)
            return _join(clauses, projection.render("RETURN")), projection.names

        return translate

    def _ctes(self, tree: exp.Expr) -> Ctes:
        with_ = tree.args.get("with_") or tree.args.get("with")
        if with_ is None:
            return {}
        if with_.args.get("recursive"):
            raise _recursive()
        return {cte.alias_or_name.lower(): cte for cte in with_.expressions}

    # ---- FROM and JOIN ----

    def _from(self, tree: exp.Select, scope: Scope, ctes: Ctes) -> list[str]:
        from_ = tree.args.get("from_") or tree.args.get("from")
        if from_ is None:
            if tree.args.get("joins"):
                raise unsupported("JOIN without FROM")
            return []
        calls: list[str] = []
        main: list[str] = []
        main_where: list[str] = []
        later: list[str] = []
        first = self._add_source(from_.this, scope, ctes, calls, main)
        main_where.extend(first.completions())
        for join in tree.args.get("joins") or []:
            self._join(join, scope, ctes, calls, main, main_where, later)
        head = []
        if main:
            match = "MATCH " + ", ".join(main)
            if main_where:
                match += " WHERE " + " AND ".join(main_where)
            head.append(match)
        elif main_where:
            later.insert(0, "WITH * WHERE " + " AND ".join(main_where))
        return calls + head + later

    def _add_source(
        self,
        source: exp.Expr,
        scope: Scope,
        ctes: Ctes,
        calls: list[str],
        main: list[str],
        optional: bool = False,
    ) -> TableRef:
        ref, call = self._source(source, ctes, optional)
        scope.add(ref)
        if call is not None:
            if optional:
                raise unsupported("LEFT JOIN to a subquery or CTE", JOIN_HINT)
            calls.append(call)
        elif not optional:
            main.append(ref.pattern(self.scope_label))
        return ref

    def _source(self, source: exp.Expr, ctes: Ctes, optional: bool) -> tuple[TableRef, str | None]:
        alias = source.alias_or_name.lower() if isinstance(source, exp.Table | exp.Subquery) else ""
        if isinstance(source, exp.Table):
            name = source.name.lower()
            if name in ctes:
                return self._cte(ctes[name], alias or name, ctes)
            if name in graph_mapping.TABLE_LABELS or name in graph_mapping.RELATIONSHIP_TABLES:
                var = self.namer.fresh(alias or name)
                columns = graph_mapping.table_columns(name)
                return TableRef(alias or name, var, name, columns, optional), None
            raise ToolError("Unknown table", f"{source.name!r} is not one of the paper's tables.")
        if isinstance(source, exp.Subquery):
            if not alias:
                alias = self.namer.fresh("subquery")
            return self._derived(source.this, alias, ctes)
        raise unsupported(f"{source.sql(dialect='sqlite')} in FROM", "MATCH (n:Label) ...")

    def _cte(self, cte: exp.CTE, alias: str, ctes: Ctes) -> tuple[TableRef, str]:
        """A CTE read in FROM: its query as a derived table, with the CTE's column names if
        it lists them. As in SQLite, a CTE that reads itself is refused (not read as the
        table it shadows); one whose query is a UNION would be a recursive CTE."""
        if id(cte) in self.open_ctes:
            raise _recursive() if isinstance(cte.this, exp.Union) else circular_cte(cte.alias)
        self.open_ctes.add(id(cte))
        try:
            return self._derived(cte.this, alias, ctes, tuple(cte.alias_column_names))
        finally:
            self.open_ctes.discard(id(cte))

    def _derived(
        self, query: exp.Query, alias: str, ctes: Ctes, columns: tuple[str, ...] = ()
    ) -> tuple[TableRef, str]:
        """A subquery or CTE in FROM as ``CALL () { ... }`` binding each row as a map;
        ``columns`` renames its columns (a CTE's column list)."""
        var = self.namer.fresh(alias)
        if isinstance(query, exp.Union):
            text, names = self.union(query, ctes)
            body = f"CALL () {{ {text} }}"
        else:
            clauses, projection = self.select(query, None, ctes)
            names = projection.names
            body = _join(clauses, projection.render("WITH"))
        keys = columns or names
        if len(keys) != len(names):
            raise ToolError(
                "CTE column count",
                f"the CTE {alias!r} lists {len(keys)} columns but its SELECT returns "
                f"{len(names)}.",
            )
        body += f" RETURN {map_literal(names, keys)} AS {var}"
        return TableRef(alias, var, None, tuple(k.lower() for k in keys)), f"CALL () {{ {body} }}"

    def _join(
        self,
        join: exp.Join,
        scope: Scope,
        ctes: Ctes,
        calls: list[str],
        main: list[str],
        main_where: list[str],
        later: list[str],
    ) -> None:
        side = str(join.args.get("side") or "").upper()
        kind = str(join.args.get("kind") or join.args.get("method") or "").upper()
        if side in ("RIGHT", "FULL") or kind == "NATURAL":
            raise unsupported(f"{side or kind} JOIN", JOIN_HINT)
        optional = side == "LEFT"
        optional_aliases = {r.alias for r in scope.refs.values() if r.optional}
        ref = self._add_source(
            join.this, scope, ctes, calls, main if not optional else [], optional
        )
        conditions = self._join_conditions(join, ref, scope)
        pre = ExprTranslator(scope.resolve, self.subquery_in(scope, ctes), self.namer)
        texts = [pre.tr(c) for c in conditions] + ref.completions()
        if optional:
            clause = f"OPTIONAL MATCH {ref.pattern(self.scope_label)}"
            later.append(clause + (" WHERE " + " AND ".join(texts) if texts else ""))
        elif optional_aliases & _aliases(conditions, scope):
            if ref.table is not None:
                pattern = ref.pattern(self.scope_label)
                main.remove(pattern)
                later.append(
                    f"MATCH {pattern}" + (" WHERE " + " AND ".join(texts) if texts else "")
                )
            elif texts:
                later.append("WITH * WHERE " + " AND ".join(texts))
        else:
            main_where.extend(texts)

    def _join_conditions(self, join: exp.Join, ref: TableRef, scope: Scope) -> list[exp.Expr]:
        on = join.args.get("on")
        using = join.args.get("using") or []
        conditions: list[exp.Expr] = _conjuncts(on) if on is not None else []
        if using:
            names = [u.name.lower() for u in using]
            for name in names:
                left = next(
                    (r for r in scope.refs.values() if r is not ref and name in r.columns), None
                )
                if left is None or name not in ref.columns:
                    raise ToolError("Bad USING", f"USING ({name}) needs the column on both sides.")
                conditions.append(
                    exp.EQ(
                        this=exp.column(name, left.alias), expression=exp.column(name, ref.alias)
                    )
                )
            ref.using = frozenset(names)
        return conditions


def _recursive() -> ToolError:
    return unsupported(
        "WITH RECURSIVE",
        "variable-length paths: MATCH (a:Turn)-[:NEXT*1..5]->(b:Turn) RETURN b",
    )


def _no_columns(column: exp.Column) -> str:
    raise ToolError(
        "Column outside a table", f"{column.sql(dialect='sqlite')} is not in scope here."
    )


def _conjuncts(e: exp.Expr) -> list[exp.Expr]:
    if isinstance(e, exp.And):
        return _conjuncts(e.this) + _conjuncts(e.expression)
    if isinstance(e, exp.Paren) and isinstance(e.this, exp.And):
        return _conjuncts(e.this)
    return [e]


def _aliases(conditions: list[exp.Expr], scope: Scope) -> set[str]:
    found: set[str] = set()
    for condition in conditions:
        for column in condition.find_all(exp.Column):
            try:
                ref, _ = scope.find(column)
            except ToolError:
                continue
            found.add(ref.alias)
    return found


def _split_where(condition: exp.Expr, scope: Scope) -> tuple[list[exp.Expr], list[exp.Expr]]:
    """WHERE conjuncts that may filter the first MATCH (only its required tables), and the rest.

    A conjunct on required tables gives the same rows before or after a LEFT JOIN, and before
    it Neo4j can use the index (e.g. events.event_id) instead of filtering every joined row.
    """
    if not any(r.optional for r in scope.refs.values()):
        return _conjuncts(condition), []
    early: list[exp.Expr] = []
    late: list[exp.Expr] = []
    optional = {r.alias for r in scope.refs.values() if r.optional}
    for conjunct in _conjuncts(condition):
        if conjunct.find(exp.Query) is None and not _aliases([conjunct], scope) & optional:
            early.append(conjunct)
        else:
            late.append(conjunct)
    return early, late


def _add_where(clauses: list[str], early: list[str], late: list[str], scope: Scope) -> None:
    main = next((i for i, c in enumerate(clauses) if c.startswith("MATCH ")), None)
    if main is None:
        late = early + late
    elif early:
        text = " AND ".join(f"({c})" for c in early)
        clause = clauses[main]
        clauses[main] = clause + (" AND " if " WHERE " in clause else " WHERE ") + text
    if late:
        text = " AND ".join(f"({c})" for c in late)
        clauses.append(f"WITH * WHERE {text}" if scope.refs else f"WITH 1 AS _one WHERE {text}")


def _join(clauses: list[str], final: str) -> str:
    return " ".join([*clauses, final])


def _branches(tree: exp.Expr) -> list[exp.Expr]:
    if isinstance(tree, exp.Union):
        return _branches(tree.this) + _branches(tree.expression)
    return [tree]


def _union_kinds(tree: exp.Expr) -> list[str]:
    if isinstance(tree, exp.Union):
        kind = "UNION" if tree.args.get("distinct") else "UNION ALL"
        return [*_union_kinds(tree.this), kind, *_union_kinds(tree.expression)]
    return []


def _named_order(e: exp.Expr, names: list[str]) -> str | None:
    if isinstance(e, exp.Literal) and not e.is_string and e.name.isdigit():
        index = int(e.name) - 1
        return names[index] if 0 <= index < len(names) else None
    if isinstance(e, exp.Column) and not e.table:
        lowered = {n.lower(): n for n in names}
        return lowered.get(e.name.lower())
    return None


def _skip_limit(tree: exp.Expr, translate: Callable[[exp.Expr], str]) -> str:
    text = ""
    offset = tree.args.get("offset")
    if offset is not None:
        text += f" SKIP {translate(offset.expression)}"
    limit = tree.args.get("limit")
    if limit is not None and not negative(limit.expression):
        text += f" LIMIT {translate(limit.expression)}"
    return text


__all__ = ["Projection", "ShimTranslator", "Translation", "sql_to_cypher"]
