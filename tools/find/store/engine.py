"""Which engine serves a store: Qdrant Edge in-process for a local directory (`path=`), or a Qdrant
server or cluster (`url=`), with the collection settings a cluster needs.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from qdrant_client import QdrantClient

from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.find.store.edge import EdgeClient, acquire_edge, release_edge

Client = QdrantClient | EdgeClient


class ClusterParams(BaseModel):
    """How a new collection is laid out on a Qdrant cluster (ignored by the embedded engine and by
    existing collections; None keeps the server's default)."""

    model_config = ConfigDict(extra="forbid")

    shard_number: int | None = Field(None, ge=1, description="Shards the collection is split into.")
    replication_factor: int | None = Field(None, ge=1, description="Copies of each shard.")
    write_consistency_factor: int | None = Field(
        None, ge=1, description="Replicas that must confirm a write before it succeeds.")


def open_engine(path: Path | None, url: str | None, api_key: str | None = None) -> tuple[str, Client]:
    """The store's key ("path:DIR" or "url:URL") and its client."""
    if url:
        try:
            client = QdrantClient(url=url, api_key=api_key, timeout=60)
            client.get_collections()
        except Exception as exc:  # connection errors come in many types
            raise SourceUnavailableError(
                f"cannot reach the Qdrant server at {url} ({exc}). Start it (e.g. "
                "`docker run -p 6333:6333 qdrant/qdrant`) or unset store.url."
            ) from exc
        return "url:" + url, client
    if path is None:
        raise InputError("EvidenceStore needs a local path or a Qdrant server url.")
    edge = acquire_edge(path)
    return "path:" + str(edge.root), edge


def close_engine(client: Client) -> None:
    if isinstance(client, EdgeClient):
        release_edge(client)
    else:
        client.close()
