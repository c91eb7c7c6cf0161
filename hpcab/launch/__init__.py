"""Campaigns: `python -m hpcab.launch --arm arm.yaml` runs an arm's judges, agent workers and
inference servers as submitit jobs, on this machine (local) or on Slurm. See docs/launch.md."""
