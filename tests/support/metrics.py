"""Reading what the metrics registry exposes, the way a Prometheus scraper does."""

from prometheus_client.parser import text_string_to_metric_families

from aftersales.metrics import Metrics


def samples(metrics: Metrics, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Every sample called `name` in the Prometheus text exposition, by its sorted labels."""
    text = metrics.render()[0].decode()
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    }
