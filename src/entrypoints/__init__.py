"""The processes: the CLI, the bot, the demo. Each of them imports aiogram (if it does) through
this package, so aiogram's models are built when first used, not all at its import (issue 25)."""

from adapters.telegram.deferred_models import defer_aiogram_models

defer_aiogram_models()
