"""Where sessions are kept: per backend, the checkpointer of the graph's state, the session index
(one row per session and its event log), the lease a process holds while it runs a session,
repair, and the one-line errors each backend's failures become.

- `common`: session ids, the event log's entries, the index tables, the "running elsewhere" refusal.
- `url`: a PostgreSQL URL's shape and its password masked (settings checks `sessions.url` with it).
- `sqlite`: the SQLite files under data_dir: checkpointer, index, flock leases, damage errors.
- `repair`: recovering a damaged SQLite sessions file.
- `postgres`: a PostgreSQL database (`sessions.url`): pool, schema setup, checkpointer, index,
  advisory-lock leases, connection errors.
- `index`: `SessionIndex` over either backend and the leases a command line run holds.
- `checkpoint`: the checkpointer an investigator runs with and its failures as one-line errors.

Running sessions in threads and streaming their events is `agent/runs.py`'s (`RunManager`); this
package only keeps them. Nothing is re-exported here, so that `agent/settings.py` can use `url`
without loading the backends (which read settings).
"""
