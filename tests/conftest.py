import shutil
from pathlib import Path

import pytest

from hpcab.corpus import load_corpus
from hpcab.run import Policy
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = Path(__file__).resolve().parent / "candidates"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session", autouse=True)
def private_build_cache(tmp_path_factory):
    """Every test session compiles into its own cache, so cache behaviour is observed fresh."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HPCAB_CACHE", str(tmp_path_factory.mktemp("hpcab-cache")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def corpus():
    return load_corpus()


@pytest.fixture(scope="session")
def toolchains():
    return load_toolchains()


@pytest.fixture
def fast_policy():
    """Few repetitions: the tests check behaviour, not timing quality."""
    return Policy(min_repetitions=3, target_seconds=0.05, max_seconds=5, timeout_seconds=30)


@pytest.fixture
def kernel_copy(tmp_path, corpus):
    """Copy one kernel into a private corpus, to break its files on purpose."""
    def make(name: str) -> Path:
        k = corpus.get(name)
        dest = tmp_path / "corpus" / Path(k.id)
        shutil.copytree(k.directory, dest, ignore=shutil.ignore_patterns("__pycache__"))
        return dest
    return make
