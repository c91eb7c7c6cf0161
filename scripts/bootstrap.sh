#!/usr/bin/env bash
# Install what hpcab needs on a fresh Debian 12 or 13 machine (run as root), into ./.venv.
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
# command:package. bwrap (bubblewrap) is the sandbox candidates compile and run in; setpriv
# and prlimit (util-linux) start the sandboxed command as an unprivileged user with its limits.
# slurm-wlm and munge: the tests start a real Slurm cluster on this machine (tests/slurm_cluster.py;
# the daemons live in sbin, hence the longer PATH for the check). nix-bin: the tests evaluate the
# flake's toolchain matrix offline (tests/test_nix.py). chromium and chromium-driver: the HTML
# report's test loads it in headless Chromium (tests/test_report.py).
for pair in gcc:gcc g++:g++ gfortran:gfortran bwrap:bubblewrap setpriv:util-linux prlimit:util-linux \
            slurmctld:slurm-wlm slurmd:slurm-wlm munged:munge nix-instantiate:nix-bin \
            chromium:chromium chromedriver:chromium-driver; do
    PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Exact versions in requirements/constraints.txt; the ranges live in pyproject.toml.
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements/constraints.txt -e '.[dev,frameworks,launch,analysis]'
