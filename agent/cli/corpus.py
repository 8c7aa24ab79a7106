"""`claimscope ingest`, `claimscope corpus list|info|delete` and `claimscope search`."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from claimscope.agent.cli.interrupt import stoppable
from claimscope.agent.cli.progress import counted
from claimscope.agent.cli.root import app
from claimscope.tools.errors import InputError
from claimscope.tools.find.ingest import ConflictingId
from claimscope.tools.find.store import EvidenceStore, IngestStats, SearchFilter, segment_document
from claimscope.tools.models import Document, SourceKind

corpus_app = typer.Typer(help="List, inspect and delete corpora in the evidence store.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")

# soft_wrap: long sentences stay on one line, so output can be piped and grepped.
console = Console(soft_wrap=True)
progress_console = Console(stderr=True, soft_wrap=True)


def _store() -> EvidenceStore:
    from claimscope.agent.datadir import ensure_data_dir, open_store
    from claimscope.agent.services import Services
    from claimscope.agent.settings import get_settings

    settings = get_settings()
    ensure_data_dir(settings)
    return open_store(Services(settings))


def _require_corpus(store: EvidenceStore, name: str) -> None:
    names = [c.name for c in store.corpora()]
    if name not in names:
        known = ", ".join(names) if names else "none yet; add one with `claimscope ingest PATH --corpus NAME`"
        raise InputError(f"unknown corpus {name!r} (corpora: {known}).")


def _stored(store: EvidenceStore, corpus: str, docs: list[Document]) -> list[Document]:
    """The documents `corpus` already holds under the ids of `docs`."""
    ids = list(dict.fromkeys(d.id for d in docs))
    chunk = 1000  # one retrieve per thousand ids, so a large re-ingest does not ask for all at once
    return [d for i in range(0, len(ids), chunk) for d in store.get_documents(ids[i:i + chunk], corpus)]


def _warn(text: str) -> None:
    progress_console.print(f"[yellow]warning:[/] {text}", highlight=False)


def _report_conflicts(conflicts: list[ConflictingId], corpus: str) -> None:
    for c in conflicts:
        kept = f"kept the text already in corpus {corpus}" if c.kept == "the corpus" else f"kept {c.kept}"
        _warn(f"id {c.id!r} was given different texts: {kept}, skipped {', '.join(c.dropped)}.")
    if conflicts:
        _warn(f"to keep every text, give each its own id; to replace a stored text, delete the corpus "
              f"(claimscope corpus delete {shlex.quote(corpus)}) and ingest the corrected file.")


def ingest_path(path: Path, corpus: str, *, store: EvidenceStore | None = None, quiet: bool = False) -> IngestStats:
    """Read PATH and index it into CORPUS with a progress bar; malformed rows are listed, not fatal.

    Documents of thousands of segments are named before indexing, ids given different texts after
    it (on stderr, also when quiet). Ctrl-C, SIGINT (also in a background job) or SIGTERM stop
    it with a line saying what is stored and how to go on (exit 130).
    Shared by `claimscope ingest` and `claimscope investigate --ingest`.
    """
    from claimscope.tools.find.ingest import (
        LARGE_DOCUMENT_SEGMENTS,
        conflicting_ids,
        large_documents,
        read_path,
    )

    result = read_path(path)
    if not result.documents:
        for p in result.problems:
            console.print(f"[yellow]skipped[/] {p.location}: {p.reason}")
        raise InputError(f"no readable documents in {path} ({len(result.problems)} skipped, see above).")
    store = store or _store()
    granularities, title_in_embedding = store.granularities, store.title_in_embedding
    large = large_documents(result, lambda doc: len(segment_document(doc, granularities, title_in_embedding)))
    for doc_id, where, n in large:
        _warn(f"document {doc_id!r} ({where}) has {n:,} segments (an abstract has about ten; the warning "
              f"starts at {LARGE_DOCUMENT_SEGMENTS:,}): indexing it takes a while and its sentences can crowd "
              "other documents out of searches. Check that it is the text you meant, or split it.")
    conflicts = conflicting_ids(result, _stored(store, corpus, result.documents))
    large_at = {where: n for _, where, n in large}
    written = 0  # documents the store has finished with (stored, or skipped as already there)

    def feed(doing: Callable[[str], None]) -> Iterator[Document]:
        # The store takes documents one by one and writes a large one as soon as it has it, so the
        # one last taken is the one in flight.
        for i, doc in enumerate(result.documents):
            n = large_at.get(result.location(i))
            doing(f"indexing {doc.id!r} ({n:,} segments)" if n else "")
            yield doc

    # Progress goes to stderr: stdout stays for results, and a log of stderr shows how far it got.
    try:
        with stoppable(), counted(progress_console, "ingesting", len(result.documents), quiet=quiet) as advance:
            def done(n: int) -> None:
                nonlocal written
                written += n
                advance(n)

            stats = store.add_documents(feed(advance.doing), corpus, progress=done)
    except KeyboardInterrupt:
        again = f"claimscope ingest {shlex.quote(str(path))} --corpus {shlex.quote(corpus)}"
        progress_console.print(
            f"interrupted: {written} of {len(result.documents)} documents of {path} are in corpus {corpus} "
            f"and stay there; run `{again}` to add the rest (documents already stored are skipped).",
            highlight=False, markup=False)
        raise typer.Exit(130) from None
    except OSError as exc:
        raise InputError(
            f"could not write to the evidence store at {store.location} ({exc.strerror or exc}); documents "
            "stored before this stay. Free some space and run the same ingest again: documents already "
            "stored are skipped."
        ) from exc
    if not quiet:
        differing = sum(len(c.dropped) for c in conflicts)
        console.print(
            f"corpus [bold]{corpus}[/]: added {stats.added} documents ({stats.segments} segments), "
            f"skipped {stats.skipped_duplicates} duplicates"
            f"{f' ({differing} with an id already used for a different text, see the warnings)' if differing else ''}, "
            f"{len(result.problems)} malformed, in {stats.seconds:.1f} s."
        )
        for p in result.problems:
            console.print(f"[yellow]malformed[/] {p.location}: {p.reason}")
    _report_conflicts(conflicts, corpus)
    return stats


@app.command()
def ingest(
    path: Annotated[Path, typer.Argument(help="A SciFact/generic .jsonl, a .csv, or a folder of .txt/.md/.pdf.")],
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Corpus to add the documents to.")],
) -> None:
    """Read documents from PATH and index them into a corpus (re-ingesting is idempotent)."""
    ingest_path(path, corpus)


@corpus_app.command("list")
def corpus_list() -> None:
    """List corpora with their document and segment counts."""
    infos = _store().corpora()
    if not infos:
        console.print("no corpora yet; add one with `claimscope ingest PATH --corpus NAME`.")
        return
    table = Table("corpus", "documents", "segments")
    for c in infos:
        table.add_row(c.name, str(c.documents), str(c.segments))
    console.print(table)


@corpus_app.command("info")
def corpus_info(name: Annotated[str, typer.Argument(help="Corpus name.")]) -> None:
    """Counts and year range of one corpus."""
    store = _store()
    _require_corpus(store, name)
    info = next(c for c in store.corpora() if c.name == name)
    console.print(f"corpus [bold]{info.name}[/]: {info.documents} documents, {info.segments} segments")
    console.print(f"store: {store.collection} at {store.location}")


@corpus_app.command("delete")
def corpus_delete(
    name: Annotated[str, typer.Argument(help="Corpus name.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a corpus and all its documents."""
    store = _store()
    _require_corpus(store, name)
    if not yes and not typer.confirm(f"delete corpus {name!r} and all its documents?"):
        console.print("nothing deleted.")
        raise typer.Exit(1)
    n = store.delete_corpus(name)
    console.print(f"deleted corpus [bold]{name}[/] ({n} documents).")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for (a claim or keywords).")],
    corpus: Annotated[list[str] | None, typer.Option("--corpus", "-c", help="Corpus to search (repeatable; default all).")] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=200, help="Documents to show.")] = 10,
    year_min: Annotated[int | None, typer.Option("--year-min", help="Only documents from this year on.")] = None,
    year_max: Annotated[int | None, typer.Option("--year-max", help="Only documents up to this year.")] = None,
    source: Annotated[list[SourceKind] | None, typer.Option("--source", help="Only documents from this source (repeatable).")] = None,
    sentences: Annotated[int, typer.Option("--sentences", min=1, max=20, help="Best sentences shown per document.")] = 3,
) -> None:
    """Search the evidence store; prints documents with their best sentences and scores."""
    store = _store()
    for name in corpus or []:
        _require_corpus(store, name)
    flt = SearchFilter(corpora=corpus or None, year_min=year_min, year_max=year_max, sources=source or None)
    hits = store.search(query, k=k, flt=flt, sentences_per_doc=sentences)
    if not hits:
        console.print("no matching documents.")
        return
    for rank, h in enumerate(hits, start=1):
        d = h.document
        meta = ", ".join(x for x in (str(d.year) if d.year else "", d.venue or "", d.doi or "") if x)
        console.print(f"[bold]{rank}. {d.title or d.id}[/]  [dim]({h.corpus}:{d.id}{'; ' + meta if meta else ''})[/]"
                      f"  score {h.score:.4f}", highlight=False)
        for s in h.segments:
            console.print(f"    [{s.segment.key}] {s.score:.4f}  {s.segment.text}", highlight=False, markup=False)
