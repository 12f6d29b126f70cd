"""What a fresh machine needs, said twice: the README's apt line and what `.ci/run` installs."""

from __future__ import annotations

import re

from tests.support.deploy_files import ROOT

CI_RUN = ROOT / ".ci" / "run"
README = ROOT / "README.md"


def ci_packages() -> set[str]:
    return set(re.findall(r"need_apt\+=\((\S+)\)", CI_RUN.read_text()))


def readme_packages() -> set[str]:
    [line] = re.findall(r"sudo apt-get install -y ([a-z0-9 .+-]+)`", README.read_text().replace("\n", " "))
    return set(line.split())


def test_the_readme_names_what_ci_installs_on_a_fresh_machine() -> None:
    assert ci_packages() == {"make", "ffmpeg", "postgresql", "python3-venv"}
    assert readme_packages() == ci_packages()


def test_make_setup_installs_the_extractors_a_real_deployment_needs() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [extras] = re.findall(r"^EXTRAS := ([a-z,]+)$", makefile, re.MULTILINE)
    assert set(extras.split(",")) >= {"dev", "extractors"}
    assert "pip install -q -e '.[$(EXTRAS)]'" in makefile
