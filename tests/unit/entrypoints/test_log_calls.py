"""How the code logs, read from its source: a failure's error goes in the line's `error` field,
where a log shipper finds it, never glued into the message, and a failure line written where an
error was caught carries that error."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"
FAILURE_LEVELS = {"warning", "error", "exception", "critical"}


ERROR_WORDS = ("error", "reason", "why", "failure")
NOT_A_FAILURE = {
    # The check's own time bound interrupted it: the file was not checked, nothing failed.
    ("adapters/sqlite/opening.py", "%s was not checked: larger than PRAGMA quick_check reads in %gs"),
}


def _sources() -> list[tuple[str, ast.AST]]:
    return [
        (str(path.relative_to(SRC)), ast.parse(path.read_text(), str(path)))
        for path in sorted(SRC.rglob("*.py"))
        if "testkit" not in path.parts
    ]


def failure_calls() -> list[tuple[str, int, str]]:
    """(file, line, message) of every `log.<failure level>("...", ...)` call in src/."""
    return [(name, n.lineno, message) for name, tree in _sources() for n, message in _log_calls(tree)]


def _carries_error(call: ast.Call) -> bool:
    """exc_info, or an `error` in its extra (a dict, a dict merged in, or log_fields(error=...))."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "exception":
        return True
    for keyword in call.keywords:
        if keyword.arg == "exc_info":
            return True
        if keyword.arg == "extra" and any(_names_error(part) for part in ast.walk(keyword.value)):
            return True
    return False


def _names_error(node: ast.AST) -> bool:
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "error" for k in node.keys)
    return isinstance(node, ast.Call) and any(k.arg == "error" for k in node.keywords)


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


def test_a_failure_line_where_an_error_was_caught_carries_it() -> None:
    silent = [
        (name, call.lineno, message)
        for name, tree in _sources()
        for handler in ast.walk(tree)
        if isinstance(handler, ast.ExceptHandler)
        for call, message in _log_calls(handler)
        if not _carries_error(call) and (name, message) not in NOT_A_FAILURE
    ]
    assert silent == [], "pass exc_info=error, or extra={'error': ...}"


def test_no_failure_line_formats_its_error_into_the_message() -> None:
    glued = [
        (name, call.lineno, message)
        for name, tree in _sources()
        for call, message in _log_calls(tree)
        for argument in call.args[1:]
        if any(word in ast.unparse(argument).rsplit(".", 1)[-1] for word in ERROR_WORDS)
    ]
    assert glued == [], "pass the error as extra={'error': ...} or exc_info=error"
