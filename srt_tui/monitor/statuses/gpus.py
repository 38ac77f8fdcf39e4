"""Each GPU's utilisation, power and temperature from the job's GPU exporter (DCGM, AMD's
device-metrics-exporter, any Prometheus exporter): the plan names the metrics and the label holding
the GPU index, so no product is special here. A node whose exporter stops answering keeps its last
readings, marked stale, without holding up the other nodes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from srt_tui.core.plan.document import PlanExporter
from srt_tui.monitor.model import GpuReading
from srt_tui.monitor.probes.selectors import Sample
from srt_tui.monitor.probes.sources import Source
from srt_tui.monitor.statuses.context import JobFiles, Refresh, gpu_exporter_key

#: plan.json `gpu_exporter.metrics` keys, in GpuReading's order (util %, power W, temperature °C)
METRIC_KEYS = ("gpu_util", "power", "temperature")


@dataclass(frozen=True)
class ExporterSpec:
    """How to read an exporter: the label whose value is the GPU index, and the metric of each reading."""

    gpu_label: str
    util: str | None = None
    power: str | None = None
    temperature: str | None = None

    @classmethod
    def from_plan(cls, block: PlanExporter | None) -> ExporterSpec | None:
        """The spec of plan.json's `gpu_exporter` block; None without a label or any known metric."""
        if block is None:
            return None
        names = [block.metrics.get(k) or None for k in METRIC_KEYS]
        if not block.gpu_label or not any(names):
            return None
        return cls(block.gpu_label, *names)

    @property
    def names(self) -> tuple[str, ...]:
        """The metric names to read (what reaches the Prometheus parser)."""
        return tuple(n for n in (self.util, self.power, self.temperature) if n)


def parse_readings(
    node_index: int, samples: Iterable[Sample], spec: ExporterSpec, stale: bool = False
) -> list[GpuReading]:
    """One reading per GPU index found under ``spec.gpu_label`` (first sample wins, NaN counts as not
    reported), in GPU order."""
    found: dict[int, dict[str, float]] = {}
    for s in samples:
        label = s.label(spec.gpu_label)
        if not label.isdigit() or not math.isfinite(s.value):
            continue
        found.setdefault(int(label), {}).setdefault(s.name, s.value)
    return [
        GpuReading(
            node_index,
            gpu,
            values.get(spec.util) if spec.util else None,
            values.get(spec.power) if spec.power else None,
            values.get(spec.temperature) if spec.temperature else None,
            stale,
        )
        for gpu, values in sorted(found.items())
    ]


@dataclass(frozen=True)
class GpuStatus:
    """What the exporters gave this refresh: readings, problems per node, and their sources."""

    readings: tuple[GpuReading, ...]
    problems: list[str]
    sources: list[Source]


def scrape_targets(job: JobFiles) -> tuple[ExporterSpec | None, list[tuple[int, str]]]:
    """How to read the job's exporters and (node index, URL) of each: nothing unless the job launched
    them and its plan says how to read them."""
    spec = ExporterSpec.from_plan(job.gpu_exporter)
    return (spec, job.gpu_exporter_urls()) if spec is not None else (None, [])


def gpu_status(ctx: Refresh, job: JobFiles, gpus_per_node: int, starting: bool) -> GpuStatus | None:
    """Readings of every node's exporter (None when the job launched none). A node that fails shows
    its last readings as stale (or `?` for each GPU when it never answered); while the job is starting,
    an exporter that does not listen yet is not a problem."""
    spec, urls = scrape_targets(job)
    if spec is None or not urls:
        return None
    readings: list[GpuReading] = []
    problems: list[str] = []
    srcs: list[Source] = []
    for node, url in urls:
        src = ctx.sources.get(gpu_exporter_key(url))
        srcs.append(src)
        text = src.value if isinstance(src.value, str) else None
        failing = bool(src.kind) or ctx.hanging(src)
        if src.kind == "refused" and starting and text is None:
            continue
        if failing:
            why = src.error if src.kind else f"no answer for {src.pending_for(ctx.now):.0f} s"
            problems.append(f"node{node}: {why}")
        if text is not None:
            stale = failing or not ctx.fresh(src)
            readings += parse_readings(node, ctx.samples.gauges(text, spec.names), spec, stale)
        elif failing:
            readings += [GpuReading(node, g, None, None, None, True) for g in range(gpus_per_node)]
    return GpuStatus(tuple(readings), problems, srcs)
