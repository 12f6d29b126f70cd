"""What an operator's tools read from a running bot: `/healthz` (health.py: is this process
doing its work?) and `/metrics` (metrics.py: Prometheus), on VIDRELAY_METRICS_PORT."""
