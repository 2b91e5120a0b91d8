"""dramatiq's Redis broker, with a consumer that admits only messages a worker will run.

dramatiq's own consumer fetches message bodies without their Redis ids, so a body it cannot
decode raises out of the fetch loop: the rest of that fetch is dropped while its ids stay in
this worker's acknowledgement set, and none of them runs while the worker lives. Here a fetch
returns each id with its body (``_FETCH``), and every body is checked before a worker thread
sees it: it must decode, address the queue's one actor with one signed envelope
(``envelope.open_envelope``) and nothing else. A message that fails is dead-lettered at once
(dramatiq's ``nack``: off the acknowledgement set, into ``<queue>.XQ`` for a week, with the
reason beside it under ``<queue>.XQ.why:<id>``) and logged; the other messages go on.

An admitted message is rebuilt from what was checked: its Redis id comes from the fetch (not
from the body), its queue is this consumer's, and of its options only the retry count and a
delay survive, so no body can steer dramatiq's middleware (time limits, callbacks, pipelines).
The key layout (``<ns>:<queue>``, ``<ns>:<queue>.msgs``, ``<ns>:__acks__.<broker>.<queue>``)
is dramatiq's ``dispatch.lua``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from dramatiq import Message
from dramatiq.broker import MessageProxy
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.common import compute_backoff, q_name
from dramatiq.errors import ConnectionClosed, DecodeError

from assay.controls import strip_controls
from assay.queue.envelope import RejectedMessage, open_envelope

log = logging.getLogger("assay.queue")

# Pop up to ARGV[1] ids off the queue into this worker's acks, returning id, body, id, body...
_FETCH = """
local out = {}
for i = 1, tonumber(ARGV[1]) do
  local id = redis.call("lpop", KEYS[1])
  if not id then break end
  redis.call("sadd", KEYS[3], id)
  out[#out + 1] = id
  out[#out + 1] = redis.call("hget", KEYS[2], id)
end
return out
"""
_KEPT_OPTIONS: dict[str, type | tuple[type, ...]] = {"retries": int, "eta": (int, float)}


def dead_letter_reason_key(namespace: str, queue: str, redis_id: str) -> str:
    return f"{namespace}:{q_name(queue)}.XQ.why:{redis_id}"


def dead_letters_key(namespace: str, queue: str) -> str:
    """The hash of dead-lettered bodies by Redis id (dramatiq's)."""
    return f"{namespace}:{q_name(queue)}.XQ.msgs"


class AdmittingRedisBroker(RedisBroker):
    """A RedisBroker whose consumers admit only signed messages for ``actor`` (see above)."""

    def __init__(self, *, actor: str, key: bytes | None, **options: Any) -> None:
        super().__init__(**options)  # type: ignore[no-untyped-call]
        self.actor = actor
        self.key = key  # None: a broker that only sends (a batch client)

    @property
    def consumer_class(self) -> type[_RedisConsumer]:
        return _AdmittingConsumer


class _AdmittingConsumer(_RedisConsumer):
    broker: AdmittingRedisBroker

    def __init__(self, broker: AdmittingRedisBroker, queue_name: str, *rest: Any) -> None:
        super().__init__(broker, queue_name, *rest)  # type: ignore[no-untyped-call]
        self._fetch = broker.client.register_script(_FETCH)
        namespace = broker.namespace
        self._keys = [f"{namespace}:{queue_name}", f"{namespace}:{queue_name}.msgs",
                      f"{namespace}:__acks__.{broker.broker_id}.{queue_name}"]  # fmt: skip

    def __next__(self) -> MessageProxy | None:
        try:
            while True:
                if self.message_cache:
                    redis_id, body = self.message_cache.pop(0)
                    admitted = self._admit(redis_id, body)
                    if admitted is not None:
                        self.misses = 0
                        self.queued_message_ids.add(admitted.message_id)
                        return admitted
                    continue
                room = self.prefetch - self.outstanding_message_count
                if room > 0:
                    self.message_cache = self._fetch_pairs(room)
                if not self.message_cache:
                    self.misses, backoff_ms = compute_backoff(self.misses, max_backoff=self.timeout)
                    time.sleep(backoff_ms / 1000)
                    return None
        except redis.ConnectionError as exc:
            raise ConnectionClosed(exc) from None  # type: ignore[no-untyped-call]

    def _fetch_pairs(self, count: int) -> list[tuple[str, bytes | None]]:
        # Any dispatch command heartbeats and sometimes does maintenance (requeueing a dead
        # worker's messages): the one dramatiq's fetch would have done.
        self.broker.do_qsize(self.queue_name)
        flat = self._fetch(keys=self._keys, args=[count])
        return [(flat[i].decode(), flat[i + 1]) for i in range(0, len(flat), 2)]

    def _admit(self, redis_id: str, body: bytes | None) -> MessageProxy | None:
        try:
            return MessageProxy(self._checked(redis_id, body))
        except Exception as exc:  # whatever a hostile body makes fail, it is this body's fault
            self._dead_letter(redis_id, _reason(exc))
            return None

    def _checked(self, redis_id: str, body: bytes | None) -> Message[Any]:
        if body is None:
            raise ValueError("no body stored under this id")
        message = Message.decode(body)
        if message.actor_name != self.broker.actor:
            raise ValueError(f"addressed to actor {message.actor_name!r}")
        if len(message.args) != 1 or message.kwargs:
            raise ValueError("expected one envelope argument")
        if self.broker.key is None:
            raise ValueError("this broker has no signing key to check messages with")
        open_envelope(message.args[0], self.broker.key)
        options: dict[str, Any] = {"redis_message_id": redis_id}
        for name, kind in _KEPT_OPTIONS.items():
            value = message.options.get(name)
            if isinstance(value, kind) and not isinstance(value, bool):
                options[name] = value
        return Message(
            queue_name=self.queue_name, actor_name=self.broker.actor, args=message.args,
            kwargs={}, options=options, message_id=redis_id,
        )  # fmt: skip

    def _dead_letter(self, redis_id: str, reason: str) -> None:
        log.warning("dead-lettered queue message %s: %s", redis_id, reason)
        self.broker.do_nack(self.queue_name, redis_id)
        why = dead_letter_reason_key(self.broker.namespace, self.queue_name, redis_id)
        self.broker.client.set(why, reason, px=self.broker.dead_message_ttl)


def _reason(exc: Exception) -> str:
    if isinstance(exc, DecodeError):
        text = "not a dramatiq message (not UTF-8 JSON of its fields)"
    elif isinstance(exc, RejectedMessage | ValueError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    return strip_controls(text)[:500]  # a body's text reaches a log and a terminal
