"""The Nix side of the images (flake.nix, nix/*.nix; docs/images.md), checked without nixpkgs.

Nothing that needs nixpkgs can be evaluated offline, so these tests check what can be:

- every Nix file parses;
- nix/matrix.nix reads toolchains/*.toml like Python does: the matrix it computes equals
  load_toolchains().matrix(), on the project's files and on a changed copy of them, and a
  name defined twice is an error naming the name and both files;
- the flake's `lib.matrix` evaluates offline (its nixpkgs input is never fetched);
- the flake's images, with a stand-in for nixpkgs (fake packages with versions), have the
  configuration the matrix asks for (Entrypoint per role, HPCAB_ROOT, labels, a fixed
  creation time), and a compiler whose nixpkgs version differs from the declared one stops
  the evaluation with an error naming the toolchains file and field;
- the CUDA licence predicate, the epoch -> ISO 8601 conversion, and the SIF program's shell
  script (run with stand-in nix, apptainer and hpcab programs);
- flake.lock pins nixpkgs as flake.nix asks, and the Apptainer definition files agree with
  the matrix.

Nix runs with a private HOME and caches, no substituters, and a store under the test's
temporary folder (a chroot store for flakes, the dummy store for plain evaluation), so it
neither reaches the network nor writes to /nix. Where nix-instantiate is not installed,
every test that runs Nix is skipped (CI installs nix-bin); the definition files' test runs.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from hpcab.errors import InputError
from hpcab.toolchain import load_toolchains

ROOT = Path(__file__).resolve().parent.parent
NIX_INSTANTIATE = shutil.which("nix-instantiate")
NIX = shutil.which("nix")
FLAKE_FILES = ("flake.nix", "flake.lock", "nix", "toolchains", "pyproject.toml", "README.md")
SYSTEM = "x86_64-linux"


# ---------------------------------------------------------------- running Nix

@pytest.fixture(scope="module")
def nix_env(tmp_path_factory):
    """An environment in which Nix writes only under a temporary folder and never fetches.
    Every test that runs Nix asks for it: they are skipped where Nix is not installed."""
    if NIX_INSTANTIATE is None:
        pytest.skip("nix-instantiate is not installed (CI installs nix-bin): the Nix files are not checked here")
    home = tmp_path_factory.mktemp("nix-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIX_", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
               NIX_CONFIG="substituters =\nextra-experimental-features = nix-command flakes\n")
    return env


def run(argv, env, **kw):
    return subprocess.run([str(a) for a in argv], check=False, capture_output=True, text=True, env=env,
                          timeout=120, **kw)


def instantiate(env, *args):
    """nix-instantiate on the dummy store: evaluation only, nothing copied anywhere."""
    return run([NIX_INSTANTIATE, "--store", "dummy://", *args], env)


def eval_json(env, expr: str, *args):
    proc = instantiate(env, "--eval", "--strict", "--json", "-E", expr, *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def nix_path(p: Path) -> str:
    """A Nix expression for an absolute path (any characters a temporary folder may hold)."""
    return "(/. + " + json.dumps(str(p)) + ")"


def nix_matrix(env, toolchains_dir: Path):
    return instantiate(env, "--eval", "--strict", "--json", ROOT / "nix" / "matrix.nix",
                       "--arg", "toolchainsDir", nix_path(toolchains_dir))


def copy_toolchains(tmp_path: Path) -> Path:
    dest = tmp_path / "toolchains"
    shutil.copytree(ROOT / "toolchains", dest)
    return dest


# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("name", ["flake.nix"] + sorted(f"nix/{p.name}" for p in (ROOT / "nix").glob("*.nix")))
def test_nix_file_parses(nix_env, name):
    proc = instantiate(nix_env, "--parse", ROOT / name)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- the matrix

def test_nix_matrix_equals_python_matrix(nix_env):
    proc = nix_matrix(nix_env, ROOT / "toolchains")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == load_toolchains().matrix()


CHANGES = '''
[compilers.gcc13]
language = "c"
family = "gnu"
command = "gcc-13"
version = "13"
version_command = ["gcc-13", "-dumpfullversion"]
nix = "gcc13"
source_suffix = ".c"
base_flags = ["-fPIC"]
shared_flags = ["-shared"]
link_flags = []

[flagsets.tiny]
description = "A flag set only the changed copy has."
gnu = ["-Os"]
llvm = ["-Oz"]

[runtimes.hwloc]
version = "2"
nix = "hwloc"

[images.agent-nvidia]
role = "agent"
hardware = "nvidia"
'''


def test_nix_matrix_follows_changed_toolchains(nix_env, tmp_path):
    """A changed copy of toolchains/ (a new file, a changed version, a family taken away):
    Nix reads what the files say, not what the project's files happen to say."""
    d = copy_toolchains(tmp_path)
    (d / "zz-extra.toml").write_text(CHANGES)
    llvm = d / "llvm.toml"
    llvm.write_text(llvm.read_text().replace('version = "18"', 'version = "19"').replace('"clang_18"', '"clang_19"'))
    images = d / "images.toml"
    images.write_text(images.read_text().replace('families = ["gnu", "llvm", "python", "pythran", "amd"]',
                                                 'families = ["pythran", "amd", "gnu", "python"]'))
    python = load_toolchains(d).matrix()
    proc = nix_matrix(nix_env, d)
    assert proc.returncode == 0, proc.stderr
    nix = json.loads(proc.stdout)
    assert nix == python
    # The changes are there (so the equality is not that of two unchanged readings).
    assert nix != load_toolchains().matrix()
    assert nix["compilers"]["clang"]["version"] == "19" and "gcc13" in nix["compilers"]
    assert nix["flagsets"]["tiny"] == {"gnu": ["-Os"], "llvm": ["-Oz"]}
    assert nix["hardware"]["amd"]["families"] == ["amd", "gnu", "python", "pythran"]
    assert "clang" not in nix["images"]["judge-amd"]["compilers"]
    assert nix["images"]["agent-nvidia"]["runtimes"] == ["hwloc", "openmpi"]
    assert nix["images"]["agent-nvidia"]["versions"]["gcc13"] == "13"
    assert "clang_19" in nix["images"]["agent-nvidia"]["nix"] and "hwloc" in nix["images"]["agent-cpu"]["nix"]


