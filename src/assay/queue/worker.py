"""``assay worker``: process queued batch questions until SIGTERM or Ctrl-C.

dramatiq's Redis consumer heartbeats only when it fetches, and a worker whose threads are
all busy with long runs does not fetch; the main loop here keeps a busy worker alive in the
broker's eyes (so its messages are not handed to another worker while its runs go on).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

from dramatiq import Worker

from assay.gather.fetch.pacing import use_domain_gate
from assay.queue.messages import HEARTBEAT_TIMEOUT, QUEUE, declare, make_broker
from assay.queue.pacing import RedisDomainGate


def serve(
    url: str,
    *,
    threads: int = 2,
    heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
    announce: Callable[[str], None] = print,
) -> None:
    broker = make_broker(url, heartbeat_timeout=heartbeat_timeout)
    declare(broker)
    use_domain_gate(RedisDomainGate(url))
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    worker = Worker(broker, queues={QUEUE}, worker_threads=threads)
    worker.start()
    announce(f"worker ready: {threads} thread(s) on {QUEUE}")
    try:
        while not stop.wait(heartbeat_timeout / 4):
            broker.do_qsize(QUEUE)  # every broker command is a heartbeat
    finally:
        announce("worker stopping: runs in progress end first")
        worker.stop()
        broker.close()
        use_domain_gate(None)
        for number, handler in previous.items():
            signal.signal(number, handler)
