"""nbgrader autograde's step that puts each locked cell of the master back into a submission, and names only
the cells a student changed.

nbgrader's own step (OverwriteCells) restores every locked cell from gradebook.db, where
``generate_assignment`` stored it as the master holds it: a grade cell with its hidden
tests, and the checksum of that. The release's grade cell has its hidden tests cleared,
so nbgrader finds every grade cell of every honest notebook changed and warns
"Attribute 'checksum' for cell ... has changed!" (jupyter/nbgrader#1961): 12 warnings
per student of mha that read as tampering. This step first puts the stored source back
where the submitted cell is exactly the released one (the stored source as nbgrader's
ClearHiddenTests clears it), then hands the cell to nbgrader's step, which finds it
unchanged; a locked cell the student did change is still named, and restored, by it.

nbgrader_config.py puts it in place of OverwriteCells in ``Autograde.sanitize_preprocessors``.
"""

from __future__ import annotations

import copy

from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells


class RestoreHiddenTests(OverwriteCells):
    """nbgrader's OverwriteCells, which takes a grade cell as released (its hidden tests cleared) for unchanged."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None:
            try:
                stored = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                stored = None  # nbgrader's step names it
            if stored is not None and stored.locked and cell.source == self.released(cell, stored.source):
                cell.source = stored.source
        return super().preprocess_cell(cell, resources, cell_index)

    def released(self, cell, source: str) -> str | None:
        """A locked cell's stored source as the release holds it: its hidden tests cleared, as nbgrader clears them."""
        made = copy.deepcopy(cell)
        made.source = source
        try:
            ClearHiddenTests(parent=self).preprocess_cell(made, {}, 0)
        except RuntimeError:  # a hidden region in a cell the student made no grade cell: nbgrader's step decides
            return None
        return made.source
