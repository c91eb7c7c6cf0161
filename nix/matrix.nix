# The role x hardware x toolchain matrix read from toolchains/*.toml with builtins only:
# the same data as Python's hpcab.toolchain.load_toolchains().matrix() (tests/test_nix.py).
#
#   nix-instantiate --eval --strict --json nix/matrix.nix --arg toolchainsDir ./toolchains
{ toolchainsDir }:
(import ./toolchains.nix { inherit toolchainsDir; }).matrix
