"""The mocker engine: an HTTP worker speaking the SGLang/vLLM API for demos and tests, and its bench.

Run ``python -m srt_tui.mock serve --port N`` for a worker and ``python -m srt_tui.mock bench`` for
load. The worker path imports only the standard library so it starts fast.
"""
