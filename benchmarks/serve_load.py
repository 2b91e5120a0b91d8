"""Load on `assay serve`: 20 concurrent SSE clients on one run, 5 concurrent runs, and
50 POSTs at once against `--max-runs 4`.

Starts the local lab (loopback, a small generated corpus on 3 sites) and `assay serve` as a
subprocess with a fresh home, then:

1. one run (the server's first: cold) with 20 SSE clients following it from the start:
   every client must receive every event exactly once; event delivery latency is
   "received at" minus the event's own `ts` (written to run.log.jsonl);
2. 5 runs started at once (`--max-runs 5`) while a poller reads GET /api/v1/runs/{id}:
   time to the run id (POST; the target is a median under 100 ms), API latency under
   load, wall time until all are done;
3. on a second server (`--max-runs 4`, fresh home), 50 POSTs sent together: exactly 4 must
   be accepted (202) and working, 46 refused with 429 (`--limit-only` runs just this).

The server's resident memory (psutil) is sampled every 50 ms during 1 and 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import httpx2
import psutil

from assay.gather.documents import Document, make_doc_id
from assay.lab import serve_lab

POST_TARGET_MS = 100  # issue 26: runs work in their own threads, so a POST answers at once

TOPICS = {
    "Halvorsen Lighthouse": "stands on Skarvik Island, was completed in 1874 and is 41 metres tall",
    "Velmar honeybee": "lives in the Orsa highlands and was described by Lars Brekke in 1931",
    "Tarn Valley tidal plant": "opened in 2016 and has 24 turbines giving 320 megawatts",
    "Kessler sourdough": "ferments for 18 hours and its starter dates from 1790",
    "Mount Oskar": "rises 2,870 metres and last erupted in 1911",
}


def corpus() -> list[Document]:
    docs = []
    for topic, fact in TOPICS.items():
        for angle in ("overview", "history", "figures", "guide"):
            text = (
                f"The {topic} {fact}. This {angle} page describes the {topic}. "
                f"Visitors often ask about the {topic}; the short answer is that it {fact}."
            )
            docs.append(Document(doc_id=make_doc_id(f"{topic}#{angle}"),
                                 title=f"{topic}: {angle}", text=text))  # fmt: skip
    return docs


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class MemorySampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.samples: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append(self.process.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.05)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (f"{name}: n={len(ms)} median {statistics.median(ms):.1f} ms, "
            f"p95 {pct(ms, 0.95):.1f} ms, max {max(ms):.1f} ms")  # fmt: skip


async def follow(client: httpx2.AsyncClient, run_id: str) -> tuple[list[int], list[float]]:
    """(seqs received, delivery latencies) of one SSE client until the stream ends."""
    seqs, latencies = [], []
    async with client.stream("GET", f"/api/v1/runs/{run_id}/events") as response:
        async for line in response.aiter_lines():
            if line.startswith("event: end"):
                break
            if line.startswith("data: "):
                record = json.loads(line[6:])
                sent = datetime.fromisoformat(record["ts"].replace("Z", "+00:00")).timestamp()
                latencies.append(time.time() - sent)
                seqs.append(record["seq"])
    return seqs, latencies


async def wait_done(client: httpx2.AsyncClient, run_id: str, latencies: list[float]) -> None:
    while True:
        started = time.perf_counter()
        detail = (await client.get(f"/api/v1/runs/{run_id}")).json()
        latencies.append(time.perf_counter() - started)
        if detail["status"] != "running":
            return
        await asyncio.sleep(0.2)


async def sse_fanout(base: str, clients: int, topic: str, home: Path) -> None:
    async with httpx2.AsyncClient(base_url=base, timeout=120) as client:
        posted = time.perf_counter()
        run_id = (await client.post("/api/v1/runs", json={"topic": topic})).json()["id"]
        started = time.perf_counter()
        first_post = started - posted
        results = await asyncio.gather(*(follow(client, run_id) for _ in range(clients)))
        wall = time.perf_counter() - started
    log = [json.loads(line) for line in (home / "runs" / run_id / "run.log.jsonl").open()]
    expected = [r["seq"] for r in log]
    exact = sum(1 for seqs, _ in results if seqs == expected)
    print(f"[1] {clients} SSE clients on one run: {len(expected)} events; {exact}/{clients} "
          f"clients got every event exactly once; run + streams {wall:.2f}s")  # fmt: skip
    print(f"    POST /api/v1/runs, idle cold server (time to run id): {first_post * 1000:.0f} ms")
    print("    " + summary("event delivery latency", [x for _, lat in results for x in lat]))


async def concurrent_runs(base: str, runs: int) -> None:
    topics = [f"What is notable about the {t}?" for t in TOPICS][:runs]
    async with httpx2.AsyncClient(base_url=base, timeout=120) as client:
        post_latency: list[float] = []
        api_latency: list[float] = []
        started = time.perf_counter()

        async def start(topic: str) -> str:
            t0 = time.perf_counter()
            response = await client.post("/api/v1/runs", json={"topic": topic})
            post_latency.append(time.perf_counter() - t0)
            run_id: str = response.json()["id"]
            return run_id

        ids = await asyncio.gather(*(start(t) for t in topics))
        await asyncio.gather(*(wait_done(client, run_id, api_latency) for run_id in ids))
        wall = time.perf_counter() - started
        statuses = [(await client.get(f"/api/v1/runs/{i}")).json()["status"] for i in ids]
    print(f"[2] {runs} concurrent runs: all finished in {wall:.2f}s; statuses {statuses}")
    print("    " + summary("POST /api/v1/runs (time to run id)", post_latency))
    median_ms = statistics.median(post_latency) * 1000
    verdict = "met" if median_ms < POST_TARGET_MS else "MISSED"
    print(f"    target: POST median under {POST_TARGET_MS} ms with {runs} runs at once: {verdict}")
    print("    " + summary("GET /api/v1/runs/{id} under load", api_latency))


async def burst(base: str, posts: int, limit: int) -> None:
    """``posts`` POSTs sent together: how many were accepted, refused, and really working."""
    topics = [f"What is notable about the {t}?" for t in TOPICS]
    limits = httpx2.Limits(max_connections=posts)
    async with httpx2.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        gate = asyncio.Event()

        async def start(number: int) -> httpx2.Response:
            await gate.wait()  # every request is ready before any is sent
            body = {"topic": topics[number % len(topics)]}
            return await client.post("/api/v1/runs", json=body)

        pending = [asyncio.create_task(start(n)) for n in range(posts)]
        await asyncio.sleep(0.1)
        sent = time.perf_counter()
        gate.set()
        answers = await asyncio.gather(*pending)
        took = time.perf_counter() - sent
        codes = Counter(a.status_code for a in answers)
        ids = [a.json()["id"] for a in answers if a.status_code == 202]
        details = [(await client.get(f"/api/v1/runs/{i}")).json() for i in ids]
        working = sum(1 for d in details if d["active"])
        listed = (await client.get("/api/v1/runs")).json()
        running = sum(1 for r in listed if r["status"] == "running")
        for run_id in ids:  # the runs are not the point here: stop them
            await client.post(f"/api/v1/runs/{run_id}/cancel")
    shown = ", ".join(f"{n} x {code}" for code, n in sorted(codes.items()))
    print(f"[3] {posts} concurrent POSTs against --max-runs {limit}: {shown} in {took:.2f}s; "
          f"right after: {working} accepted runs active, {running} runs in the store "
          "running")  # fmt: skip


@contextmanager
def serving(lab_url: str, home: Path, max_runs: int) -> Iterator[tuple[str, int]]:
    """`assay serve` as a subprocess on a free port: (base URL, pid) once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "assay.cli", "serve", "--port", str(port),
               "--home", str(home), "--search", "searxng", "--searxng-url", lab_url,
               "--allow-host", "127.0.0.0/8", "--max-runs", str(max_runs)]  # fmt: skip
    env = {**os.environ, "ASSAY_FSYNC": "never"}
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx2.get(f"{base}/api/v1/runs", timeout=1)
                break
            except httpx2.HTTPError:
                time.sleep(0.05)
        yield base, server.pid
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="SSE clients on one run")
    parser.add_argument("--runs", type=int, default=5, help="concurrent runs")
    parser.add_argument("--posts", type=int, default=50, help="POSTs sent together in [3]")
    parser.add_argument("--limit", type=int, default=4, help="--max-runs of the [3] server")
    parser.add_argument("--limit-only", action="store_true", help="run only [3]")
    args = parser.parse_args()
    with serve_lab(corpus(), sites=3) as lab:
        if not args.limit_only:
            home = Path(tempfile.mkdtemp(prefix="assay-serve-load-"))
            with serving(lab.sites[0], home, args.runs) as (base, pid):
                sampler = MemorySampler(pid)
                idle = psutil.Process(pid).memory_info().rss
                sampler.start()
                asyncio.run(sse_fanout(base, args.clients,
                                       "How tall is the Halvorsen Lighthouse?", home))  # fmt: skip
                asyncio.run(concurrent_runs(base, args.runs))
                sampler.stop.set()
                sampler.join()
                end = psutil.Process(pid).memory_info().rss
                mb = 1024 * 1024
                peak = max(sampler.samples)
                print(f"server RSS: idle {idle / mb:.0f} MB, peak {peak / mb:.0f} MB, "
                      f"after {end / mb:.0f} MB")  # fmt: skip
        limited = Path(tempfile.mkdtemp(prefix="assay-serve-limit-"))
        with serving(lab.sites[0], limited, args.limit) as (base, _pid):
            asyncio.run(burst(base, args.posts, args.limit))


if __name__ == "__main__":
    main()
