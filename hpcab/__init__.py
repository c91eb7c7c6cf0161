"""hpcab: a benchmark for optimizers of numerical code."""

__version__ = "0.1.0"
