"""SQL expressions (SQLite dialect, as parsed by sqlglot) written as Cypher expressions.

Part of the SQL-compat shim (``sql_to_cypher``). ``ExprTranslator.tr`` maps operators,
literals, ``:name`` parameters, CASE, CAST, LIKE / GLOB (as regular expressions with SQLite's
ASCII case rules, built by ``query.shim.patterns`` so that they cannot backtrack catastrophically),
scalar / IN / EXISTS subqueries (as COLLECT / EXISTS subqueries), string, numeric and
aggregate functions, and SQLite's date functions (``query.shim.dates``). Anything else
raises ``ToolError`` naming the construct and the Cypher form to use instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from sqlglot import exp

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher.quoting import RESERVED, is_plain, param, string
from apexmem_neo.query.shim import dates as sql_dates
from apexmem_neo.query.shim.patterns import glob_regex, like_regex

BINARY: Final[dict[type[exp.Expr], str]] = {
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.And: "AND",
    exp.Or: "OR",
    exp.Add: "+",
    exp.Sub: "-",
    exp.Mul: "*",
    exp.Div: "/",
    exp.Mod: "%",
}
ARITHMETIC: Final = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
SIMPLE_FUNCTIONS: Final[dict[type[exp.Expr], str]] = {
    exp.Lower: "toLower",
    exp.Upper: "toUpper",
    exp.Abs: "abs",
    exp.Coalesce: "coalesce",
    exp.Replace: "replace",
    exp.Avg: "avg",
    exp.Min: "min",
    exp.Max: "max",
}
CAST_FUNCTIONS: Final[dict[str, str]] = {
    "INT": "toInteger",
    "BIGINT": "toInteger",
    "SMALLINT": "toInteger",
    "TINYINT": "toInteger",
    "FLOAT": "toFloat",
    "DOUBLE": "toFloat",
    "DECIMAL": "toFloat",
    "TEXT": "toString",
    "VARCHAR": "toString",
    "CHAR": "toString",
    "NVARCHAR": "toString",
}
DATE_FUNCTIONS: Final = frozenset({"date", "datetime", "time", "julianday", "unixepoch"})
UNSUPPORTED_HINTS: Final[dict[str, str]] = {
    "json_extract": "compare value_json as text, e.g. f.value_json = '\"Paris\"'",
    "instr": "x CONTAINS 'text'",
    "strposition": "x CONTAINS 'text'",
    "printf": "toString(x) + ' ...'",
    "typeof": "valueType(x)",
    "window": (
        "MATCH (f:Fact) WITH f ORDER BY f.t_from DESC "
        "WITH f.entity_id AS entity_id, f.property AS property, collect(f)[0] AS latest "
        "RETURN entity_id, property, latest.value_json"
    ),
}


@dataclass
class Namer:
    """Fresh Cypher variable names, unique over one whole translation."""

    used: set[str] = field(default_factory=set)

    def fresh(self, base: str) -> str:
        base = base if is_plain(base) else "v"
        name, n = base, 0
        while name in self.used or name.upper() in RESERVED:
            n += 1
            name = f"{base}{n}"
        self.used.add(name)
        return name


ColumnResolver = Callable[[exp.Column], str]
Override = Callable[[exp.Expr], str | None]
SubqueryTranslator = Callable[[exp.Query], tuple[str, tuple[str, ...]]]
"""Translates a nested query in the current scope: (Cypher, output column names)."""


def unsupported(construct: str, hint: str | None = None) -> ToolError:
    return ToolError(
        "Unsupported SQL in the SQL-compat shim",
        f"{construct} has no translation to Cypher here. Rewrite the query in Cypher "
        "(language='cypher') or simplify the SQL.",
        hint,
    )


class ExprTranslator:
    """Translates one scope's SQL expressions; ``override`` may replace any sub-expression."""

    def __init__(
        self,
        resolve: ColumnResolver,
        subquery: SubqueryTranslator,
        namer: Namer,
        override: Override | None = None,
    ) -> None:
        self.resolve = resolve
        self.subquery = subquery
        self.namer = namer
        self.override = override

    def tr(self, e: exp.Expr) -> str:
        if self.override is not None:
            replaced = self.override(e)
            if replaced is not None:
                return replaced
        return self._dispatch(e)

    def _dispatch(self, e: exp.Expr) -> str:
        if isinstance(e, exp.Column):
            return self._column(e)
        if isinstance(e, exp.Literal | exp.Null | exp.Boolean):
            return literal(e)
        if isinstance(e, exp.Placeholder | exp.Parameter):
            return self._param(e)
        if isinstance(e, exp.Paren):
            return f"({self.tr(e.this)})"
        if isinstance(e, exp.DPipe):
            return f"toString({self.tr(e.this)}) + toString({self.tr(e.expression)})"
        if type(e) in BINARY:
            return self._binary(e)
        if isinstance(e, exp.Not):
            return f"NOT ({self.tr(e.this)})"
        if isinstance(e, exp.Neg):
            return f"-{self._operand(e.this)}"
        if isinstance(e, exp.Is):
            return (
                f"{self.tr(e.this)} IS NULL"
                if isinstance(e.expression, exp.Null)
                else (self._null_safe_eq(e.this, e.expression))
            )
        if isinstance(e, exp.NullSafeEQ):
            return self._null_safe_eq(e.this, e.expression)
        if isinstance(e, exp.NullSafeNEQ):
            return f"NOT ({self._null_safe_eq(e.this, e.expression)})"
        if isinstance(e, exp.Between):
            x = self.tr(e.this)
            return f"({x} >= {self.tr(e.args['low'])} AND {x} <= {self.tr(e.args['high'])})"
        if isinstance(e, exp.In):
            return self._in(e)
        if isinstance(e, exp.Exists):
            return self._exists(e)
        if isinstance(e, exp.Subquery):
            return self._scalar_subquery(e)
        if isinstance(e, exp.Like | exp.Glob):
            return self._like(e)
        if isinstance(e, exp.Case | exp.If):
            return self._case(e)
        return self._function(e)

    # ---- leaves ----

    def _column(self, e: exp.Column) -> str:
        if isinstance(e.this, exp.Star):
            raise unsupported(f"{e.sql(dialect='sqlite')} inside an expression")
        return self.resolve(e)

    def _param(self, e: exp.Expr) -> str:
        name = e.name if isinstance(e, exp.Placeholder) else e.this.name
        try:
            return param(name)
        except ValueError as exc:
            raise ToolError("Bad parameter name", str(exc)) from exc

    # ---- operators ----

    def _binary(self, e: exp.Expr) -> str:
        op = BINARY[type(e)]
        if isinstance(e, ARITHMETIC):
            return f"{self._operand(e.this)} {op} {self._operand(e.expression)}"
        return f"{self.tr(e.this)} {op} {self.tr(e.expression)}"

    def _operand(self, e: exp.Expr) -> str:
        """An arithmetic operand; strftime text becomes a number, as SQLite's affinity does."""
        text = self.tr(e)
        fmt = _strftime_format(e)
        if fmt is not None:
            cast = "toInteger" if sql_dates.strftime_is_integer(fmt) else "toFloat"
            return f"{cast}({text})"
        return text

    def _null_safe_eq(self, a: exp.Expr, b: exp.Expr) -> str:
        x, y = self.tr(a), self.tr(b)
        return f"coalesce({x} = {y}, {x} IS NULL AND {y} IS NULL)"

    def _in(self, e: exp.In) -> str:
        x = self.tr(e.this)
        query = e.args.get("query")
        if query is not None:
            return (
                f"{x} IN {self._collect(query.this if isinstance(query, exp.Subquery) else query)}"
            )
        if e.args.get("unnest") or e.args.get("field"):
            raise unsupported(e.sql(dialect="sqlite"))
        items = ", ".join(self.tr(i) for i in e.expressions)
        return f"{x} IN [{items}]"

    def _collect(self, query: exp.Expr) -> str:
        if not isinstance(query, exp.Query):
            raise unsupported(query.sql(dialect="sqlite"))
        text, columns = self.subquery(query)
        if len(columns) != 1:
            raise ToolError(
                "Subquery returns several columns",
                f"a subquery used as a value must return one column, not {len(columns)}.",
            )
        return f"COLLECT {{ {text} }}"

    def _exists(self, e: exp.Exists) -> str:
        query = e.this.this if isinstance(e.this, exp.Subquery) else e.this
        if not isinstance(query, exp.Query):
            raise unsupported(e.sql(dialect="sqlite"))
        text, _ = self.subquery(query)
        return f"EXISTS {{ {text} }}"

    def _scalar_subquery(self, e: exp.Subquery) -> str:
        return f"head({self._collect(e.this)})"

    def _like(self, e: exp.Like | exp.Glob) -> str:
        pattern = e.expression
        escape = None
        if isinstance(pattern, exp.Escape):
            escape = pattern.expression.name
            pattern = pattern.this
        if not (isinstance(pattern, exp.Literal) and pattern.is_string):
            raise unsupported(
                "LIKE / GLOB with a pattern that is not a string literal",
                "x STARTS WITH $prefix, x CONTAINS $text, x =~ $regex",
            )
        if isinstance(e, exp.Glob):
            regex = "(?s)" + glob_regex(pattern.name)
        else:
            regex = "(?is)" + like_regex(pattern.name, escape)
        test = f"{self.tr(e.this)} =~ {string(regex)}"
        return f"NOT ({test})" if e.args.get("negate") else test

    def _case(self, e: exp.Case | exp.If) -> str:
        if isinstance(e, exp.If):
            false = e.args.get("false")
            other = f" ELSE {self.tr(false)}" if false is not None else ""
            return f"CASE WHEN {self.tr(e.this)} THEN {self.tr(e.args['true'])}{other} END"
        subject = e.this
        head = f"CASE {self.tr(subject)}" if subject is not None else "CASE"
        whens = " ".join(
            f"WHEN {self.tr(w.this)} THEN {self.tr(w.args['true'])}" for w in e.args["ifs"]
        )
        default = e.args.get("default")
        other = f" ELSE {self.tr(default)}" if default is not None else ""
        return f"{head} {whens}{other} END"

    # ---- functions ----

    def _function(self, e: exp.Expr) -> str:
        if isinstance(e, exp.Window):
            raise unsupported("a window function (OVER ...)", UNSUPPORTED_HINTS["window"])
        if isinstance(e, exp.Count):
            return self._count(e)
        if isinstance(e, exp.Sum):
            x = self.tr(e.this)
            return f"CASE WHEN count({x}) = 0 THEN null ELSE sum({x}) END"
        if isinstance(e, exp.GroupConcat):
            return self._group_concat(e)
        if isinstance(e, exp.Min | exp.Max) and e.expressions:
            raise unsupported(
                f"{e.key}() with several arguments", "CASE WHEN a < b THEN a ELSE b END"
            )
        if isinstance(e, exp.Greatest | exp.Least):
            return self._scalar_extreme(e)
        if type(e) in SIMPLE_FUNCTIONS:
            args = [e.this, *e.expressions] if isinstance(e, exp.Coalesce) else _args(e)
            return f"{SIMPLE_FUNCTIONS[type(e)]}({', '.join(self.tr(a) for a in args)})"
        if isinstance(e, exp.Length):
            return f"size(toString({self.tr(e.this)}))"
        if isinstance(e, exp.Trim):
            return self._trim(e)
        if isinstance(e, exp.Substring):
            return self._substr(e)
        if isinstance(e, exp.Round):
            decimals = e.args.get("decimals")
            extra = f", {self.tr(decimals)}" if decimals is not None else ""
            return f"round({self.tr(e.this)}{extra})"
        if isinstance(e, exp.Nullif):
            x = self.tr(e.this)
            return f"CASE WHEN {x} = {self.tr(e.expression)} THEN null ELSE {x} END"
        if isinstance(e, exp.Cast):
            return self._cast(e)
        return self._date_or_anonymous(e)

    def _count(self, e: exp.Count) -> str:
        arg = e.this
        if arg is None or isinstance(arg, exp.Star):
            return "count(*)"
        if isinstance(arg, exp.Distinct):
            if len(arg.expressions) != 1:
                raise unsupported("COUNT(DISTINCT a, b)")
            return f"count(DISTINCT {self.tr(arg.expressions[0])})"
        return f"count({self.tr(arg)})"

    def _group_concat(self, e: exp.GroupConcat) -> str:
        arg = e.this
        distinct = isinstance(arg, exp.Distinct)
        if distinct:
            arg = arg.expressions[0]
        if isinstance(arg, exp.Order):
            raise unsupported(
                "group_concat(... ORDER BY ...)", "collect(x) after WITH ... ORDER BY"
            )
        separator = e.args.get("separator")
        sep = self.tr(separator) if separator is not None else "','"
        items = f"collect({'DISTINCT ' if distinct else ''}toString({self.tr(arg)}))"
        acc = self.namer.fresh("_s")
        item = self.namer.fresh("_x")
        return (
            f"reduce({acc} = null, {item} IN {items} | "
            f"CASE WHEN {acc} IS NULL THEN {item} ELSE {acc} + {sep} + {item} END)"
        )

    def _scalar_extreme(self, e: exp.Greatest | exp.Least) -> str:
        if len(e.expressions) != 1:
            raise unsupported(f"{e.key}() with more than two arguments")
        a, b = self.tr(e.this), self.tr(e.expressions[0])
        op = ">=" if isinstance(e, exp.Greatest) else "<="
        nulls = f"{a} IS NULL OR {b} IS NULL"
        return f"CASE WHEN {nulls} THEN null WHEN {a} {op} {b} THEN {a} ELSE {b} END"

    def _trim(self, e: exp.Trim) -> str:
        if e.expression is not None:
            raise unsupported("trim() with characters to remove", "replace(x, 'c', '')")
        position = str(e.args.get("position") or "").upper()
        fn = {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "trim")
        return f"{fn}({self.tr(e.this)})"

    def _substr(self, e: exp.Substring) -> str:
        start = e.args.get("start")
        length = e.args.get("length")
        if start is None:
            raise unsupported("substr() without a start")
        if isinstance(start, exp.Literal) and not start.is_string:
            value = int(start.name)
            if value < 1:
                raise unsupported("substr() with a start below 1", "right(x, n)")
            first = str(value - 1)
        else:
            first = f"({self.tr(start)}) - 1"
        extra = f", {self.tr(length)}" if length is not None else ""
        return f"substring({self.tr(e.this)}, {first}{extra})"

    def _cast(self, e: exp.Cast) -> str:
        target = e.to.this.name if hasattr(e.to.this, "name") else str(e.to.this)
        fn = CAST_FUNCTIONS.get(target.upper())
        if fn is None:
            fn = "toInteger" if "INT" in target.upper() else None
        if fn is None:
            raise unsupported(
                f"CAST(... AS {e.to.sql(dialect='sqlite')})",
                "toInteger(x), toFloat(x), toString(x)",
            )
        return f"{fn}({self.tr(e.this)})"

    def _date_or_anonymous(self, e: exp.Expr) -> str:
        fresh = self.namer.fresh
        if isinstance(e, exp.TimeToStr):
            fmt = e.args["format"]
            if not (isinstance(fmt, exp.Literal) and fmt.is_string):
                raise unsupported("strftime() with a format that is not a string literal")
            value = sql_dates.time_value(self.tr(_unwrap_time(e.this)), [])
            return sql_dates.strftime(fresh, fmt.name, value)
        if isinstance(e, exp.CurrentTimestamp | exp.CurrentDate | exp.CurrentTime):
            kind = {"currenttimestamp": "datetime", "currentdate": "date"}.get(e.key, "time")
            return _date_function(fresh, kind, sql_dates.NOW)
        if isinstance(e, exp.Date):
            return self._dated("date", [e.this, *e.expressions])
        if isinstance(e, exp.Anonymous):
            name = e.name.lower()
            if name in DATE_FUNCTIONS:
                return self._dated(name, e.expressions)
            if name == "strftime":
                return self._strftime(e.expressions)
            if name == "total":
                return f"toFloat(sum({self.tr(e.expressions[0])}))"
            if name == "ifnull":
                return f"coalesce({', '.join(self.tr(a) for a in e.expressions)})"
            raise unsupported(f"the function {e.name}()", UNSUPPORTED_HINTS.get(name))
        name = e.key.lower()
        hint = UNSUPPORTED_HINTS["json_extract"] if "json" in name else UNSUPPORTED_HINTS.get(name)
        raise unsupported(f"{e.sql(dialect='sqlite')}", hint)

    def _dated(self, name: str, args: list[exp.Expr]) -> str:
        if not args:
            raise unsupported(f"{name}() without a time value")
        value = sql_dates.time_value(self.tr(args[0]), [_modifier(m) for m in args[1:]])
        return _date_function(self.namer.fresh, name, value)

    def _strftime(self, args: list[exp.Expr]) -> str:
        if len(args) < 2 or not (isinstance(args[0], exp.Literal) and args[0].is_string):
            raise unsupported("strftime() without a literal format and a time value")
        value = sql_dates.time_value(self.tr(args[1]), [_modifier(m) for m in args[2:]])
        return sql_dates.strftime(self.namer.fresh, args[0].name, value)


