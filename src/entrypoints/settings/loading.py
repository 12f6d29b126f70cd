"""Reading the settings once at start: a bad value is one line naming the variable (the process
exits 2 with it, never a traceback), and a VIDRELAY_* name that is no setting is pointed out."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import ValidationError

from entrypoints.settings.environment import PREFIX, unknown_variables, vidrelay_variables
from entrypoints.settings.model import Settings

SETTING_VARIABLES = frozenset(PREFIX + name.upper() for name in Settings.model_fields)


class SettingsError(Exception):
    """One line that names the variable at fault."""


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The process's settings: its environment and its env file (`.env` unless VIDRELAY_ENV_FILE
    says otherwise). A given `environ` is the whole environment: a file only if it names one."""
    given = _variables(environ)
    known = {k[len(PREFIX) :].lower(): v for k, v in given.items() if k in SETTING_VARIABLES}
    try:
        return Settings.model_validate(known)
    except ValidationError as error:
        first = error.errors()[0]
        if not first["loc"]:  # a rule across settings names its variables itself
            raise SettingsError(str(first["msg"]).removeprefix("Value error, ")) from None
        variable = PREFIX + "_".join(str(part) for part in first["loc"][:1]).upper()
        raise SettingsError(f"invalid {variable}: {first['msg']}") from None
    except ValueError as error:
        raise SettingsError(f"invalid configuration: {error}") from None


def misspelt_settings(environ: Mapping[str, str] | None = None) -> list[str]:
    """A line for each VIDRELAY_* name (of the environment or the env file) that is no setting."""
    return unknown_variables(_variables(environ), SETTING_VARIABLES)


def _variables(environ: Mapping[str, str] | None) -> dict[str, str]:
    if environ is None:
        return vidrelay_variables(os.environ)
    return vidrelay_variables(environ, default_file="")
