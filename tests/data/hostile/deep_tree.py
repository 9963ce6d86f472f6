# Makes a chain of folders 1100 deep (deeper than Python's recursion limit, which every
# recursive walk or removal hits) in /tmp and in its working folder, then does its
# honest work: the chains must be removed after it, and the next submission graded as
# usual.
import os


def _chain(top, depth=1100):
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


for _top in ("/tmp", os.getcwd()):
    try:
        _folder = os.path.join(_top, f"deep-tree-{os.getpid()}")
        os.mkdir(_folder)
        _chain(_folder)
    except OSError:
        pass
