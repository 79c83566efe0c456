"""Measuring a running server: bounded phases of load (latency, throughput), their
percentiles, and the CPU each grade cost the server, read from /proc around each phase."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bench.cpu import tree_cpu_seconds
from bench.loadtest.clients import (
    JSON_HEADERS,
    RAW_ERRORS,
    RawConnection,
    learner_cookie,
    pooled_client,
)
from bench.loadtest.servers import running_server
from bench.stats import percentile

WARMUP_REQUESTS = 20
# Light load: one learner at a time, each pausing between runs (a real one reads for seconds).
LIGHT_LOAD_REQUESTS = 100
LIGHT_LOAD_THINK_MS = 20.0


async def measure(
    url: str,
    path: str,
    bodies: Callable[[], bytes],
    *,
    count: int,
    duration: float,
    concurrency: int,
    client: str = "httpx",
    think_ms: float = 0.0,
) -> dict[str, Any]:
    """Send up to ``count`` grades with ``concurrency`` in flight, stopping at ``duration`` s.

    ``bodies`` gives each request its body (by default each one a new source).

    ``client`` is ``httpx`` (one pooled AsyncClient) or ``raw`` (one RawConnection per worker).
    ``think_ms`` pauses each worker between requests (light load); the pause is not latency.
    """
    latencies: list[float] = []
    outcomes: Counter[str] = Counter()
    remaining = count
    target = httpx.URL(url)
    async with pooled_client(url, concurrency) as pooled:
        started = time.perf_counter()
        cpu_started = time.process_time()  # this process runs only the client meanwhile
        deadline = started + duration

        async def worker() -> None:
            nonlocal remaining
            cookie = learner_cookie()  # each worker is one learner
            raw = RawConnection(target.host, target.port or 80, path, cookie)
            headers = {**JSON_HEADERS, "cookie": cookie}
            try:
                while remaining > 0 and time.perf_counter() < deadline:
                    remaining -= 1
                    body = bodies()
                    sent = time.perf_counter()
                    try:
                        if client == "raw":
                            status, data = await raw.post(body)
                        else:
                            response = await pooled.post(path, content=body, headers=headers)
                            status, data = response.status_code, response.content
                    except (httpx.HTTPError, *RAW_ERRORS) as exc:
                        outcomes[f"transport error: {type(exc).__name__}"] += 1
                        continue
                    elapsed_ms = (time.perf_counter() - sent) * 1000
                    if status == 200:
                        latencies.append(elapsed_ms)
                        outcomes[str(json.loads(data).get("verdict"))] += 1
                    elif status == 503:
                        outcomes["503"] += 1  # saturated: not a grade
                    else:
                        outcomes[f"http {status}"] += 1
                    if think_ms:
                        await asyncio.sleep(think_ms / 1000)
            finally:
                await raw.close()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        seconds = time.perf_counter() - started
        client_cpu = time.process_time() - cpu_started
    grades = len(latencies)
    sent = sum(outcomes.values())
    return {
        "concurrency": concurrency,
        "think_ms": think_ms,
        "requests": sent,
        "grades": grades,
        "accepted": outcomes.get("accepted", 0),
        "saturated_503": outcomes.get("503", 0),
        "other": {k: v for k, v in outcomes.items() if k not in ("accepted", "503")},
        "seconds": round(seconds, 3),
        "grades_per_s": round(grades / seconds, 1) if seconds > 0 else 0.0,
        "p50_ms": round(percentile(latencies, 0.50), 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99), 2) if latencies else None,
        "mean_ms": round(statistics.fmean(latencies), 2) if latencies else None,
        # The load generator shares the machine's cores with the server: what it cost.
        "client_cpu_ms_per_request": round(client_cpu * 1000 / sent, 3) if sent else None,
    }


def run_server_phases(
    command: list[str],
    url: str,
    env: dict[str, str],
    log_path: Path,
    bodies: Callable[[], bytes],
    path: str,
    *,
    count: int,
    duration: float,
    concurrency: int,
    client: str = "httpx",
    light_load: bool = False,
) -> dict[str, Any]:
    """Start one server and run its warm-up, latency (c=1) and throughput phases, and with
    ``light_load`` a paced c=1 phase."""
    with running_server(command, url, env, log_path) as health:
        pid = int(health["pid"])

        def phase(n: int, c: int, think_ms: float = 0.0) -> dict[str, Any]:
            web_before, sandbox_before = tree_cpu_seconds(pid)
            row = asyncio.run(
                measure(
                    url,
                    path,
                    bodies,
                    count=n,
                    duration=duration,
                    concurrency=c,
                    client=client,
                    think_ms=think_ms,
                )
            )
            web_after, sandbox_after = tree_cpu_seconds(pid)
            web, sandbox = web_after - web_before, sandbox_after - sandbox_before
            grades = row["grades"]
            row["server_cpu_ms_per_grade"] = (
                round((web + sandbox) * 1000 / grades, 3) if grades else None
            )
            row["web_cpu_ms_per_grade"] = round(web * 1000 / grades, 3) if grades else None
            row["sandbox_cpu_ms_per_grade"] = round(sandbox * 1000 / grades, 3) if grades else None
            return row

        warm_up = phase(min(WARMUP_REQUESTS, max(1, count // 5)), 1)
        latency = phase(count, 1)
        throughput = phase(count, concurrency)
        phases = {"warm_up": warm_up, "latency": latency, "throughput": throughput}
        if light_load:
            phases["light_load"] = phase(min(count, LIGHT_LOAD_REQUESTS), 1, LIGHT_LOAD_THINK_MS)
    return {"layers": health.get("sandbox", {}), "pool": health.get("pool", {}), **phases}
