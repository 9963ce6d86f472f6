"""Gradescope, Assignment > Review Grades > Export Submissions.

A folder (assignment_<id>_export/) with one folder per active submission,
submission_<id>/, holding the files as submitted, and submission_metadata.yml, written
by Ruby, mapping each folder to
    :submitters: [{:name:, :sid:, :email:}, ...]   (several for a group submission)
    :created_at: 2023-12-02 02:52:07.938335000 Z
    :score:, :status:, :results: {...}, :history: [{:id:, :created_at:, ...}, ...]
Older submissions are listed in :history (each with its :id: and :created_at:), their
files are not exported; the folder exported is the active submission, which need not be
the newest (a student may activate an older one: the export in sjinang/temp0 has a
history entry made after its active submission). Source: that export
(submission_metadata.yml) and the parsers of it in public course tools (otter-grader's
GradescopeParser); Gradescope documents the export in its help centre only briefly.

The time is :created_at:; the late flag is :late: where the metadata has one (the export
above has none, and the export holds no due date): otherwise lateness is unknown. Each
submission of a student, active, exported earlier or in :history only, is kept in
Submission.uploads with its id and time.

The metadata is read with PyYAML's safe loader, Ruby's tags as plain values, and no
aliases (Gradescope's exports hold none, and an alias is how a few hundred bytes expand
to gigabytes: "billion laughs"), from a file of at most MAX_METADATA_BYTES.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .model import Draft, IntakeError, Upload
from .names import printable
from .reader import Reader

SOURCE = "gradescope"  # its name in the intake's registry (__init__.py), summary.csv and the grade files


METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 32 * 2**20  # ~1 KiB a submission with its history: a class of thousands is far below


def read(reader: Reader, root: Path) -> list[Draft]:
    """One draft per submitter (or group), latest submission only, named from the metadata, with its time and history."""
    meta_path = root / METADATA
    metadata = _metadata(reader, meta_path)
    older = _replaced(metadata)
    found: dict[str, Path] = {}
    for entry in reader.entries(root):
        if entry == meta_path:
            continue
        if entry.is_dir():
            found[entry.name] = entry
        else:
            reader.skip(entry, "not a submission folder of the Gradescope export")
    groups: dict[tuple, list] = {}
    for folder_name, folder in found.items():
        if folder_name in older and older[folder_name] in found:
            continue  # listed with the submission that replaced it
        record = metadata.get(folder_name)
        people = _submitters(record)
        identity = tuple(sorted(sid or email or name for name, sid, email in people)) or (folder_name,)
        groups.setdefault(identity, []).append((_when(record), folder_name, folder, people))
    return [_draft(reader, submissions, older, found, metadata) for submissions in groups.values()]


def load_metadata(path: Path, label: str) -> object:
    """submission_metadata.yml as plain data; IntakeError naming it (as label) if too big or holding aliases."""
    size = path.stat().st_size
    if size > MAX_METADATA_BYTES:
        raise IntakeError(
            f"{label} is {size:,} bytes, more than the {MAX_METADATA_BYTES:,} bytes Gradescope writes "
            f"for a class; export the submissions again"
        )
    try:
        return yaml.load(path.read_text(encoding="utf-8", errors="replace"), Loader=_MetadataLoader)
    except _AliasFound as alias:
        raise IntakeError(
            f"{label} uses a YAML alias (*{alias.anchor}, line {alias.line}), which Gradescope never writes and "
            f"which can expand without bound ('billion laughs'); export the submissions again from Gradescope"
        ) from None


def _metadata(reader: Reader, meta_path: Path) -> dict:
    try:
        loaded = load_metadata(meta_path, reader.label(meta_path))
    except (yaml.YAMLError, OSError) as error:
        reader.skip(
            meta_path,
            f"Gradescope's metadata, unreadable ({str(error).splitlines()[0]}): names come from the folder names",
        )
        return {}
    reader.skip(meta_path, "Gradescope's metadata: read for the names, ids, emails, times and groups")
    return loaded if isinstance(loaded, dict) else {}


def _replaced(metadata: dict) -> dict[str, str]:
    """Folder of an older submission -> folder of the active one that replaced it."""
    older = {}
    for folder, record in metadata.items():
        history = _field(record, "history")
        for past in history if isinstance(history, list) else []:
            if isinstance(past, dict) and _field(past, "id") is not None:
                older[f"submission_{_field(past, 'id')}"] = str(folder)
    return older


def _submitters(record) -> list[tuple[str, str, str]]:
    submitters = _field(record, "submitters") if isinstance(record, dict) else None
    return [
        (_text(_field(s, "name")), _text(_field(s, "sid")), _text(_field(s, "email")))
        for s in (submitters if isinstance(submitters, list) else [])
        if isinstance(s, dict)
    ]


def _when(record) -> str:
    """A submission's :created_at: in ISO 8601 ("" where it has none)."""
    created = _field(record, "created_at")  # None where record is no dict
    return created.isoformat() if hasattr(created, "isoformat") else _text(created)


