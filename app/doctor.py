"""`judge doctor`: the confinement layers and limits in force here, proven by a real grade."""

from __future__ import annotations

import json
import os
import platform
import sys

from app.catalog import Catalog
from app.config import ConfigError, Settings
from app.databases import describe
from app.grading import Judge
from app.lifespan import mandatory_layers, missing_layers


def history_state() -> dict[str, object]:
    """The submission history the environment configures; never fatal (grading goes on)."""
    try:
        url = Settings.from_env().database_url
    except ConfigError as exc:
        return {"enabled": False, "url": None, "detail": str(exc)}
    return describe(url)


def serving_workers() -> int | str:
    """The workers `judge serve` would start with here (JUDGE_WORKERS, else one per core), or
    why the settings cannot say."""
    try:
        return Settings.from_env().workers
    except ConfigError as exc:
        return str(exc)


def doctor(catalog: Catalog, *, as_json: bool = False) -> int:
    history = history_state()
    workers = serving_workers()
    # One worker is enough to prove the layers with a grade of each reference; the count in
    # force is the one the settings give `judge serve`.
    judge = Judge.create(workers=1, queue_size=1)
    try:
        layers = judge.pool.layers
        reasons = judge.pool.reasons
        probe = {}
        for exercise in catalog:
            report = judge.grade(exercise, exercise.solution_code)
            probe[exercise.id] = {
                "reference": report.verdict.value,
                "duration_ms": report.duration_ms,
                "time_ms": exercise.limits.time_ms,
                "memory_mb": exercise.limits.memory_mb,
                "output_bytes": exercise.limits.output_bytes,
                "code_bytes": exercise.limits.code_bytes,
            }
        facts = {
            "python": sys.version.split()[0],
            "kernel": platform.release(),
            "euid": os.geteuid(),
            "landlock_abi": judge.pool.landlock_abi,
            "workers": workers if isinstance(workers, int) else None,
            "check_workers": judge.pool.workers,
        }
    finally:
        judge.close()
    is_root = os.geteuid() == 0
    missing = missing_layers(layers, is_root=is_root)
    healthy = not missing and all(p["reference"] == "accepted" for p in probe.values())
    if as_json:
        print(
            json.dumps(
                {
                    "ok": healthy,
                    "layers": layers,
                    "reasons": reasons,
                    "missing_mandatory": missing,
                    "exercises": probe,
                    "history": history,
                    "facts": facts,
                },
                indent=2,
            )
        )
        return 0 if healthy else 1
    if not isinstance(workers, int):
        serving = f"worker count unknown ({workers})"
    else:
        serving = f"{workers} worker(s)"
        if workers != facts["check_workers"]:
            serving += f" (this check used {facts['check_workers']})"
    print("judge doctor")
    print(
        f"  python {facts['python']}, kernel {facts['kernel']}, euid {facts['euid']}, "
        f"Landlock ABI {facts['landlock_abi'] or 'none'}, {serving}"
    )
    print("confinement layers:")
    for name, active in layers.items():
        need = " (mandatory)" if name in mandatory_layers(is_root) else ""
        reason = f"  - {reasons[name]}" if not active and name in reasons else ""
        print(f"  {'on ' if active else 'OFF'}  {name}{need}{reason}")
    print("limits and a real grade of each reference solution:")
    for exercise_id, info in probe.items():
        print(
            f"  {exercise_id}: {info['reference']} in {info['duration_ms']:.1f} ms; "
            f"{info['time_ms']} ms of CPU per submission (all cases), {info['memory_mb']} MB, "
            f"{info['output_bytes'] // 1024} KB output, {info['code_bytes'] // 1024} KB code"
        )
    state = "on " if history["enabled"] else "OFF"
    url = f" {history['url']}:" if history["url"] else ""
    print(f"submission history (not needed to grade):\n  {state}{url} {history['detail']}")
    if missing:
        print(f"MISSING mandatory layers: {', '.join(missing)}")
    print("ok" if healthy else "NOT OK")
    return 0 if healthy else 1
