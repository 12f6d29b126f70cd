"""The README's configuration table is the settings model, rendered."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from entrypoints.settings import Settings
from entrypoints.settings_doc import BEGIN, END, UndocumentedSetting, main, render_table, table_in

README = Path(__file__).resolve().parents[3] / "README.md"
REGENERATE = "make readme-config  (= .venv/bin/python -m entrypoints.settings_doc --write README.md)"


def test_every_setting_has_a_description() -> None:
    missing = [name for name, field in Settings.model_fields.items() if not field.description]
    assert not missing, f"give these settings Field(..., description=...), then run {REGENERATE}: {missing}"


def test_the_readme_table_is_the_rendered_settings_model() -> None:
    expected = render_table()
    actual = table_in(README.read_text(encoding="utf-8"))
    assert actual is not None, f"README.md lost the markers {BEGIN!r} ... {END!r}"
    assert actual == expected, (
        f"README.md's configuration table differs from src/entrypoints/settings/. "
        f"Regenerate it with:\n    {REGENERATE}\nThe table it should hold:\n\n{expected}"
    )


class Sample(BaseModel):
    token: str | None = Field(None, description="secret | kept")
    local: bool = Field(False, description="a flag")
    base: float = Field(1.0, description="a float")
    limit: int = Field(0, description="an int")
    args: str = Field("", description="a string")
    ids: tuple[int, ...] = Field((), description="a list")
    folder: Path = Field(Path("./data"), description="a path")
    mode: str = Field("FULL", description="a choice")


def test_defaults_read_as_an_operator_writes_them() -> None:
    rows = render_table(Sample).splitlines()
    assert rows[:2] == ["| variable | default | meaning |", "|---|---|---|"]
    assert rows[2:] == [
        "| `VIDRELAY_TOKEN` | — | secret \\| kept |",
        "| `VIDRELAY_LOCAL` | `false` | a flag |",
        "| `VIDRELAY_BASE` | 1 | a float |",
        "| `VIDRELAY_LIMIT` | 0 | an int |",
        "| `VIDRELAY_ARGS` | empty | a string |",
        "| `VIDRELAY_IDS` | empty | a list |",
        "| `VIDRELAY_FOLDER` | `./data` | a path |",
        "| `VIDRELAY_MODE` | `FULL` | a choice |",
    ]


def test_a_setting_without_a_description_is_refused_by_name() -> None:
    class Bare(BaseModel):
        shiny_new: int = 3

    with pytest.raises(UndocumentedSetting, match="VIDRELAY_SHINY_NEW"):
        render_table(Bare)


def test_write_replaces_only_the_table_between_the_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nintro\n\n{BEGIN}\n| stale |\n{END}\n\n## Next\ntext\n", encoding="utf-8")
    assert main(["--write", str(readme)]) == 0
    written = readme.read_text(encoding="utf-8")
    assert written == f"# Title\n\nintro\n\n{BEGIN}\n{render_table()}{END}\n\n## Next\ntext\n"
    assert table_in(written) == render_table()


def test_write_refuses_a_file_without_the_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n", encoding="utf-8")
    assert main(["--write", str(readme)]) == 1
    assert readme.read_text(encoding="utf-8") == "# no table here\n"
    assert "markers" in capsys.readouterr().err
