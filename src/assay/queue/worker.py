"""``assay worker``: process queued batch questions until SIGTERM or Ctrl-C.

A worker runs questions with its own settings (search, endpoints, allow-list, run store) and
its own signing key; a message chooses only what ``envelope.QueuedQuestion`` holds.

dramatiq's Redis consumer heartbeats only when it fetches, and a worker whose threads are
all busy with long runs does not fetch; the main loop here keeps a busy worker alive in the
broker's eyes (so its messages are not handed to another worker while its runs go on),
and watches the broker: one that stays silent past the heartbeat timeout ends the worker
with one line (``messages.BrokerWatch``), not dramatiq's reconnection log and a traceback.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType

import redis
from dramatiq import Worker
from dramatiq.common import dq_name

from assay.config import Settings
from assay.gather.fetch.pacing import use_domain_gate
from assay.queue.envelope import queue_key
from assay.queue.messages import (
    HEARTBEAT_TIMEOUT,
    QUEUE,
    BrokerWatch,
    declare,
    make_broker,
    runner,
)
from assay.queue.pacing import RedisDomainGate


class _Announcer(logging.Handler):
    """The queue's warnings (a dead-lettered message, a refused question) as worker lines."""

    def __init__(self, announce: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.announce = announce

    def emit(self, record: logging.LogRecord) -> None:
        self.announce(record.getMessage())


_CONSUMER_LOGGERS = tuple(f"dramatiq.worker.ConsumerThread({q})" for q in (QUEUE, dq_name(QUEUE)))


class _QuietConsumerOutage(logging.Filter):
    """dramatiq's consumers log a broker outage once a second while they reconnect; the
    worker's own loop watches the broker and says it once, when it gives up."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Consumer encountered a connection error")


def serve(
    url: str,
    settings: Settings,
    *,
    threads: int = 2,
    heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
    announce: Callable[[str], None] = print,
) -> None:
    key = queue_key(settings)  # before anything is fetched: no key, no worker
    broker = make_broker(url, key=key, heartbeat_timeout=heartbeat_timeout)
    declare(broker, runner(settings, key))
    use_domain_gate(RedisDomainGate(url))
    stop = threading.Event()
    logger, handler = logging.getLogger("assay.queue"), _Announcer(announce)
    logger.addHandler(handler)
    logger.propagate = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    quiet = _QuietConsumerOutage()
    for consumer in _CONSUMER_LOGGERS:
        logging.getLogger(consumer).addFilter(quiet)
    worker = Worker(broker, queues={QUEUE}, worker_threads=threads)
    worker.start()
    announce(f"worker ready: {threads} thread(s) on {QUEUE}; run store {settings.home}")
    watch = BrokerWatch(url, patience=heartbeat_timeout)
    try:
        while not stop.wait(heartbeat_timeout / 4):
            try:
                broker.do_qsize(QUEUE)  # every broker command is a heartbeat
            except redis.RedisError as exc:
                watch.failed(exc)  # raises once the broker has been silent too long
            else:
                watch.answered()
    finally:
        announce("worker stopping: runs in progress end first")
        try:
            worker.stop()  # requeues what it had prefetched: the broker may be gone
            broker.close()
        except redis.RedisError:
            pass  # their messages come back when the broker does (unacknowledged)
        use_domain_gate(None)
        logger.removeHandler(handler)
        logger.propagate = True
        for consumer in _CONSUMER_LOGGERS:
            logging.getLogger(consumer).removeFilter(quiet)
        for number, handler_before in previous.items():
            signal.signal(number, handler_before)
