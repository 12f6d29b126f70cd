"""The README's configuration table, rendered from the settings model so the two never drift.

    python -m entrypoints.settings_doc                  print the table
    python -m entrypoints.settings_doc --write README.md  rewrite it between the marker comments

(`make readme-config` runs the second.) A test fails when the README's table differs from this.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path, PurePath

from pydantic import BaseModel

from entrypoints.settings import PREFIX, Settings

BEGIN = "<!-- settings-table:begin (generated: make readme-config) -->"
END = "<!-- settings-table:end -->"
HEADER = ("| variable | default | meaning |", "|---|---|---|")


class UndocumentedSetting(Exception):
    """A setting without `Field(description=...)`: the table would have a blank meaning."""


def render_table(model: type[BaseModel] = Settings) -> str:
    rows = list(HEADER)
    for name, field in model.model_fields.items():
        if not field.description:
            raise UndocumentedSetting(
                f"{PREFIX}{name.upper()} has no description: give it Field(..., description=...)"
            )
        default = field.get_default(call_default_factory=True)
        rows.append(f"| `{PREFIX}{name.upper()}` | {_shown(default)} | {_cell(field.description)} |")
    return "\n".join(rows) + "\n"


def _shown(default: object) -> str:
    if default is None:
        return "—"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    if isinstance(default, int | float):
        return f"{default:g}" if isinstance(default, float) else str(default)
    if default in ("", ()):
        return "empty"
    if isinstance(default, tuple):
        return "`" + ",".join(str(part) for part in default) + "`"
    if isinstance(default, PurePath) and not default.is_absolute():
        return f"`./{default}`"  # Path("./data") prints as "data"; the dot says "relative to the cwd"
    return f"`{default}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table_in(document: str) -> str | None:
    """The table between the markers, or None when the markers are missing."""
    begin, end = document.find(BEGIN), document.find(END)
    if begin < 0 or end < begin:
        return None
    return document[begin + len(BEGIN) : end].strip("\n") + "\n"


def with_table(document: str, table: str) -> str:
    begin, end = document.find(BEGIN), document.find(END)
    if begin < 0 or end < begin:
        raise ValueError(f"the markers {BEGIN!r} and {END!r} are missing")
    return document[: begin + len(BEGIN)] + "\n" + table + document[end:]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m entrypoints.settings_doc", description=__doc__)
    parser.add_argument("--write", type=Path, metavar="README", help="rewrite the table in this file")
    args = parser.parse_args(argv)
    table = render_table()
    if args.write is None:
        sys.stdout.write(table)
        return 0
    document = args.write.read_text(encoding="utf-8")
    try:
        updated = with_table(document, table)
    except ValueError as error:
        print(f"{args.write}: {error}", file=sys.stderr)
        return 1
    args.write.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
