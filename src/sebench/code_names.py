"""The names a piece of Python code binds itself: the one rule by which the judge's static checks
(judge/static.py) and the leak audit (obfuscate/audit.py) tell a program's own names from outside ones; and
`parse`, the judge's one way to parse a program."""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterable

_PARSING = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """ast.parse, one thread at a time: CPython 3.11 and 3.12 share the AST converter's recursion counter
    between threads, and two parses at once can fail with "AST constructor recursion depth mismatch"
    (the judge parses answers in a thread pool)."""
    with _PARSING:
        return ast.parse(source, mode=mode)


def bound_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names assigned or deleted, defined (functions, classes), taken as arguments or imported (the first
    part of a dotted import without `as`) by `nodes`, e.g. `ast.walk(tree)`."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.name != "*":
            names.add((node.asname or node.name).split(".")[0])
    return names
