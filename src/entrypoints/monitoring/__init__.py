"""What an operator's tools read from a running bot: `/healthz` (health.py: is this process
doing its work? liveness.py: is it receiving updates?) and `/metrics` (metrics.py: Prometheus),
on VIDRELAY_METRICS_PORT."""
