"""The KB's formula texts (``rkg:expression "out = ..."``) as trees of plain lists, read once
when the snapshot is compiled, so that planning never imports :mod:`ast`.

Only arithmetic is allowed: numbers, names, ``+ - * / **``, unary minus and plus, parentheses
and the functions of :data:`ARITY`. A tree is a number, a name (a string), or a list whose
first item says what it is: an operator (``"+"``, ``"-"``, ``"*"``, ``"/"``, ``"^"``),
``"neg"``/``"pos"`` for a sign, or a function name::

    >>> read_formula("memory = c * params / gpus + max(a, 2)")
    ('memory', ['+', ['/', ['*', 'c', 'params'], 'gpus'], ['max', 'a', 2]], ['a', 'c', 'gpus', 'params'])

Anything else is refused with :class:`recipekg.errors.FormulaError`, and nothing is ever
passed to ``eval``::

    >>> read_formula("x = __import__('os').system('true')")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: "x = __import__('os').system('true')": attribute access is not allowed
"""

from __future__ import annotations

import ast

from recipekg.errors import FormulaError

#: The longest formula text accepted: the KB's longest is a few hundred characters; the cap
#: keeps parsing and evaluating bounded whatever an extension holds (docs/security.md).
MAX_FORMULA, MAX_DEPTH = 2_000, 100

#: The functions an expression may call, with how many arguments (their meaning:
#: :data:`recipekg.formula.expr.FUNCTIONS`).
ARITY = {"exp": range(1, 2), "sqrt": range(1, 2), "min": range(2, 16), "max": range(2, 16)}

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "^"}
_WHAT = {ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.List: "a list",
         ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Lambda: "a lambda", ast.IfExp: "a conditional expression",
         ast.Compare: "a comparison", ast.BoolOp: "a boolean operator", ast.JoinedStr: "an f-string"}


def read_formula(text: str) -> tuple[str, object, list[str]]:
    """``(output, tree, names)`` of ``"out = arithmetic"``: the names the expression reads, sorted.

    >>> read_formula("x = [1, 2]")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: 'x = [1, 2]': a list is not allowed
    >>> read_formula("x = y if z else 1")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: 'x = y if z else 1': a conditional expression is not allowed
    """
    if len(text) > MAX_FORMULA:
        raise FormulaError(f"{text[:40]!r}...: {len(text)} characters (a formula has at most {MAX_FORMULA})")
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except SyntaxError as exc:
        raise FormulaError(f"{text!r}: not an expression ({exc.msg})") from None
    except (RecursionError, MemoryError):
        raise FormulaError(f"{text[:40]!r}...: nested too deeply") from None
    if (len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign)
            or len(tree.body[0].targets) != 1 or not isinstance(tree.body[0].targets[0], ast.Name)):
        raise FormulaError(f"{text!r}: expected 'output = expression'")
    assign = tree.body[0]
    names: set[str] = set()
    body = _convert(assign.value, text, names)
    return assign.targets[0].id, body, sorted(names)


def _convert(node: ast.AST, text: str, names: set[str], depth: int = 0):
    def refuse(what: str):
        raise FormulaError(f"{text!r}: {what} is not allowed")

    if depth > MAX_DEPTH:
        refuse(f"nesting deeper than {MAX_DEPTH}")
    depth += 1
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            refuse(f"the literal {node.value!r}")
        if not _finite(node.value):
            refuse(f"the literal {str(node.value)[:20]} (out of range)")
        return node.value
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            refuse(f"the name {node.id!r}")
        names.add(node.id)
        return node.id
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _OPS:
            refuse(f"the operator {type(node.op).__name__}")
        tree = [_OPS[type(node.op)], _convert(node.left, text, names, depth), _convert(node.right, text, names, depth)]
        _fixed_value(tree, refuse)
        return tree
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            refuse(f"the operator {type(node.op).__name__}")
        return ["neg" if isinstance(node.op, ast.USub) else "pos", _convert(node.operand, text, names, depth)]
    if isinstance(node, ast.Call):
        return _call(node, text, names, depth, refuse)
    refuse(_WHAT.get(type(node), f"a {type(node).__name__} node"))


def _fixed_value(tree, refuse) -> float | None:
    """The value of a part of a formula that reads no name (``None`` if it reads one); a part
    that divides by zero or overflows whatever the inputs is refused when the formula is read,
    instead of failing on every answer that derives it::

        >>> read_formula("x = params / (2 - 2)")
        Traceback (most recent call last):
        recipekg.errors.FormulaError: 'x = params / (2 - 2)': a division by zero is not allowed
        >>> read_formula("x = params * 10 ** 400")
        Traceback (most recent call last):
        recipekg.errors.FormulaError: 'x = params * 10 ** 400': a constant out of range (10 ^ 400) is not allowed
    """
    if not isinstance(tree, list):
        return None if isinstance(tree, str) else float(tree)
    if tree[0] not in _FIXED:
        return None
    parts = [_fixed_value(t, refuse) for t in tree[1:]]
    if tree[0] == "/" and parts[1] == 0:
        refuse("a division by zero")
    if None in parts:
        return None
    try:
        value = _FIXED[tree[0]](*parts)
    except (OverflowError, ZeroDivisionError):
        value = float("inf")
    if isinstance(value, complex) or value != value or abs(value) == float("inf"):
        shown = " ".join((f"{parts[0]:g}", tree[0], f"{parts[1]:g}")) if len(parts) == 2 else f"{tree[0]} {parts[0]:g}"
        refuse(f"a constant out of range ({shown})")
    return value


def _finite(number: int | float) -> bool:
    try:
        return abs(float(number)) < float("inf")
    except OverflowError:
        return False


_FIXED = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b, "^": lambda a, b: a ** b, "neg": lambda a: -a, "pos": lambda a: a}


def _call(node: ast.Call, text: str, names: set[str], depth: int, refuse) -> list:
    if isinstance(node.func, ast.Attribute):
        refuse("attribute access")
    if not isinstance(node.func, ast.Name) or node.func.id not in ARITY:
        refuse(f"calling {ast.unparse(node.func)!r} (only {', '.join(sorted(ARITY))})")
    if node.keywords or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
        refuse("keyword or starred arguments")
    if len(node.args) not in ARITY[node.func.id]:
        refuse(f"{node.func.id}() with {len(node.args)} arguments")
    return [node.func.id, *(_convert(a, text, names, depth) for a in node.args)]
