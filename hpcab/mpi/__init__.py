"""The distributed track: a candidate run on R MPI ranks (docs/mpi.md).

distribution  the manifest's `mpi:` block, the declared distributions, who owns what
abi           the distributed prototype (`hpcab show KERNEL --abi c --mpi`)
harness       the rank's call loop, C built with the MPI compiler wrapper
rank          `python -m hpcab.mpi.rank`: the untrusted side, one process per rank
ranks         the trusted side: starts the ranks, scatters, times, gathers (for hpcab.timing.trusted.driver)
"""
