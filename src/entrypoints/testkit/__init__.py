"""Test and demo helpers that run for real: a local video site made of ffmpeg clips."""