GCC_AGAIN = '''
[compilers.gcc]
language = "c"
family = "gnu"
command = "gcc"
version = "13"
version_command = ["gcc", "-dumpfullversion"]
nix = "gcc13"
source_suffix = ".c"
base_flags = []
shared_flags = ["-shared"]
link_flags = []
'''


@pytest.mark.parametrize("key, text", [
    ("compilers.gcc", GCC_AGAIN),
    ("flagsets.opt", '[flagsets.opt]\ndescription = "The default, once more."\ngnu = []\nllvm = []\n'),
    ("images.judge-cpu", '[images.judge-cpu]\nrole = "agent"\nhardware = "cpu"\n'),
    ("runtimes.openmpi", '[runtimes.openmpi]\nversion = "4"\nnix = "openmpi4"\n'),
    ("sif", '[sif]\napptainer = "1.6"\nnix = "apptainer"\nsource_date_epoch = 1\n'),
], ids=["compiler", "flagset", "image", "runtime", "sif"])
def test_duplicate_definition_is_an_error(nix_env, tmp_path, key, text):
    d = copy_toolchains(tmp_path)
    (d / "zz-again.toml").write_text(text)
    with pytest.raises(InputError, match=f"{re.escape(key)}: already defined in"):
        load_toolchains(d)
    proc = nix_matrix(nix_env, d)
    assert proc.returncode != 0
    first = {"compilers": "gnu.toml", "flagsets": "flagsets.toml"}.get(key.split(".")[0], "images.toml")
    assert f"toolchains/zz-again.toml: {key}: already defined in toolchains/{first}" in proc.stderr, proc.stderr


def test_image_on_unknown_hardware_is_an_error(nix_env, tmp_path):
    d = copy_toolchains(tmp_path)
    images = d / "images.toml"
    text = images.read_text()
    table = '[hardware.amd]\nfamilies = ["gnu", "llvm", "python", "pythran", "amd"]\n'
    assert table in text
    images.write_text(text.replace(table, ""))
    message = "images.judge-amd.hardware: no [hardware.amd] table says which compiler families it carries"
    with pytest.raises(InputError, match=re.escape(message)):
        load_toolchains(d)
    proc = nix_matrix(nix_env, d)
    assert proc.returncode != 0
    assert f"toolchains/images.toml: {message}" in proc.stderr, proc.stderr


# ---------------------------------------------------------------- pure helpers

