"""The SELECT list, GROUP BY / HAVING, ORDER BY and LIMIT of the SQL shim.

Without aggregation a SELECT becomes ``RETURN expr AS name ... ORDER BY ... SKIP ... LIMIT``.
With GROUP BY or aggregates it becomes two steps, so that grouping keys need not be returned
and HAVING can filter: ``WITH key AS _g0, agg AS _a0 [WHERE having] RETURN ...``. ORDER BY
adds a key that puts NULLs where SQLite does (first ascending, last descending).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher.quoting import ident
from apexmem_neo.query.graph_mapping import table_columns
from apexmem_neo.query.shim.aliases import Scope, output_name, unique_names
from apexmem_neo.query.shim.expressions import ExprTranslator, Namer, unsupported


@dataclass
class Projection:
    """The final projection of one SELECT: rendered as RETURN (or WITH for derived tables)."""

    items: list[tuple[str, str]]
    distinct: bool = False
    order: list[str] = field(default_factory=list)
    skip: str | None = None
    limit: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for _, name in self.items)

    def render(self, keyword: str) -> str:
        head = f"{keyword} {'DISTINCT ' if self.distinct else ''}"
        text = head + ", ".join(f"{expr} AS {ident(name)}" for expr, name in self.items)
        if self.order:
            text += " ORDER BY " + ", ".join(self.order)
        if self.skip is not None:
            text += f" SKIP {self.skip}"
        if self.limit is not None:
            text += f" LIMIT {self.limit}"
        return text


BARE_HINT = (
    "MATCH (f:Fact) WITH f ORDER BY f.t_from DESC "
    "WITH f.property AS property, collect(f)[0] AS latest RETURN property, latest.value_json"
)


def project(
    tree: exp.Select, scope: Scope, pre: ExprTranslator, namer: Namer, clauses: list[str]
) -> Projection:
    """The final projection of ``tree``; an aggregation also appends its WITH to ``clauses``."""
    items = _expand_star(tree.expressions, scope)
    names = unique_names([output_name(e) for e in items])
    bodies = [e.this if isinstance(e, exp.Alias) else e for e in items]
    distinct = tree.args.get("distinct") is not None
    if _is_aggregate(tree, bodies):
        grouped = _Aggregation(tree, pre, namer, bodies, names)
        aggregation: _Aggregation | None = grouped
        translator = grouped.post
    else:
        aggregation, translator = None, pre
    exprs = [translator.tr(b) for b in bodies]
    order = _order(tree, scope, translator, bodies, names, exprs, distinct)
    if aggregation is not None:  # after ORDER BY, which may add aggregates
        clauses.append(aggregation.with_clause())
    projection = Projection(list(zip(exprs, names, strict=True)), distinct, order)
    offset = tree.args.get("offset")
    if offset is not None:
        projection.skip = pre.tr(offset.expression)
    limit = tree.args.get("limit")
    if limit is not None and not negative(limit.expression):
        projection.limit = pre.tr(limit.expression)
    return projection


def _expand_star(items: list[exp.Expr], scope: Scope) -> list[exp.Expr]:
    out: list[exp.Expr] = []
    for item in items:
        if isinstance(item, exp.Star):
            refs = list(scope.refs.values())
        elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            ref = scope.refs.get(item.table.lower())
            if ref is None:
                raise ToolError("Unknown table", f"{item.table!r} is not in FROM.")
            refs = [ref]
        else:
            out.append(item)
            continue
        if not refs:
            raise ToolError("SELECT * without FROM", "name the values to return.")
        for ref in refs:
            hidden = ref.using if ref.table is not None or ref.using else frozenset()
            columns = ref.columns if ref.table is None else table_columns(ref.table)
            out += [exp.column(c, ref.alias) for c in columns if c not in hidden]
    return out


def _is_aggregate(tree: exp.Select, bodies: list[exp.Expr]) -> bool:
    if tree.args.get("group") is not None or tree.args.get("having") is not None:
        return True
    return any(_has_aggregate(b) for b in bodies)


def _has_aggregate(e: exp.Expr) -> bool:
    """An aggregate in ``e`` itself (not inside a nested SELECT, not a window)."""
    for node in e.walk(prune=lambda n: isinstance(n, exp.Query | exp.Subquery | exp.Window)):
        if isinstance(node, exp.AggFunc) and not isinstance(node.parent, exp.Window):
            return True
        if isinstance(node, exp.Anonymous) and node.name.lower() == "total":
            return True
    return False


class _Aggregation:
    """GROUP BY keys and aggregates as WITH variables; select items rewritten over them."""

    def __init__(
        self,
        tree: exp.Select,
        pre: ExprTranslator,
        namer: Namer,
        bodies: list[exp.Expr],
        names: list[str],
    ) -> None:
        self.tree = tree
        self.pre = pre
        self.namer = namer
        self.snapshot = frozenset(namer.used)
        self.keys: dict[str, str] = {}  # comparison text -> variable
        self.key_exprs: list[tuple[str, str]] = []  # (cypher, variable)
        self.aggs: list[tuple[str, str]] = []
        self.agg_vars: dict[str, str] = {}
        group = tree.args.get("group")
        for item in group.expressions if group is not None else []:
            key = _group_item(item, bodies, names)
            var = namer.fresh("_g")
            self.keys[self.compare_text(key)] = var
            self.key_exprs.append((pre.tr(key), var))
        self.post = ExprTranslator(_bare, pre.subquery, namer, self.override)
        having = tree.args.get("having")
        self.having = self.post.tr(having.this) if having is not None else None

    def compare_text(self, e: exp.Expr) -> str:
        """A fresh namer from one snapshot: the same expression always gives the same text."""
        probe = ExprTranslator(self.pre.resolve, self.pre.subquery, Namer(set(self.snapshot)))
        return probe.tr(e)

    def override(self, e: exp.Expr) -> str | None:
        if isinstance(e, exp.Literal | exp.Null | exp.Boolean | exp.Placeholder):
            return None
        if _is_agg_call(e):
            text = self.compare_text(e)
            if text not in self.agg_vars:
                self.agg_vars[text] = self.namer.fresh("_a")
                self.aggs.append((self.pre.tr(e), self.agg_vars[text]))
            return self.agg_vars[text]
        if not _has_aggregate(e) and not e.find(exp.Query):
            var = self.keys.get(self.compare_text(e))
            if var is not None:
                return var
            if isinstance(e, exp.Column):
                _bare(e)
        return None

    def with_clause(self) -> str:
        parts = [f"{c} AS {v}" for c, v in self.key_exprs + self.aggs]
        if not parts:
            parts = ["count(*) AS " + self.namer.fresh("_n")]
        text = "WITH " + ", ".join(parts)
        return text + (f" WHERE {self.having}" if self.having is not None else "")


def _is_agg_call(e: exp.Expr) -> bool:
    if isinstance(e, exp.Anonymous):
        return e.name.lower() == "total"
    return isinstance(e, exp.AggFunc) and not isinstance(e.parent, exp.Window)


def _bare(column: exp.Column) -> str:
    """Resolver after aggregation: a plain column here is neither a key nor aggregated."""
    raise unsupported(
        f"the bare column {column.sql(dialect='sqlite')} outside GROUP BY and aggregates",
        BARE_HINT,
    )


def _group_item(item: exp.Expr, bodies: list[exp.Expr], names: list[str]) -> exp.Expr:
    if isinstance(item, exp.Literal) and not item.is_string:
        index = int(item.name) - 1
        if not 0 <= index < len(bodies):
            raise ToolError("Bad GROUP BY", f"GROUP BY {item.name}: no such select item.")
        return bodies[index]
    if isinstance(item, exp.Column) and not item.table:
        for body, name in zip(bodies, names, strict=True):
            if name.lower() == item.name.lower() and not (
                isinstance(body, exp.Column) and body.name.lower() == item.name.lower()
            ):
                return body
    return item


def _order(
    tree: exp.Select,
    scope: Scope,
    tr: ExprTranslator,
    bodies: list[exp.Expr],
    names: list[str],
    exprs: list[str],
    distinct: bool,
) -> list[str]:
    order = tree.args.get("order")
    keys: list[str] = []
    for ordered in order.expressions if order is not None else []:
        body, text = _order_target(ordered.this, bodies, names, exprs, tr)
        if text is None:
            if distinct:
                raise unsupported(
                    "ORDER BY an expression missing from SELECT DISTINCT", "add it to the SELECT"
                )
            text = tr.tr(ordered.this)
        desc = bool(ordered.args.get("desc"))
        nulls_first = bool(ordered.args.get("nulls_first"))
        if nulls_first != desc and scope.nullable(body):
            first, last = ("0", "1") if nulls_first else ("1", "0")
            keys.append(f"CASE WHEN {text} IS NULL THEN {first} ELSE {last} END")
        keys.append(text + (" DESC" if desc else ""))
    return keys


def _order_target(
    e: exp.Expr,
    bodies: list[exp.Expr],
    names: list[str],
    exprs: list[str],
    tr: ExprTranslator,
) -> tuple[exp.Expr, str | None]:
    """(the SQL expression ordered by, the output alias to use or None for a fresh one)."""
    if isinstance(e, exp.Literal) and not e.is_string and e.name.isdigit():
        index = int(e.name) - 1
        if not 0 <= index < len(bodies):
            raise ToolError("Bad ORDER BY", f"ORDER BY {e.name}: no such select item.")
        return bodies[index], ident(names[index])
    if isinstance(e, exp.Column) and not e.table:
        for body, name in zip(bodies, names, strict=True):
            if name.lower() == e.name.lower():
                return body, ident(name)
    sql = e.sql(dialect="sqlite")
    for body, name in zip(bodies, names, strict=True):
        if body.sql(dialect="sqlite") == sql:
            return body, ident(name)
    return e, None


def negative(e: exp.Expr) -> bool:
    return isinstance(e, exp.Neg) or (isinstance(e, exp.Literal) and e.name.startswith("-"))
