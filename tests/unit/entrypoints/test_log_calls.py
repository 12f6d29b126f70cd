"""How the code logs, read from its source: a failure's error goes in the line's `error` field,
where a log shipper finds it, never glued to the end of the message."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"
FAILURE_LEVELS = {"warning", "error", "exception", "critical"}


def failure_calls() -> list[tuple[str, int, str]]:
    """(file, line, message) of every `log.<failure level>("...", ...)` call in src/."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if "testkit" not in path.parts:
            tree = ast.parse(path.read_text(), str(path))
            found += [(str(path.relative_to(SRC)), n.lineno, message) for n, message in _log_calls(tree)]
    return found


def _log_calls(tree: ast.AST) -> list[tuple[ast.Call, str]]:
    return [
        (node, node.args[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in FAILURE_LEVELS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "log"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]


def test_the_source_has_failure_lines_to_check() -> None:
    assert len(failure_calls()) > 30


def test_no_failure_line_ends_its_message_with_the_error() -> None:
    glued = [call for call in failure_calls() if call[2].rstrip().endswith((": %s", ": %r"))]
    assert glued == [], "pass the error as extra={'error': ...} or exc_info=error"
