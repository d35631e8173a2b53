"""A folder is the truth: what an index run withdraws beyond the files it re-read, which files a
folder's links may bring in, and which documents `remove` names.

A file deleted from a folder since the last run is withdrawn when the folder is indexed again; a
renamed file is one document under its new path (its chunks' vectors are found again by text
hash, so nothing is embedded twice, and its facts go with its chunks: ingest/carry.py). A file that
could not be read this time keeps what an earlier run indexed from it. Sources are stored as
absolute, resolved paths (`./docs` and `docs/` are one folder), so "inside the folder" is a prefix
test on them — also for what a link brings in from outside the folder (`--follow-links`), which is
stored under its path in the folder, not the path it resolves to: deleting the link withdraws it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hopgraph.errors import InputError
from hopgraph.records.documents import Skip, StoredDocument


def folders_named(paths: Iterable[str | Path]) -> list[Path]:
    """The resolved folders among the paths an index run was given."""
    return [Path(p).resolve() for p in paths if Path(p).is_dir()]


def inside(source: str, folder: Path) -> bool:
    return source.startswith(str(folder) + os.sep)


def sources_gone(stored: Iterable[str], folders: Sequence[Path], read: Collection[str],
                 kept: Collection[str] = ()) -> set[str]:
    """Stored sources inside the named folders that this run neither read nor skipped (`kept`: the
    sources of files skipped this time, and of folders behind links not followed): files deleted or
    renamed since the last run, or links to them."""
    kept_folders = [Path(k) for k in kept]
    return {s for s in stored if s not in read and s not in kept and any(inside(s, f) for f in folders)
            and not any(inside(s, k) for k in kept_folders)}


@dataclass
class FolderFiles:
    """A folder's files, each with the source it is stored under, and the links it did not follow
    (with the sources what they bring in is stored under when followed: an earlier run's stays)."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)


def folder_files(folder: Path, wanted: Callable[[Path], bool], follow_links: bool = False) -> FolderFiles:
    """The wanted files under `folder`, sorted. A link to a file or folder outside it is followed only
    on request (`follow_links`), so a folder never brings in what its owner did not put there; what
    it brings in is stored under its path in the folder. A linked folder is walked once, and never
    again from inside itself (a link to a parent would loop)."""
    root, found, walked = folder.resolve(), FolderFiles(), set()
    for top, dirs, names in os.walk(folder, followlinks=follow_links):
        here = Path(top).resolve()
        if here in walked:  # reached again through a link
            dirs.clear()
            continue
        walked.add(here)
        dirs.sort()
        for path in (Path(top, name) for name in dirs if not follow_links):
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                _not_followed(path, folder, found)
        for path in (Path(top, name) for name in sorted(names)):
            if not wanted(path):
                continue
            if not path.is_file():
                if path.is_symlink():  # a dangling link: said, not silently passed over
                    found.skipped.append(Skip(str(path), f"a link to {os.readlink(path)}, which does not exist"))
                continue
            if not decodable(path):
                found.skipped.append(Skip(printable(path), UNDECODABLE_NAME))
                continue
            real = path.resolve() if path.is_symlink() else here / path.name
            if real.is_relative_to(root):  # a link inside the folder is the file it names
                found.files.append((path, str(real)))
            elif follow_links:
                found.files.append((path, _in_folder(path, folder)))
            else:
                _not_followed(path, folder, found)
    found.files.sort()
    return found


UNDECODABLE_NAME = "its name is not valid UTF-8 (rename the file to index it)"


def decodable(path: Path) -> bool:
    """Whether the path's name is text: the OS hands undecodable bytes to Python as lone surrogates
    (surrogateescape), which no store can keep."""
    return not any("\ud800" <= ch <= "\udfff" for ch in str(path))


def printable(path: Path) -> str:
    """The path with its undecodable bytes written as `\\xe9`, for a message."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _in_folder(path: Path, folder: Path) -> str:
    """The path in the folder, the folder resolved and no link below it followed."""
    return str(folder.resolve() / path.relative_to(folder))


def _not_followed(link: Path, folder: Path, found: FolderFiles) -> None:
    found.skipped.append(Skip(str(link), f"a link to {link.resolve()}, outside the folder (--follow-links "
                                         "indexes it)"))
    found.kept.add(_in_folder(link, folder))


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
    forms = spellings(target)
    return [d.id for d in documents if any(d.source == form or inside(d.source, Path(form)) for form in forms)]


def spellings(target: str) -> set[str]:
    """The sources a path typed by a user may be stored under: resolved, or resolved up to one of its
    folders and as written below it (what a folder's link brought in: `docs/link.md`)."""
    path = Path(os.path.abspath(target))
    return {str(path.resolve())} | {str(folder.resolve() / path.relative_to(folder)) for folder in path.parents}
