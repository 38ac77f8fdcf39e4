"""The mocker engine: an HTTP worker speaking the SGLang/vLLM API for demos and tests.

Run ``python -m srt_tui.mock serve --port N`` for a worker and ``python -m srt_tui.mock bench`` for
load (srt_tui.bench.load); ``python -m srt_tui.mock exporter --port N --kind dcgm|amd`` imitates a node's
GPU metrics exporter. The worker and exporter paths import only the standard library so they start fast.
"""
