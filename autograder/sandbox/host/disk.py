"""What a student's files hold, counted without recursion and never following a link.

Each entry costs its blocks, and at least a page: a million empty files or folders take
inodes and memory (on a tmpfs) too, and costing them so keeps the count itself cheap,
since counting stops as soon as the budget is passed. A folder whose path is longer
than the system allows (a chain of folders with long names, made to hide what lies
below it from every path) counts as the whole budget.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

PAGE = 4096


def cost(info: os.stat_result) -> int:
    return max(info.st_blocks * 512, PAGE)


def held_under(path: Path | str, stop_at: int) -> int:
    """Bytes held by path and everything under it, counting no further than stop_at."""
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    total = cost(info)
    pending = [str(path)] if stat.S_ISDIR(info.st_mode) else []
    while pending and total < stop_at:
        folder = pending.pop()
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError as error:
            if error.errno == errno.ENAMETOOLONG:
                return max(total, stop_at)
            continue  # removed meanwhile
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as error:
                if error.errno == errno.ENAMETOOLONG:
                    return max(total, stop_at)
                continue
            total += cost(info)
            if stat.S_ISDIR(info.st_mode):
                pending.append(entry.path)
            if total >= stop_at:
                break
    return total
