"""deploy/vidrelay.service, read as systemd reads it: `systemd-analyze verify` where the machine
has it, and the keys that tie it to vidrelay's own behaviour either way."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from entrypoints.cli import EXIT_USAGE
from entrypoints.settings import Settings
from tests.support.deploy_files import ROOT, SETTING_VARIABLES, VARIABLE, duration_seconds

UNIT = ROOT / "deploy" / "vidrelay.service"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def environment(service: configparser.SectionProxy) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in service["Environment"].split())


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze on this machine")
def test_systemd_analyze_verifies_the_unit_without_a_word(tmp_path: Path) -> None:
    # verify insists that the command exists: this venv's vidrelay stands in for /opt/vidrelay's.
    ours = Path(sys.executable).with_name("vidrelay")
    text = UNIT.read_text().replace("ExecStart=/opt/vidrelay/bin/vidrelay", f"ExecStart={ours}")
    copy = tmp_path / "vidrelay.service"
    copy.write_text(text)
    ran = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert [line for line in ran.stderr.splitlines() if "vidrelay.service" in line] == []


def test_the_unit_runs_the_bot_and_stops_it_the_way_it_stops_gracefully() -> None:
    service = unit()["Service"]
    command, *args = service["ExecStart"].split()
    assert (Path(command).name, args) == ("vidrelay", ["run"])
    assert (service["KillMode"], service["KillSignal"]) == ("mixed", "SIGTERM")
    assert duration_seconds(service["TimeoutStopSec"]) > Settings().shutdown_grace_seconds
    assert service["RestartPreventExitStatus"] == str(EXIT_USAGE)  # a setting to fix, not a crash
    assert service["Restart"] == "on-failure"


def test_the_data_folder_is_the_state_directory_and_only_the_service_reads_it() -> None:
    service = unit()["Service"]
    assert environment(service)["VIDRELAY_DATA_DIR"] == f"/var/lib/{service['StateDirectory']}"
    assert service["StateDirectoryMode"] == "0700"  # the store holds the install's signing secret
    assert service["ProtectSystem"] == "strict"
    assert "MemoryDenyWriteExecute" not in service  # Deno compiles at run time


def test_every_variable_the_unit_names_is_a_setting_and_the_install_has_the_extractors() -> None:
    text = UNIT.read_text()
    assert set(VARIABLE.findall(text)) <= SETTING_VARIABLES
    assert "/opt/vidrelay/bin/pip install '/opt/vidrelay/src[extractors]'" in text


def test_the_check_before_the_first_start_reads_what_the_service_reads() -> None:
    # `env $(cat FILE)` breaks on the comments of a file copied from .env.example: vidrelay
    # reads the file itself, as it reads `.env`.
    service = unit()["Service"]
    [command] = [line for line in UNIT.read_text().splitlines() if line.rstrip().endswith("vidrelay check")]
    assert f"VIDRELAY_ENV_FILE={service['EnvironmentFile']}" in command
    assert f"VIDRELAY_DATA_DIR={environment(service)['VIDRELAY_DATA_DIR']}" in command
    assert "$(" not in command
