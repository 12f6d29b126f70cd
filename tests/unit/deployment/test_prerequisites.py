"""What a fresh machine needs, said twice: the README's apt line and what `.ci/run` installs."""

from __future__ import annotations

import re

from tests.support.deploy_files import ROOT

CI_RUN = ROOT / ".ci" / "run"
README = ROOT / "README.md"


# Only the image tests need these, and only where no Docker daemon answers: the README names them
# where it tells how the image is tested, not in the line that sets up a machine to run the bot.
IMAGE_TOOLS = {"podman", "runc", "debootstrap", "catatonit"}


def ci_packages() -> set[str]:
    ci_run = CI_RUN.read_text()
    [looped] = re.findall(r"for tool in ([a-z ]+); do", ci_run)
    named = set(re.findall(r"need_apt\+=\(([a-z0-9.+-]+)\)", ci_run))
    return named | set(looped.split())


def readme_packages() -> set[str]:
    [line] = re.findall(r"sudo apt-get install -y ([a-z0-9 .+-]+)`", README.read_text().replace("\n", " "))
    return set(line.split())


def test_the_readme_names_what_ci_installs_on_a_fresh_machine() -> None:
    assert ci_packages() - IMAGE_TOOLS == {"make", "ffmpeg", "postgresql", "python3-venv"}
    assert readme_packages() == ci_packages() - IMAGE_TOOLS


def test_the_readme_names_what_ci_installs_for_the_image_tests() -> None:
    assert ci_packages() & IMAGE_TOOLS == IMAGE_TOOLS
    readme = README.read_text().replace("\n", " ")
    installs = re.search(r"`\.ci/run` installs ((?:[a-z]+, )+[a-z]+ and [a-z]+)", readme)
    assert installs is not None
    assert set(re.split(r", | and ", installs.group(1))) == IMAGE_TOOLS


def test_make_setup_installs_the_extractors_a_real_deployment_needs() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [extras] = re.findall(r"^EXTRAS := ([a-z,]+)$", makefile, re.MULTILINE)
    assert set(extras.split(",")) >= {"dev", "extractors"}
    assert "pip install -q -e '.[$(EXTRAS)]'" in makefile
