"""The server under load: 50 concurrent clients on loopback asking for odds, resolving and undoing, for 30
seconds, beside the same calls made in-process (no HTTP) in this very run.

Run alone with ``python bench/server.py`` or as part of ``make bench``. ``RANGEFIRE_BENCH_SERVER_SECONDS``
shortens the run (``RANGEFIRE_BENCH_SERVER_CLIENTS`` changes the number of clients). The clients share the
machine with the server, as they would on one laptop; each figure is printed beside its in-process reference.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.web.server starts the real server

import httpx

from rangefire.web.service import AttackAsk, Battles
from rangefire.web.store import Store
from tests.web.server import Server

#: What each client does in a loop, on a battle of its own: the odds of a volley, the volley, its undo.
ATTACKER = "20th-maine"


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of the values, in seconds."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


async def new_battle(client: httpx.AsyncClient) -> tuple[str, dict[str, str]]:
    created = (await client.post("/api/battles", json={"example": "wheatfield"})).json()
    return created["id"], {"Authorization": f"Bearer {created['tokens']['sides']['union']}"}


async def client_loop(client: httpx.AsyncClient, battle: str, headers: dict[str, str], until: float,
                      times: dict[str, list[float]], errors: list[str]) -> None:
    calls = (("odds", f"/api/battles/{battle}/odds", {"attacker": ATTACKER}),
             ("resolve", f"/api/battles/{battle}/resolve", {"attacker": ATTACKER}),
             ("undo", f"/api/battles/{battle}/undo", {}))
    while time.monotonic() < until:
        for name, url, body in calls:
            start = time.perf_counter()
            try:
                response = await client.post(url, json=body, headers=headers)
            except httpx.HTTPError as exc:
                errors.append(f"{name}: {type(exc).__name__}")
                continue
            times[name].append(time.perf_counter() - start)
            if response.status_code != 200:
                errors.append(f"{name}: {response.status_code} {response.text[:120]}")


async def load(address: str, clients: int, seconds: float) -> tuple[dict[str, list[float]], list[str]]:
    """``clients`` clients, each with its own connection and battle (created before the clock starts)."""
    times: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    opened = [httpx.AsyncClient(base_url=address, timeout=120) for _ in range(clients)]
    try:
        battles = [await new_battle(client) for client in opened]
        until = time.monotonic() + seconds
        await asyncio.gather(*(client_loop(client, battle, headers, until, times, errors)
                               for client, (battle, headers) in zip(opened, battles, strict=True)))
    finally:
        for client in opened:
            await client.aclose()
    return times, errors


def in_process(db: Path, seconds: float) -> dict[str, list[float]]:
    """The same calls, one after another, on the service the routes call (no HTTP, no JSON on a socket)."""
    battles = Battles(Store(db))
    created = battles.create(None, "wheatfield", False)
    row = battles.row(created["id"])
    role = battles.store.role(row.id, created["tokens"]["sides"]["union"])
    assert role is not None
    ask = AttackAsk(ATTACKER)
    times: dict[str, list[float]] = defaultdict(list)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for name in ("odds", "resolve", "undo"):
            start = time.perf_counter()
            loaded = battles.load(row)
            if name == "odds":
                battles.odds(loaded, ask)
            elif name == "resolve":
                battles.resolve(loaded, role, ask, None, False)
            else:
                battles.undo(loaded, role)
            times[name].append(time.perf_counter() - start)
    return times


def run(seconds: float | None = None, clients: int | None = None) -> bool:
    seconds = seconds if seconds is not None else float(os.environ.get("RANGEFIRE_BENCH_SERVER_SECONDS", "30"))
    clients = clients if clients is not None else int(os.environ.get("RANGEFIRE_BENCH_SERVER_CLIENTS", "50"))
    with tempfile.TemporaryDirectory() as folder:
        reference = in_process(Path(folder) / "in-process.sqlite3", min(seconds, 5.0))
        with Server(Path(folder) / "served.sqlite3") as server:
            times, errors = asyncio.run(load(server.address, clients, seconds))
    total, local_total = sum(len(v) for v in times.values()), sum(len(v) for v in reference.values())
    local_seconds = sum(sum(v) for v in reference.values())
    print(f"\nthe server, {clients} concurrent clients on loopback for {seconds:g} s (odds, resolve, undo on a "
          "battle each):")
    print(f"  served: {total:,} requests, {total / seconds:,.0f} a second, errors: {len(errors)}"
          + (f" (first: {errors[0]})" if errors else ""))
    print(f"  in-process, one call at a time: {local_total / local_seconds:,.0f} calls a second; served/in-process "
          f"throughput {total / seconds / (local_total / local_seconds):.2f}")
    print("     call        p50 served   p99 served   p50 in-process   p99 in-process   p50 ratio")
    for name in ("odds", "resolve", "undo"):
        served, local = times.get(name) or [0.0], reference[name]
        print(f"  {name:>8}   {percentile(served, 50) * 1e3:10.1f} ms {percentile(served, 99) * 1e3:10.1f} ms "
              f"{percentile(local, 50) * 1e3:13.2f} ms {percentile(local, 99) * 1e3:13.2f} ms "
              f"{percentile(served, 50) / max(statistics.median(local), 1e-9):10.0f}x")
    print(f"  (latency served includes waiting behind the other {clients - 1} clients: with 2 of them at work at "
          "once, the rest queue)")
    return not errors


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
