"""A folder is the truth: what an index run withdraws beyond the files it re-read, which files a
folder's links may bring in, and which documents `remove` names.

A file deleted from a folder since the last run is withdrawn when the folder is indexed again; a
renamed file is one document under its new path (its chunks' vectors are found again by text
hash, so nothing is embedded twice). A file that could not be read this time keeps what an earlier
run indexed from it. Sources are stored as absolute, resolved paths (`./docs` and `docs/` are one
folder), so "inside the folder" is a prefix test on them.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from hopgraph.errors import InputError
from hopgraph.records.documents import Skip, StoredDocument


def folders_named(paths: Iterable[str | Path]) -> list[Path]:
    """The resolved folders among the paths an index run was given."""
    return [Path(p).resolve() for p in paths if Path(p).is_dir()]


def inside(source: str, folder: Path) -> bool:
    return source.startswith(str(folder) + os.sep)


def sources_gone(stored: Iterable[str], folders: Sequence[Path], read: Collection[str],
                 skipped: Iterable[Skip]) -> set[str]:
    """Stored sources inside the named folders that this run neither read nor skipped: files deleted
    or renamed since the last run."""
    kept = set(read) | {str(Path(skip.path).resolve()) for skip in skipped}
    return {s for s in stored if s not in kept and any(inside(s, f) for f in folders)}


def outside_links(files: Sequence[Path], folder: Path) -> tuple[list[Path], list[Skip]]:
    """A folder's files, less the symbolic links to files outside it: followed only on request
    (`--follow-links`), so a folder never brings in what its owner did not put there."""
    kept, skipped = [], []
    for path in files:
        if path.is_symlink() and not path.resolve().is_relative_to(folder.resolve()):
            skipped.append(Skip(str(path), f"a link to {path.resolve()}, outside the folder (--follow-links "
                                           "indexes it)"))
        else:
            kept.append(path)
    return kept, skipped


def documents_named(active: Iterable[StoredDocument], targets: Sequence[str]) -> list[int]:
    """The ids of the documents `remove` names: a document id, a file (every document read from it)
    or a folder (every document inside it). A target that names nothing stored is an error, before
    anything is withdrawn."""
    documents = list(active)
    chosen: dict[int, None] = {}
    for target in targets:
        found = _named_by(documents, target)
        if not found:
            raise InputError(f"{target}: no indexed document has this id, file or folder")
        chosen.update(dict.fromkeys(found))
    return list(chosen)


def _named_by(documents: list[StoredDocument], target: str) -> list[int]:
    if target.isdigit() and any(d.id == int(target) for d in documents):
        return [int(target)]
    path = Path(target).resolve()
    return [d.id for d in documents if d.source == str(path) or inside(d.source, path)]
