"""The Prometheus adapter: events become counters and histograms, the state of the moment gauges."""

from __future__ import annotations

from adapters.prometheus.metrics import ProcessState, PrometheusMetrics
from tests.support.prometheus_text import values


def samples(metrics: PrometheusMetrics, state: ProcessState | None = None) -> dict[str, float]:
    """`name{label="v",...}` → value, from the rendered exposition text."""
    return values(metrics.render(state or ProcessState()).decode())


def test_job_events_count_by_job_name_and_time_claim_to_done() -> None:
    metrics = PrometheusMetrics()
    metrics.job_enqueued("download_video")
    metrics.job_enqueued("download_video")
    metrics.job_enqueued("sweep_blobs")
    metrics.job_completed("download_video", 3.0)
    metrics.job_retried("download_video")
    metrics.job_dead("download_video")
    seen = samples(metrics)
    assert seen['vidrelay_jobs_enqueued_total{job_name="download_video"}'] == 2
    assert seen['vidrelay_jobs_enqueued_total{job_name="sweep_blobs"}'] == 1
    assert seen['vidrelay_jobs_completed_total{job_name="download_video"}'] == 1
    assert seen['vidrelay_jobs_retried_total{job_name="download_video"}'] == 1
    assert seen['vidrelay_jobs_dead_total{job_name="download_video"}'] == 1
    assert seen['vidrelay_job_claim_to_done_seconds_count{job_name="download_video"}'] == 1
    assert seen['vidrelay_job_claim_to_done_seconds_sum{job_name="download_video"}'] == 3.0
    assert seen['vidrelay_job_claim_to_done_seconds_bucket{job_name="download_video",le="2.0"}'] == 0
    assert seen['vidrelay_job_claim_to_done_seconds_bucket{job_name="download_video",le="5.0"}'] == 1


def test_a_cancelled_job_counts_as_cancelled_and_as_no_failure() -> None:
    metrics = PrometheusMetrics()
    metrics.job_cancelled("download_video")
    seen = samples(metrics)
    assert seen['vidrelay_jobs_cancelled_total{job_name="download_video"}'] == 1
    assert not [name for name in seen if name.startswith(("vidrelay_jobs_dead", "vidrelay_jobs_retried"))]


def test_deliveries_api_errors_and_flood_waits() -> None:
    metrics = PrometheusMetrics()
    metrics.video_delivered(12.5)
    metrics.api_error("sendVideo", 429)
    metrics.flood_wait(7.0)
    metrics.api_error("getUpdates", None)
    seen = samples(metrics)
    assert seen["vidrelay_post_to_video_seconds_count"] == 1
    assert seen["vidrelay_post_to_video_seconds_sum"] == 12.5
    assert seen['vidrelay_telegram_api_errors_total{code="429",method="sendVideo"}'] == 1
    assert seen['vidrelay_telegram_api_errors_total{code="network",method="getUpdates"}'] == 1
    assert seen["vidrelay_telegram_retry_after_seconds_sum"] == 7.0


def test_yt_dlp_rollbacks_count_by_the_extractor_that_broke() -> None:
    metrics = PrometheusMetrics()
    metrics.ytdlp_rolled_back("generic")
    metrics.ytdlp_rolled_back("generic")
    metrics.ytdlp_rolled_back("youtube")
    seen = samples(metrics)
    assert seen['vidrelay_ytdlp_rollbacks_total{extractor="generic"}'] == 2
    assert seen['vidrelay_ytdlp_rollbacks_total{extractor="youtube"}'] == 1


def test_the_state_of_the_moment_is_rendered_as_gauges() -> None:
    metrics = PrometheusMetrics()
    state = ProcessState(
        waiting=4,
        running=2,
        failed=1,
        in_flight=2,
        live_workers=3,
        workers=3,
        ytdlp_version="2099.01.01",
        ytdlp_updates={"updated": 1, "failed": 2},
        open_breakers=frozenset({"example.com"}),
    )
    seen = samples(metrics, state)
    assert seen["vidrelay_queue_depth"] == 4
    assert seen["vidrelay_jobs_running"] == 2
    assert seen["vidrelay_dead_letters"] == 1
    assert seen["vidrelay_jobs_in_flight"] == 2
    assert seen["vidrelay_workers_live"] == 3
    assert seen["vidrelay_workers_configured"] == 3
    assert seen['vidrelay_ytdlp_info{version="2099.01.01"}'] == 1
    assert seen['vidrelay_ytdlp_updates_total{outcome="updated"}'] == 1
    assert seen['vidrelay_ytdlp_updates_total{outcome="unchanged"}'] == 0
    assert seen['vidrelay_ytdlp_updates_total{outcome="failed"}'] == 2
    assert seen['vidrelay_breaker_open{key="example.com"}'] == 1


def test_a_breaker_that_closed_reads_0_once_then_its_series_is_gone() -> None:
    metrics = PrometheusMetrics()
    samples(metrics, ProcessState(open_breakers=frozenset({"a.example", "b.example"})))
    seen = samples(metrics, ProcessState(open_breakers=frozenset({"b.example"})))
    assert seen['vidrelay_breaker_open{key="a.example"}'] == 0
    assert seen['vidrelay_breaker_open{key="b.example"}'] == 1
    later = samples(metrics, ProcessState(open_breakers=frozenset({"b.example"})))
    assert 'vidrelay_breaker_open{key="a.example"}' not in later  # a site that broke once, long ago
    assert later['vidrelay_breaker_open{key="b.example"}'] == 1


def test_process_and_platform_collectors_and_the_build_info_are_in_the_registry() -> None:
    seen = samples(PrometheusMetrics())
    assert seen["process_resident_memory_bytes"] > 0
    assert seen["process_open_fds"] > 0
    [build] = [name for name in seen if name.startswith("vidrelay_build_info{")]
    assert 'python="3.' in build
    assert 'version="' in build
    assert any(name.startswith("python_info{") for name in seen)
    assert not any(name.startswith(("vidrelay_jobs_failed", "vidrelay_workers{")) for name in seen)


def test_each_instance_has_a_registry_of_its_own() -> None:
    first, second = PrometheusMetrics(), PrometheusMetrics()
    first.job_enqueued("download_video")
    assert 'vidrelay_jobs_enqueued_total{job_name="download_video"}' not in samples(second)
    assert first.registry is not second.registry
