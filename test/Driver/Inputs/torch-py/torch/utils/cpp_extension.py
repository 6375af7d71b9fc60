import os

_ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "torch-fake")


def include_paths(cuda=False):
    return [os.path.normpath(_ROOT), os.path.normpath(os.path.join(_ROOT, "api"))]
