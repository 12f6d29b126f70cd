"""Prometheus' exposition text as the tests read it: `name{label="v",...}` → value."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def values(text: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found
