"""A worker that dies of an exception reaches the one app-level handler: one notification, once."""

from __future__ import annotations

from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle


async def test_a_failed_screen_worker_is_reported_once_by_the_app() -> None:
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)

        def boom() -> None:
            raise RuntimeError("disk on fire")

        app.screen.run_worker(boom, name="boom", thread=True, exit_on_error=False)
        await settle(pilot)
        failed = [n for n in app._notifications if n.title == "Background task failed"]
        assert [n.message for n in failed] == ["boom failed: disk on fire"]
        assert [n.severity for n in failed] == ["error"]


def test_every_class_that_runs_workers_reports_their_failures() -> None:
    """A node whose `@work` method or `run_worker` call dies must reach the app's handler (the mixin)."""
    import ast
    import importlib
    from pathlib import Path

    import srt_tui.tui
    from srt_tui.tui.workers import ReportsWorkerErrors

    root = Path(srt_tui.tui.__file__).parent
    missing: list[str] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = "srt_tui.tui." + ".".join(path.relative_to(root).with_suffix("").parts)
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            src = ast.unparse(node)
            if "@work" not in src and "run_worker(" not in src:
                continue
            cls = getattr(importlib.import_module(module.removesuffix(".__init__")), node.name)
            if not issubclass(cls, ReportsWorkerErrors):
                missing.append(f"{module}.{node.name}")
    assert not missing, missing