def _id(folder_name: str) -> str:
    """Gradescope's submission id, from its folder's name (submission_<id>)."""
    return printable(folder_name.removeprefix("submission_"))


def _late(record) -> bool | None:
    late = _field(record, "late")
    return late if isinstance(late, bool) else None


def _draft(reader: Reader, submissions: list, older: dict[str, str], found: dict[str, Path], metadata: dict) -> Draft:
    submissions.sort(key=lambda s: (s[0], s[1]))
    when, folder_name, folder, people = submissions[-1]
    earlier = [f for _, _, f, _ in submissions[:-1]]
    active = {s[1] for s in submissions}
    earlier += [found[name] for name, replacer in older.items() if name in found and replacer in active]
    names = [name or sid or email for name, sid, email in people]
    record = metadata.get(folder_name)
    uploads = [Upload(reader.label(folder), True, _id(folder_name), _late(record), when)]
    uploads += [
        Upload(
            reader.label(path), False, _id(path.name), _late(metadata.get(path.name)), _when(metadata.get(path.name))
        )
        for path in sorted(earlier)
    ]
    exported = {path.name for path in earlier} | {folder_name}
    for name in sorted(active):
        history = _field(metadata.get(name), "history")
        for past in history if isinstance(history, list) else []:
            past_id = _text(_field(past, "id"))
            if past_id and f"submission_{past_id}" not in exported:
                entry = printable(f"submission_{past_id}") + " (in the metadata's history; its files are not exported)"
                uploads.append(Upload(entry, False, printable(past_id), _late(past), _when(past)))
    return Draft(
        name=", ".join(names) if names else folder_name,
        student_id=people[0][1] if people else "",
        email=people[0][2] if people else "",
        members=tuple(people) if len(people) > 1 else (),
        late=_late(record),
        submitted_at=when,
        origin=folder_name,
        folder=folder,
        earlier=sorted(earlier),
        uploads=uploads,
    )


def _field(record, name: str):
    """A field of Gradescope's metadata, whose keys are Ruby symbols (':name') or plain."""
    if not isinstance(record, dict):
        return None
    return record.get(f":{name}", record.get(name))


def _text(value) -> str:
    return "" if value is None else str(value)


class _MetadataLoader(yaml.SafeLoader):
    """SafeLoader that reads Ruby's tags (!ruby/object:BigDecimal ...) as plain values and refuses aliases."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _AliasFound(event.anchor, event.start_mark.line + 1)
        return super().compose_node(parent, index)


class _AliasFound(Exception):
    """An alias in the metadata: refused before anything is expanded."""

    def __init__(self, anchor: str, line: int):
        super().__init__(anchor, line)
        self.anchor, self.line = anchor, line


def _plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node):
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


_MetadataLoader.add_multi_constructor("!", _plain)
_MetadataLoader.add_multi_constructor("tag:ruby.yaml.org", _plain)


def votes(root: Path, entries: list[Path]) -> int:
    """How many of an export folder's entries follow this LMS's naming (the export's metadata claims the whole folder)."""
    return len(entries) + 1 if (root / METADATA).is_file() else 0
