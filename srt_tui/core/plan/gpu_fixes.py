"""Which GPUs-per-worker values validation accepts, so every suggested fix is itself a value that passes.

A fix such as "use 3 GPUs" when 3 does not divide the node is worse than none: the operator applies it
and meets the next error. The validator asks here for the nearest value that fits both the node and
the worker's parallelism before it suggests one.
"""

from __future__ import annotations


def gpus_fit(gpus: int, gpus_per_node: int, multinode: bool) -> bool:
    """No GPU-shape error: a divisor of the node, or (for engines that span nodes) whole nodes."""
    if gpus < 1:
        return False
    if gpus <= gpus_per_node:
        return gpus_per_node % gpus == 0
    return multinode and gpus % gpus_per_node == 0


def fitting_gpus(near: int, at_least: int, gpus_per_node: int, multinode: bool) -> int | None:
    """The accepted GPUs-per-worker value nearest `near` that holds `at_least` GPUs (the parallelism):
    the largest one not above `near` if it holds enough, else the smallest one above; None if none does."""
    limit = max(near, at_least, gpus_per_node) * 2 if multinode else gpus_per_node
    fits = [g for g in range(max(at_least, 1), limit + 1) if gpus_fit(g, gpus_per_node, multinode)]
    below = [g for g in fits if g <= near]
    if below:
        return below[-1]
    return fits[0] if fits else None
