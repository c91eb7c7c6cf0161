# The hpcab Python package, built from the source tree with nixpkgs' Python packages.
# Called with the interpreter's own package set (python311.pkgs.callPackage), so that every
# dependency is built for the Python the toolchains name (compilers.python.nix).
{
  lib,
  buildPythonPackage,
  src,
  version,
  # build-system
  setuptools,
  wheel,
  # hpcab[cpu]
  numpy,
  scipy,
  cffi,
  pyyaml,
  jsonschema,
  attrs,
  rich,
  # hpcab[frameworks]
  numba,
  pythran,
  # hpcab[launch]
  submitit,
}:

let
  # pyproject.toml declares these as extras (cpu, frameworks, launch); the images carry all.
  pythonDependencies = [
    numpy
    scipy
    cffi
    pyyaml
    jsonschema
    attrs
    rich
    numba
    pythran
    submitit
  ];
in
buildPythonPackage {
  pname = "hpcab";
  inherit version src;
  pyproject = true;

  build-system = [ setuptools wheel ];

  dependencies = pythonDependencies;
  # The dev shell's Python takes these, and hpcab itself from the checkout.
  passthru = { inherit pythonDependencies; };

  # The tests need the compilers, bubblewrap and a judge: they run in CI, not here.
  doCheck = false;
  pythonImportsCheck = [ "hpcab" "hpcab.cli" "hpcab.toolchain" ];

  meta = {
    description = "A benchmark for optimizers of numerical code: NumPy references, a C ABI, and an honest judge";
    license = lib.licenses.asl20;
    mainProgram = "hpcab";
  };
}