@pytest.mark.parametrize("epoch", [0, 59, 315532800, 951782400, 1709251199, 4102444800, 1778430510])
def test_epoch_to_iso(nix_env, epoch):
    expected = datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert eval_json(nix_env, f"import {nix_path(ROOT / 'nix' / 'time.nix')} {epoch}") == expected


@pytest.mark.parametrize("licence, allowed", [
    ('{ shortName = "CUDA EULA"; free = false; }', True),
    ('[ { shortName = "CUDA EULA"; free = false; } { spdxId = "MIT"; free = true; } ]', True),
    ('{ shortName = "unfree"; free = false; }', False),
    ('[ { shortName = "CUDA EULA"; free = false; } { shortName = "cuDNN EULA"; free = false; } ]', False),
    ("[ ]", False),
])
def test_only_cuda_licences_are_allowed(nix_env, licence, allowed):
    expr = f"import {nix_path(ROOT / 'nix' / 'unfree.nix')} {{ meta.license = {licence}; }}"
    assert eval_json(nix_env, expr) is allowed


# ---------------------------------------------------------------- flake.lock

def test_flake_lock_pins_nixpkgs(nix_env):
    lock = json.loads((ROOT / "flake.lock").read_text())
    assert lock["version"] == 7 and lock["root"] == "root"
    assert lock["nodes"]["root"]["inputs"] == {"nixpkgs": "nixpkgs"}
    node = lock["nodes"]["nixpkgs"]
    locked, original = node["locked"], node["original"]
    assert locked["type"] == "github" and (locked["owner"], locked["repo"]) == ("NixOS", "nixpkgs")
    assert re.fullmatch(r"[0-9a-f]{40}", locked["rev"])
    assert re.fullmatch(r"sha256-[A-Za-z0-9+/]{43}=", locked["narHash"])
    assert isinstance(locked["lastModified"], int) and locked["lastModified"] > 0
    assert (original["owner"], original["repo"]) == (locked["owner"], locked["repo"])
    url = eval_json(nix_env, f"(import {nix_path(ROOT / 'flake.nix')}).inputs.nixpkgs.url")
    assert url == f"{original['type']}:{original['owner']}/{original['repo']}/{original['ref']}"


# ---------------------------------------------------------------- the flake

needs_nix = pytest.mark.skipif(NIX is None, reason="the nix command is not installed")


@pytest.fixture(scope="module")
def flake(tmp_path_factory):
    """A copy of the flake's files (a flake in a git checkout sees only committed files)."""
    dest = tmp_path_factory.mktemp("flake") / "hpcab"
    dest.mkdir()
    for name in FLAKE_FILES:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / name)
    return dest


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return tmp_path_factory.mktemp("nix-store-root")


def nix_eval(env, store, ref, *args):
    return run([NIX, "--extra-experimental-features", "nix-command flakes", "eval", "--offline",
                "--no-eval-cache", "--option", "substituters", "", "--store", store, ref, *args], env)