def _date_function(fresh: sql_dates.Fresh, name: str, value: str) -> str:
    functions = {
        "date": sql_dates.date_text,
        "datetime": sql_dates.datetime_text,
        "time": sql_dates.time_text,
        "julianday": sql_dates.julianday,
        "unixepoch": sql_dates.unixepoch,
    }
    return functions[name](fresh, value)


def _modifier(e: exp.Expr) -> str:
    if isinstance(e, exp.Literal) and e.is_string:
        return e.name
    raise unsupported("a date modifier that is not a string literal")


def _unwrap_time(e: exp.Expr) -> exp.Expr:
    """sqlglot wraps strftime's time argument in TsOrDsToTimestamp; the text is what we need."""
    return e.this if isinstance(e, exp.TsOrDsToTimestamp) else e


def _strftime_format(e: exp.Expr) -> str | None:
    if isinstance(e, exp.TimeToStr) and isinstance(e.args.get("format"), exp.Literal):
        return str(e.args["format"].name)
    if isinstance(e, exp.Anonymous) and e.name.lower() == "strftime" and e.expressions:
        first = e.expressions[0]
        return first.name if isinstance(first, exp.Literal) else None
    return None


def _args(e: exp.Expr) -> list[exp.Expr]:
    args = [e.this] if e.this is not None else []
    for key in ("expression", "replacement"):
        value = e.args.get(key)
        if isinstance(value, exp.Expr):
            args.append(value)
    return args


def literal(e: exp.Expr) -> str:
    if isinstance(e, exp.Null):
        return "null"
    if isinstance(e, exp.Boolean):
        return "true" if e.this else "false"
    assert isinstance(e, exp.Literal)
    if e.is_string:
        return string(e.name)
    return e.name


__all__ = ["ExprTranslator", "Namer", "glob_regex", "like_regex", "literal", "unsupported"]
