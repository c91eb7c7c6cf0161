# nixpkgs' allowUnfreePredicate for the nvidia image: the unfree licences allowed are CUDA's
# own (lib.licenses.nvidiaCuda and nvidiaCudaRedist, both short-named "CUDA EULA"), nothing
# else. Builtins only, so tests/test_nix.py can check it on made-up packages.
pkg:
let
  licence = pkg.meta.license or [ ];
  licences = if builtins.isList licence then licence else [ licence ];
  allowed = l: builtins.isAttrs l && ((l.free or true) || (l.shortName or "") == "CUDA EULA");
in
licences != [ ] && builtins.all allowed licences