@needs_nix
def test_flake_lib_matrix_evaluates_offline(nix_env, flake, store):
    """`lib.matrix` needs no nixpkgs: Nix 2.8 and later fetch flake inputs only when used."""
    proc = nix_eval(nix_env, store, f"path:{flake}#lib.matrix", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == load_toolchains().matrix()


# A stand-in for nixpkgs: the few lib functions the flake uses, and fake packages with
# versions (overrides.json changes a version, or with null removes an attribute). The
# images come back as the arguments given to dockerTools.streamLayeredImage.
FAKE_LIB = r'''
rec {
  splitString = sep: s: builtins.filter builtins.isString (builtins.split (builtins.replaceStrings [ "." ] [ "\\." ] sep) s);
  attrByPath = path: default: set:
    if path == [ ] then set
    else let h = builtins.head path; in
      if builtins.isAttrs set && set ? ${h} then attrByPath (builtins.tail path) default set.${h} else default;
  getVersion = x: x.version or (builtins.parseDrvName x.name).version;
  hasPrefix = p: s: builtins.substring 0 (builtins.stringLength p) s == p;
  hasSuffix = x: s: let n = builtins.stringLength s; m = builtins.stringLength x; in
    n >= m && builtins.substring (n - m) m s == x;
  concatMap = builtins.concatMap;
  unique = builtins.foldl' (acc: x: if builtins.elem x acc then acc else acc ++ [ x ]) [ ];
  genAttrs = names: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) names);
  getExe' = p: n: "${p}/bin/${n}";
  makeBinPath = ps: builtins.concatStringsSep ":" (map (p: "${p}/bin") ps);
  mapAttrs' = f: set: builtins.listToAttrs (map (n: f n set.${n}) (builtins.attrNames set));
  nameValuePair = name: value: { inherit name value; };
  optionals = c: l: if c then l else [ ];
  optional = c: x: if c then [ x ] else [ ];
  intersectLists = a: b: builtins.filter (x: builtins.elem x b) a;
  getDev = p: p.dev or p;
  getLib = p: p.lib or p;
  getBin = p: p.bin or p;
  concatMapStringsSep = sep: f: l: builtins.concatStringsSep sep (map f l);
  init = l: builtins.genList (i: builtins.elemAt l i) (builtins.length l - 1);
  licenses.asl20 = { spdxId = "Apache-2.0"; free = true; };
  fileset = {
    toSource = { root, fileset }: { type = "derivation"; name = "source"; outPath = "/nix/store/fake-source"; };
    unions = l: l;
    fileFilter = f: d: d;
  };
}
'''

FAKE_PKGS = r'''
{ system ? "x86_64-linux", config ? { }, ... }:
let
  lib = import ./lib.nix;
  overrides = builtins.fromJSON (builtins.readFile ./overrides.json);
  drv = attr: default:
    let version = overrides.${attr} or default; in {
    type = "derivation";
    name = "${attr}-${version}";
    inherit version;
    outPath = "/nix/store/${builtins.hashString "sha1" attr}-${attr}";
    outputs = [ "out" ];
    meta.license = { free = true; };
  };
  unfree = d: if config ? allowUnfreePredicate && config.allowUnfreePredicate d then d
    else throw "fake nixpkgs: ${d.name} is unfree and not allowed";
  cuda = d: unfree (d // { meta.license = { shortName = "CUDA EULA"; free = false; }; });
  python311 = drv "python311" "3.11.14" // {
    pkgs = py;
    withPackages = f: drv "python311-env" "3.11.14" // { packages = f py; };
  };
  py = builtins.mapAttrs (n: v: drv "python311Packages.${n}" v // { pythonModule = python311; }) {
    numpy = "2.3.0"; scipy = "1.16.0"; cffi = "1.17.1"; pyyaml = "6.0.2"; jsonschema = "4.24.0";
    attrs = "25.3.0"; rich = "14.0.0"; numba = "0.61.2"; pythran = "0.19.0"; submitit = "1.5.3";
    setuptools = "80.0.0"; wheel = "0.45.1"; pytest = "8.4.1"; hypothesis = "6.136.0";
  } // {
    inherit lib;
    python = python311;
    buildPythonPackage = a: drv "python311Packages.${a.pname}" a.version // a.passthru // { pythonModule = python311; };
    callPackage = f: args: let fn = import f; in fn (builtins.intersectAttrs (builtins.functionArgs fn) py // args);
  };
  cudart = drv "cuda_cudart" "12.8.90" // {
    outputs = [ "out" "dev" "lib" "static" ];
    out = drv "cuda_cudart" "12.8.90";
    dev = drv "cuda_cudart-dev" "12.8.90";
    lib = drv "cuda_cudart-lib" "12.8.90";
    static = drv "cuda_cudart-static" "12.8.90";
  };
  packages = {
    inherit lib python311;
    python311Packages = py;
    gcc14 = drv "gcc14" "14.3.0";
    gfortran14 = drv "gfortran14" "14.3.0";
    clang_18 = drv "clang_18" "18.1.8";
    openmpi = drv "openmpi" "5.0.8";
    apptainer = drv "apptainer" "1.5.0";
    ruff = drv "ruff" "0.12.0";
    cudaPackages_12_8 = { cuda_nvcc = cuda (drv "cuda_nvcc" "12.8.93"); cuda_cudart = cuda cudart; };
    rocmPackages.clr = drv "clr" "6.3.3";
    runCommand = name: env: script: drv name "0";
    writeShellApplication = a: drv a.name "0" // { inherit (a) text; };
    mkShell = a: drv "shell" "0" // { inherit (a) packages shellHook; };
    dockerTools.streamLayeredImage = a: drv "stream-${a.name}" "0" // { args = a; };
  } // lib.genAttrs [ "bashInteractive" "coreutils" "findutils" "gnugrep" "gnused" "gnutar" "gzip"
                      "which" "bubblewrap" "util-linux" ] (n: drv n "1.0");
in
removeAttrs packages (builtins.filter (n: overrides.${n} == null) (builtins.attrNames overrides))
'''

FAKE_FLAKE = '{ outputs = { self }: { lib = import ./lib.nix; rev = "fakefakefakefakefakefakefakefakefakefake"; }; }\n'


def fake_nixpkgs(tmp_path: Path, overrides: dict | None = None) -> Path:
    d = tmp_path / "fake-nixpkgs"
    d.mkdir()
    (d / "flake.nix").write_text(FAKE_FLAKE)
    (d / "lib.nix").write_text(FAKE_LIB)
    (d / "default.nix").write_text(FAKE_PKGS)
    (d / "overrides.json").write_text(json.dumps(overrides or {}))
    return d


def eval_with_fake(env, store, flake, fake, attr, apply=None):
    args = ["--json", "--override-input", "nixpkgs", f"path:{fake}", "--no-write-lock-file"]
    if apply:
        args += ["--apply", apply]
    return nix_eval(env, store, f"path:{flake}#{attr}", *args)


SUMMARY = """ps: builtins.mapAttrs (n: p: {
  inherit (p.args) name tag created mtime config;
  contents = map (c: c.name) p.args.contents;
}) (removeAttrs ps [ "hpcab" "default" ])"""


@needs_nix
def test_images_follow_the_matrix(nix_env, flake, store, tmp_path):
    proc = eval_with_fake(nix_env, store, flake, fake_nixpkgs(tmp_path), f"packages.{SYSTEM}", SUMMARY)
    assert proc.returncode == 0, proc.stderr
    images = json.loads(proc.stdout)
    matrix = load_toolchains().matrix()
    assert set(images) == set(matrix["images"])
    epoch = matrix["sif"]["source_date_epoch"]
    created = datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for name, image in images.items():
        spec = matrix["images"][name]
        config = image["config"]
        assert image["name"] == f"hpcab-{name}" and image["created"] == image["mtime"] == created
        assert config["Entrypoint"][0].endswith("-python311-env/bin/hpcab")
        assert config["Entrypoint"][1:] == {"judge": ["serve"], "agent": ["agent"]}[spec["role"]]
        env = dict(e.split("=", 1) for e in config["Env"])
        assert env["HPCAB_ROOT"] == "/opt/hpcab"
        path = env["PATH"].split(":")
        assert path[0].endswith("-python311-env/bin")
        # gcc's cc and c++ come before clang's.
        assert path.index(next(p for p in path if p.endswith("-gcc14/bin"))) < \
            path.index(next(p for p in path if p.endswith("-clang_18/bin")))
        labels = config["Labels"]
        assert labels["dev.hpcab.role"] == spec["role"] and labels["dev.hpcab.hardware"] == spec["hardware"]
        assert labels["org.opencontainers.image.created"] == created
        tools = {k.removeprefix("dev.hpcab.toolchain."): v for k, v in labels.items()
                 if k.startswith("dev.hpcab.toolchain.")}
        assert set(tools) == set(spec["versions"])
        for tool, declared in spec["versions"].items():
            assert tools[tool] == declared or tools[tool].startswith(declared + "."), (name, tool)
        assert "hpcab-root-0" in image["contents"]
        has_cuda = any("cuda_nvcc" in c for c in image["contents"])
        assert has_cuda == (spec["hardware"] == "nvidia"), name
        assert ("CPATH" in env) == has_cuda
        assert any(c.startswith("clr-") for c in image["contents"]) == (spec["hardware"] == "amd"), name


@needs_nix
def test_package_dev_shell_and_sif_app_evaluate(nix_env, flake, store, tmp_path):
    fake = fake_nixpkgs(tmp_path)
    proc = eval_with_fake(nix_env, store, flake, fake, f"devShells.{SYSTEM}.default",
                          "s: { packages = map (p: p.name) s.packages; inherit (s) shellHook; }")
    assert proc.returncode == 0, proc.stderr
    shell = json.loads(proc.stdout)
    assert "gcc14-14.3.0" in shell["packages"] and "openmpi-5.0.8" in shell["packages"]
    assert not any("cuda" in p for p in shell["packages"])
    assert "HPCAB_ROOT=" in shell["shellHook"]
    proc = eval_with_fake(nix_env, store, flake, fake, f"packages.{SYSTEM}.hpcab",
                          "p: { inherit (p) name; deps = map (d: d.name) p.pythonDependencies; }")
    assert proc.returncode == 0, proc.stderr
    package = json.loads(proc.stdout)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert package["name"] == f"python311Packages.hpcab-{version}"
    assert {"numpy", "scipy", "numba", "pythran", "submitit", "jsonschema"} <= \
        {d.split(".", 1)[1].rsplit("-", 1)[0] for d in package["deps"]}
    proc = eval_with_fake(nix_env, store, flake, fake, f"apps.{SYSTEM}.sif")
    assert proc.returncode == 0, proc.stderr
    app = json.loads(proc.stdout)
    assert app["type"] == "app" and app["program"].endswith("-hpcab-sif/bin/hpcab-sif")


@needs_nix
@pytest.mark.parametrize("overrides, image, message", [
    ({"gcc14": "13.2.0"}, "judge-cpu",
     'toolchains/gnu.toml: compilers.gcc.version is "14", but nixpkgs\' gcc14 (compilers.gcc.nix) is version 13.2.0'),
    ({"python311Packages.pythran": "0.18.1"}, "agent-cpu",
     'toolchains/python.toml: compilers.pythran.version is "0.19", but nixpkgs\' python311Packages.pythran'),
    # The runtime's pin or the MPI compiler wrappers' (toolchains/mpi.toml): both are nixpkgs' openmpi.
    ({"openmpi": "4.1.6"}, "judge-amd", 'version is "5", but nixpkgs\' openmpi ('),
    ({"cudaPackages_12_8": None}, "judge-nvidia",
     ('toolchains/gpu.toml: compilers.nvcc.nix: nixpkgs (fakefakefakefakefakefakefakefakefakefake) has no attribute '
      '"cudaPackages_12_8.cuda_nvcc"')),
], ids=["gcc", "pythran", "openmpi", "missing-cuda"])
def test_nixpkgs_bump_is_caught(nix_env, flake, store, tmp_path, overrides, image, message):
    proc = eval_with_fake(nix_env, store, flake, fake_nixpkgs(tmp_path, overrides),
                          f"packages.{SYSTEM}.{image}.args.config.Labels")
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr


# ---------------------------------------------------------------- the SIF program

STUBS = {
    "nix": """#!/bin/sh
echo "nix $*" >> "$STUB_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = --out-link ]; then ln -s "$STUB_DIR/stream" "$2"; fi
  shift
done
""",
    "stream": """#!/bin/sh
printf 'fake docker archive'
""",
    "apptainer": """#!/bin/sh
echo "apptainer $*" >> "$STUB_LOG"
case "$1" in
  --version) echo "apptainer version $STUB_APPTAINER_VERSION" ;;
  build) echo "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" >> "$STUB_LOG"
         { cat "${4#docker-archive:}"; printf ' as sif'; } > "$3" ;;
  exec) echo '{"gcc": "14.3.0"}' ;;
esac
""",
    "hpcab": """#!/bin/sh
echo "hpcab $* HPCAB_ROOT=$HPCAB_ROOT" >> "$STUB_LOG"
""",
}


@pytest.fixture
def sif_program(nix_env, tmp_path):
    """The SIF program's script, as the flake would write it, with stand-in tools."""
    matrix = load_toolchains().matrix()
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name, text in STUBS.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    images = " ".join(json.dumps(n) for n in sorted(matrix["images"]))
    text = eval_json(nix_env, f"""(import {nix_path(ROOT / 'nix' / 'sif.nix')}).script {{
        images = [ {images} ]; epoch = {matrix['sif']['source_date_epoch']};
        apptainerMin = {json.dumps(matrix['sif']['apptainer'])}; apptainer = "/nonexistent/apptainer";
        flake = "path:/the/flake"; hpcab = {json.dumps(str(stubs / 'hpcab'))}; root = "/the/root"; }}""")
    # What writeShellApplication puts before the text.
    script = tmp_path / "hpcab-sif"
    script.write_text("#!/bin/bash\nset -o errexit -o nounset -o pipefail\n" + text)
    log = tmp_path / "log"
    env = dict(nix_env, PATH=f"{stubs}:{os.environ['PATH']}", STUB_LOG=str(log), STUB_DIR=str(stubs),
               HPCAB_APPTAINER=str(stubs / "apptainer"), STUB_APPTAINER_VERSION="1.5.0")
    env.pop("HPCAB_ROOT", None)

    def call(*args, **extra):
        proc = run(["bash", script, *args], dict(env, **extra), cwd=tmp_path)
        return proc, (log.read_text() if log.exists() else "")
    return call, matrix


def test_sif_program_builds_converts_and_records(sif_program, tmp_path):
    call, matrix = sif_program
    out = tmp_path / "out"
    proc, log = call("judge-cpu", "--out", str(out), "--lock", "my.lock.json")
    assert proc.returncode == 0, proc.stderr
    sif = out / "judge-cpu.sif"
    assert sif.read_bytes() == b"fake docker archive as sif"
    assert proc.stdout == f"{hashlib.sha256(sif.read_bytes()).hexdigest()}  {sif}\n"
    epoch = matrix["sif"]["source_date_epoch"]
    assert "nix --extra-experimental-features nix-command flakes build --out-link" in log
    assert "path:/the/flake#judge-cpu" in log
    assert f"apptainer build --force {sif} docker-archive:{out}/judge-cpu.tar\nSOURCE_DATE_EPOCH={epoch}\n" in log
    assert f"apptainer exec --cleanenv {sif} hpcab images versions" in log
    assert json.loads((out / "judge-cpu.versions.json").read_text()) == {"gcc": "14.3.0"}
    assert (f"hpcab images add --lock my.lock.json --name judge-cpu --sif {sif} --docker-archive "
            f"{out}/judge-cpu.tar --apptainer-version 1.5.0 --toolchains-json {out}/judge-cpu.versions.json "
            "HPCAB_ROOT=/the/root") in log
    assert sorted(p.name for p in out.iterdir()) == ["judge-cpu.sif", "judge-cpu.versions.json"]


def test_sif_program_keeps_the_archive_and_skips_the_lock_when_asked(sif_program, tmp_path):
    call, _ = sif_program
    proc, log = call("agent-cpu", "--out", str(tmp_path / "o"), "--keep-archive", "--no-lock")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "agent-cpu.tar").read_bytes() == b"fake docker archive"
    assert "hpcab images add" not in log


