"""Experiments: judge databases and run folders into one observations table, and its
statistics (docs/plotting.md).

    python -m hpcab.experiments --runs 'runs/corpus-*' --experiment corpus --out data/observations.parquet

    from hpcab.experiments.extract import extract
    from hpcab.experiments.stats import summarize

(`hpcab.experiments.extract` is the module; the function is `hpcab.experiments.extract.extract`.
It is not re-exported here, where it would hide the module of the same name.)
"""

from hpcab.experiments.extract import COLUMNS, SCHEMA, Extraction, empty_table, read_observations, write_observations
from hpcab.experiments.stats import fast_p, geomean_ci, summarize

__all__ = ["COLUMNS", "SCHEMA", "Extraction", "empty_table", "fast_p", "geomean_ci", "read_observations",
           "summarize", "write_observations"]
