"""Every word a user reads is in core/texts.py, the catalog the translations will be made of:
the handlers' own strings are names (commands, routers, loggers, fields) and log lines, never
text for a chat."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support.deploy_files import ROOT

HANDLERS = sorted((ROOT / "src" / "entrypoints" / "bot" / "handlers").glob("*.py"))
A_NAME = re.compile(r"[a-z_.]*|\n")
"""A command, a router's or logger's name, a field, a variant, an empty string, a line break."""


def docstrings(tree: ast.Module) -> set[int]:
    """Module, class and function docstrings, and the strings that document an attribute."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            found |= {
                id(s.value) for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
            }
    return found


def logged(tree: ast.Module) -> set[int]:
    """The strings of log calls (`log.info("...")`): operators read those, in English."""
    found = set()
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "log":
            found |= {id(n) for n in ast.walk(node) if isinstance(n, ast.Constant)}
    return found


def texts_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = docstrings(tree) | logged(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped
    ]


@pytest.mark.parametrize("path", HANDLERS, ids=lambda p: p.name)
def test_a_handler_holds_no_text_for_a_chat(path: Path) -> None:
    assert [text for text in texts_of(path) if not A_NAME.fullmatch(text)] == []


def test_the_check_sees_text_where_there_is_some(tmp_path: Path) -> None:
    planted = tmp_path / "handler.py"
    planted.write_text(
        'async def on(m):\n    """Doc."""\n    log.info("a log %s", 1)\n    await m.reply("👍 On it!")\n'
    )
    assert [t for t in texts_of(planted) if not A_NAME.fullmatch(t)] == ["👍 On it!"]
    assert len(HANDLERS) >= 7