def test_sif_program_needs_the_lock(sif_program):
    call, _ = sif_program
    proc, log = call("judge-cpu")
    assert proc.returncode == 2
    assert "no apptainer/images.lock.json here" in proc.stderr and "--lock FILE" in proc.stderr
    assert log == ""


def test_sif_program_refuses_an_old_apptainer(sif_program, tmp_path):
    call, matrix = sif_program
    (tmp_path / "apptainer").mkdir()
    (tmp_path / "apptainer" / "images.lock.json").write_text('{"images": []}')
    proc, log = call("judge-cpu", STUB_APPTAINER_VERSION="1.4.1")
    assert proc.returncode == 1
    assert "Apptainer 1.4.1, older than " + matrix["sif"]["apptainer"] in proc.stderr
    assert "HPCAB_APPTAINER" in proc.stderr
    assert "nix " not in log and "build" not in log


def test_sif_program_rejects_an_unknown_image(sif_program):
    call, matrix = sif_program
    proc, log = call("judge-quantum")
    assert proc.returncode == 2
    assert "unknown image 'judge-quantum'" in proc.stderr
    assert all(name in proc.stderr for name in matrix["images"])
    assert log == ""


# ---------------------------------------------------------------- Apptainer definition files

def test_definition_files_agree_with_the_matrix():
    matrix = load_toolchains().matrix()
    command = {"judge": "serve", "agent": "agent"}
    for name, spec in matrix["images"].items():
        text = (ROOT / "apptainer" / f"{name}.def").read_text()
        assert re.search(r"^Bootstrap: docker$", text, re.MULTILINE), name
        base = re.search(r"^From: (\S+)$", text, re.MULTILINE)
        assert base and re.fullmatch(r"[\w./-]+:[\w.-]+", base.group(1)) and not base.group(1).endswith(":latest")
        assert "export HPCAB_ROOT=/opt/hpcab" in text
        for folder in ("hpcab", "corpus", "schemas", "toolchains"):
            assert re.search(rf"^\s+{folder} /opt/hpcab/{folder}$", text, re.MULTILINE), (name, folder)
        assert f'exec hpcab {command[spec["role"]]} "$@"' in text
        labels = dict(re.findall(r"^\s+dev\.hpcab\.(\w+) (\S+)$", text, re.MULTILINE))
        assert labels == {"image": name, "role": spec["role"], "hardware": spec["hardware"]}, name
        assert "-c /opt/hpcab/requirements/constraints.txt '/opt/hpcab[frameworks,launch]'" in text
