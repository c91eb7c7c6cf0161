{
  # Reproducible images for hpcab (docs/images.md). What goes into them is read from
  # toolchains/*.toml (nix/matrix.nix), the same files hpcab reads; flake.lock pins nixpkgs.
  #
  #   nix eval --json .#lib.matrix            the role x hardware x toolchain matrix (no nixpkgs needed)
  #   nix build .#hpcab                       the Python package
  #   nix build .#judge-cpu                   a script streaming the image (docker-archive tar)
  #   nix run .#sif -- judge-cpu              the SIF file, its sha256 and its lock entry
  #   nix develop                             the judge-cpu toolchain, HPCAB_ROOT = the checkout
  description = "hpcab: a benchmark for optimizers of numerical code, and its judge's images";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs =
    { self, nixpkgs }:
    let
      system = "x86_64-linux";

      # Pure: builtins only, so `nix eval .#lib.matrix` never fetches nixpkgs.
      toolchains = import ./nix/toolchains.nix { toolchainsDir = ./toolchains; };
      inherit (toolchains) matrix;
      version = (builtins.fromTOML (builtins.readFile ./pyproject.toml)).project.version;

      # Everything below needs nixpkgs (lazily: only what is asked for is evaluated).
      inherit (nixpkgs) lib;
      pkgs = import nixpkgs { inherit system; };
      # The nvidia image: CUDA's own unfree licence is accepted, no other (nix/unfree.nix).
      pkgsCuda = import nixpkgs {
        inherit system;
        config.allowUnfreePredicate = import ./nix/unfree.nix;
      };
      pkgsFor = hardware: if hardware == "nvidia" then pkgsCuda else pkgs;

      # Sources, without byte code: the Python package's, and the tree at HPCAB_ROOT in the
      # images (an installed hpcab does not carry corpus/, schemas/, toolchains/).
      noBytecode = dir: lib.fileset.fileFilter (file: !(lib.hasSuffix ".pyc" file.name)) dir;
      pySrc = lib.fileset.toSource {
        root = ./.;
        fileset = lib.fileset.unions [ ./pyproject.toml ./README.md (noBytecode ./hpcab) ];
      };
      root = lib.fileset.toSource {
        root = ./.;
        fileset = lib.fileset.unions [
          ./pyproject.toml
          ./README.md
          (noBytecode ./hpcab)
          (noBytecode ./corpus)
          ./schemas
          ./toolchains
        ];
      };

      built = import ./nix/images.nix {
        inherit pkgsFor toolchains root pySrc version;
        nixpkgsRev = nixpkgs.rev or "unknown";
      };
      judgeCpu = built.toolchainOf "judge-cpu";
    in
    {
      lib = { inherit matrix; };

      packages.${system} = built.images // {
        hpcab = (built.pythonFor pkgs).hpcab;
        default = (built.pythonFor pkgs).hpcab;
      };

      apps.${system}.sif = {
        type = "app";
        meta.description = "Build an image, convert it to a SIF file and record it in the lock";
        program = "${(import ./nix/sif.nix).app {
          inherit pkgs matrix root;
          flake = self;
          pythonEnv = judgeCpu.pythonEnv;
        }}/bin/hpcab-sif";
      };

      devShells.${system}.default = pkgs.mkShell {
        # The judge-cpu image's toolchain, with hpcab's dependencies; hpcab from the checkout.
        packages = [ judgeCpu.devPython ] ++ judgeCpu.native ++ judgeCpu.runtimes ++ judgeCpu.tools
          ++ [ pkgs.ruff ];
        shellHook = ''
          export HPCAB_ROOT="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
          export PYTHONPATH="$HPCAB_ROOT''${PYTHONPATH:+:$PYTHONPATH}"
          echo "hpcab dev shell (judge-cpu toolchain); HPCAB_ROOT=$HPCAB_ROOT"
          echo "  python -m hpcab --help          hpcab from this checkout"
          echo "  python -m pytest -q             the tests"
          echo "  nix eval --json .#lib.matrix    what the images carry (toolchains/*.toml)"
          echo "  nix build .#judge-cpu           an image (a script that streams it)"
          echo "  nix run .#sif -- judge-cpu      its SIF file and lock entry (docs/images.md)"
        '';
      };
    };
}
