"""Does the trusted process put PyTorch on one thread, without importing it where nothing uses it?"""

import builtins
import sys
import types

import pytest

from autograder.grade.threads import single_threaded


class FakeTorch(types.ModuleType):
    """PyTorch's thread settings, recorded; inter-op threads can be set once per process, as in PyTorch."""

    def __init__(self):
        super().__init__("torch")
        self.threads: list[int] = []
        self.interop: list[int] = []

    def set_num_threads(self, n: int) -> None:
        self.threads.append(n)

    def set_num_interop_threads(self, n: int) -> None:
        if self.interop:
            raise RuntimeError("Error: cannot set number of interop threads after parallel work has started")
        self.interop.append(n)


@pytest.fixture
def torch(monkeypatch) -> FakeTorch:
    fake = FakeTorch()
    monkeypatch.setitem(sys.modules, "torch", fake)
    return fake


def test_pytorch_in_use_gets_one_thread_each_time(torch):
    """With PyTorch imported, are its intra- and inter-op threads set to 1, and is a second call (where PyTorch
    refuses to set inter-op threads again) quiet?"""
    single_threaded()
    single_threaded()
    assert torch.threads == [1, 1] and torch.interop == [1]


def test_pytorch_is_not_imported_for_this(monkeypatch):
    """Where no code has imported PyTorch, does single_threaded leave it unimported, and import it when asked?"""
    monkeypatch.delitem(sys.modules, "torch")
    real_import = builtins.__import__
    imported: list[str] = []

    def watch(name, *args, **kwargs):
        if name == "torch":
            imported.append(name)
            sys.modules["torch"] = FakeTorch()
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", watch)
    single_threaded()
    assert imported == []
    single_threaded(import_torch=True)
    assert imported == ["torch"] and sys.modules["torch"].threads == [1]
