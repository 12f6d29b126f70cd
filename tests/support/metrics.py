"""Reading a Prometheus exposition text the way a test names what it expects."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def metric_values(text: str) -> dict[str, float]:
    """Each sample by its name and labels, `name{a="1",b="2"}` (labels sorted), or its bare name."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found
