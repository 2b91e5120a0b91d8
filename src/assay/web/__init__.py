"""``assay serve``: one ASGI app over the Python API and the run store (the ``web`` extra).

    app.py       the app factory: routers, error mapping, the run manager's lifetime
    security.py  the token, Host and Origin checks and the security headers of every answer
    runs.py      RunManager: runs started by the server, limited in number
    worker.py    RunWorker: one run in a thread and event loop of its own
    lookup.py    run ids and file names from requests, through the store's safe paths
    api.py       REST under /api/v1
    sse.py       run.log.jsonl as a server-sent event stream
    pages.py     the server-rendered web UI (templates/, plain JS, no build step)

Nothing here implements a protocol: runs are the same ``*_async`` calls the CLI makes.
"""
