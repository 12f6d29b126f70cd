"""The tests mirror the code: a test module lives in the folder of the package it tests
(tests/unit/core/jobs/ for src/core/jobs/), so a reader finds a package's tests where the
package is, and a new test lands beside its neighbours instead of in a flat pile."""

from __future__ import annotations

from pathlib import Path

from tests.support.deploy_files import ROOT

SRC = ROOT / "src"
MIRRORED = (ROOT / "tests" / "unit", ROOT / "tests" / "integration")
WHOLE_TREE = {"test_layering.py", "test_import_chains.py", "test_test_layout.py", "test_module_sizes.py"}
"""Tests of the whole of src/, at the top of tests/unit."""
NOT_A_PACKAGE = {
    "deployment": "the image, compose.yaml and docker/: the deployment, not a package of src/",
    "fixtures": "data files a folder's tests read",
    "crash": "the engine's crash tests and the worker process they kill",
}


def flat(layer: Path) -> list[str]:
    return sorted(p.name for p in layer.glob("test_*.py") if p.name not in WHOLE_TREE)


def strays(layer: Path, src: Path) -> list[str]:
    """Test folders under `layer` that name neither a package nor a module of `src`."""
    found = []
    for folder in sorted(p for p in layer.rglob("*") if p.is_dir() and p.name != "__pycache__"):
        code = src / folder.relative_to(layer)
        if folder.name not in NOT_A_PACKAGE and not (code.is_dir() or code.with_suffix(".py").is_file()):
            found.append(str(folder.relative_to(layer)))
    return found


def test_no_test_module_sits_at_the_top_of_a_mirrored_layer() -> None:
    for layer in MIRRORED:
        assert flat(layer) == [], f"{layer.name}: put these in the folder of the package they test"


def test_every_test_folder_names_a_package_or_a_module_of_src() -> None:
    for layer in MIRRORED:
        assert strays(layer, SRC) == []


def test_the_layout_checks_see_what_is_out_of_place(tmp_path: Path) -> None:
    src, layer = tmp_path / "src", tmp_path / "unit"
    (src / "core" / "jobs").mkdir(parents=True)
    (src / "core" / "texts.py").touch()
    for folder in ("core/jobs", "core/texts", "core/nowhere", "deployment"):
        (layer / folder).mkdir(parents=True)
    (layer / "test_loose.py").touch()
    assert strays(layer, src) == ["core/nowhere"]
    assert flat(layer) == ["test_loose.py"]
