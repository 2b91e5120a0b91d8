"""Batches on a real job queue: dramatiq with its Redis broker (the ``queue`` extra).

``assay batch --broker redis://…`` enqueues one signed message per question (``submit``);
``assay worker --broker …`` processes them (``worker``) through the same ``run_job`` the
in-process batch uses, with the worker's own configuration: a message carries only what
``envelope.QueuedQuestion`` allows, signed with ASSAY_QUEUE_KEY, and anything else that
reaches the queue is dead-lettered (``consumer``). A message is acknowledged only when its
run has ended; a worker that dies mid-run stops heartbeating and its message is redelivered
to another worker, which resumes the run from its files (the run store is a directory every
worker shares). Per-domain pacing spans workers through Redis (``pacing``). Nothing here is
imported unless a queue command runs.
"""
