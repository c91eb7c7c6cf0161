# The OCI images, one per entry of the matrix's images (toolchains/images.toml), built with
# dockerTools.streamLayeredImage: `nix build .#judge-cpu` gives a script that writes the
# image as a docker-archive tar on its standard output.
#
# An image carries:
# - every compiler of its hardware's families, each the nixpkgs attribute its toolchains
#   entry names (`nix`), checked at evaluation against the declared `version` (a nixpkgs
#   bump that changes a compiler stops the evaluation with an error naming the file and
#   the field);
# - the Python-family compilers (python, pythran) as one Python environment, with hpcab
#   and its dependencies (numpy, scipy, numba, pythran, submitit, ...);
# - the runtimes (Open MPI), checked the same way;
# - bash, coreutils, bubblewrap and util-linux (the judge's sandbox);
# - the project's source tree (corpus, schemas, toolchains, hpcab) at /opt/hpcab, which
#   HPCAB_ROOT names (an installed hpcab does not carry those folders).
#
# Every time stamp is the matrix's sif.source_date_epoch, never "now", so that a build
# from the same flake.lock gives the same image config digest.
{
  # hardware name -> the nixpkgs package set for it (the nvidia one allows CUDA's licence)
  pkgsFor,
  # import ./toolchains.nix { ... }: { matrix, origin }
  toolchains,
  # the source tree put at HPCAB_ROOT, and the one the Python package is built from
  root,
  pySrc,
  version,
  nixpkgsRev ? "unknown",
}:
let
  inherit (toolchains) matrix origin;

  created = import ./time.nix matrix.sif.source_date_epoch;
  hpcabRoot = "/opt/hpcab";

  # What `hpcab <role>` runs in each role's image.
  roleCommand = {
    judge = [ "serve" ];
    agent = [ "agent" ];
  };

  pythonFamilies = [ "python" "pythran" ];
  isPython = c: builtins.elem matrix.compilers.${c}.family pythonFamilies;

  # The package an entry's `nix` names, checked against its declared `version`.
  # field: "compilers.gcc" or "runtimes.openmpi".
  resolve = pkgs: field: attr: declared:
    let
      inherit (pkgs) lib;
      where = origin.${field} or "toolchains";
      pkg = lib.attrByPath (lib.splitString "." attr)
        (throw "${where}: ${field}.nix: nixpkgs (${nixpkgsRev}) has no attribute \"${attr}\"")
        pkgs;
      actual = lib.getVersion pkg;
    in
    if actual == declared || lib.hasPrefix "${declared}." actual then pkg
    else throw ("${where}: ${field}.version is \"${declared}\", but nixpkgs' ${attr} (${field}.nix) "
      + "is version ${actual} at nixpkgs ${nixpkgsRev}: change the declared version, or the "
      + "attribute, or the nixpkgs pin (flake.lock)");

  compiler = pkgs: c:
    resolve pkgs "compilers.${c}" matrix.compilers.${c}.nix matrix.compilers.${c}.version;
  runtime = pkgs: r:
    resolve pkgs "runtimes.${r}" matrix.runtimes.${r}.nix matrix.runtimes.${r}.version;

  # The one Python of every image: the default python compiler's (else the only one).
  pythonCompiler =
    let
      candidates = builtins.filter (c: matrix.compilers.${c}.family == "python")
        (builtins.attrNames matrix.compilers);
    in
    matrix.defaults.compilers.python or (
      if candidates == [ ] then throw "toolchains: no compiler of family \"python\": the images need one for hpcab"
      else builtins.head candidates);

  # Everything Python for one package set: the interpreter, hpcab built with its packages,
  # and the environment holding both (and the pythran-family compilers).
  pythonFor = pkgs:
    let
      inherit (pkgs) lib;
      interpreter = compiler pkgs pythonCompiler;
      hpcab = interpreter.pkgs.callPackage ./hpcab.nix { src = pySrc; inherit version; };
      # A Python-family compiler is a module of that interpreter (pythran), or the
      # interpreter itself: one environment cannot hold two Pythons.
      module = c:
        let
          pkg = compiler pkgs c;
          field = "compilers.${c}";
        in
        if pkg == interpreter then [ ]
        else if (pkg.pythonModule or null) == interpreter then [ pkg ]
        else throw ("${origin.${field}}: ${field}.nix: ${matrix.compilers.${c}.nix} is not a package of "
          + "${matrix.compilers.${pythonCompiler}.nix} (compilers.${pythonCompiler}.nix), the images' one Python");
      modules = cs: lib.concatMap module (builtins.filter isPython cs);
    in
    {
      inherit interpreter hpcab modules;
      env = compilers: interpreter.withPackages (ps: [ hpcab ] ++ modules compilers);
      # The dev shell's: hpcab's dependencies and the test tools, hpcab itself from the checkout.
      devEnv = compilers: interpreter.withPackages (ps:
        hpcab.pythonDependencies
        ++ [ ps.pytest ps.hypothesis ps.setuptools ] ++ modules compilers);
    };

  # What the nvidia image adds to nvcc: CUDA's runtime headers and libraries, from the
  # CUDA package set nvcc comes from (cudaPackages_12_8.cuda_nvcc -> .cuda_cudart).
  companions = pkgs: compilers:
    let
      inherit (pkgs) lib;
      nvidia = builtins.filter (c: matrix.compilers.${c}.family == "nvidia") compilers;
      cudaSet = c: lib.attrByPath (lib.init (lib.splitString "." matrix.compilers.${c}.nix)) { } pkgs;
      cudarts = lib.unique (lib.concatMap (c: lib.optional ((cudaSet c) ? cuda_cudart) (cudaSet c).cuda_cudart) nvidia);
      outputsOf = p: map (o: p.${o}) (lib.intersectLists [ "out" "include" "dev" "lib" "static" ] (p.outputs or [ "out" ]));
      includeOf = p: if builtins.elem "include" (p.outputs or [ ]) then p.include else lib.getDev p;
      libOutputs = p:
        let outs = lib.intersectLists [ "lib" "static" ] (p.outputs or [ ]); in
        if outs == [ ] then [ p ] else map (o: p.${o}) outs;
    in
    {
      packages = lib.concatMap outputsOf cudarts;
      env = lib.optionals (cudarts != [ ]) [
        "CPATH=${lib.concatMapStringsSep ":" (p: "${includeOf p}/include") cudarts}"
        # libcudart.so (lib output) and libcudart_static.a (static), which nvcc links by default
        "LIBRARY_PATH=${lib.concatMapStringsSep ":" (p: "${p}/lib") (lib.concatMap libOutputs cudarts)}"
      ];
    };

  # The toolchain of one image: its packages and their versions, for the image and the dev shell.
  toolchainOf = name:
    let
      spec = matrix.images.${name};
      pkgs = pkgsFor spec.hardware;
      inherit (pkgs) lib;
      python = pythonFor pkgs;
      # The default compilers first: the first cc, c++, ld on PATH are theirs (gcc's, not clang's).
      defaults = builtins.attrValues matrix.defaults.compilers;
      ordered = builtins.filter (c: builtins.elem c defaults) spec.compilers
        ++ builtins.filter (c: !(builtins.elem c defaults)) spec.compilers;
      native = lib.unique (map (compiler pkgs) (builtins.filter (c: !isPython c) ordered));
      runtimes = map (runtime pkgs) spec.runtimes;
      extra = companions pkgs spec.compilers;
      # The sandbox (hpcab/sandbox.py) and what a shell in the image needs.
      tools = with pkgs; [ bashInteractive coreutils findutils gnugrep gnused gnutar gzip which bubblewrap util-linux ];
    in
    {
      inherit spec pkgs python native runtimes tools extra;
      pythonEnv = python.env spec.compilers;
      devPython = python.devEnv spec.compilers;
      # name -> the version nixpkgs gives (checked against the declared one above)
      versions = lib.genAttrs spec.compilers (c: lib.getVersion (compiler pkgs c))
        // lib.genAttrs spec.runtimes (r: lib.getVersion (runtime pkgs r));
    };

  image = name:
    let
      t = toolchainOf name;
      inherit (t) spec pkgs pythonEnv;
      inherit (pkgs) lib;
      command = roleCommand.${spec.role} or (throw
        "${origin."images.${name}"}: images.${name}.role: no image command for role \"${spec.role}\" (nix/images.nix, roleCommand)");
      # The source tree at HPCAB_ROOT.
      rootLink = pkgs.runCommand "hpcab-root" { } ''
        mkdir -p $out/opt
        ln -s ${root} $out/opt/hpcab
      '';
      # Ordered: the first program of a name on PATH wins (gcc's cc before clang's).
      onPath = [ pythonEnv ] ++ t.native ++ t.runtimes ++ t.tools;
    in
    pkgs.dockerTools.streamLayeredImage {
      name = "hpcab-${name}";
      tag = version;
      inherit created;
      mtime = created;
      contents = onPath ++ t.extra.packages ++ [ rootLink ];
      # hpcab/sandbox.py runs setpriv (as root) or prlimit inside the sandbox only from a
      # real file under /usr (contents are links into /nix/store): copies, whose libraries
      # stay in /nix/store, which the sandbox binds too.
      extraCommands = ''
        mkdir -p tmp usr/bin
        chmod 1777 tmp
        cp -L ${lib.getExe' pkgs.util-linux "setpriv"} ${lib.getExe' pkgs.util-linux "prlimit"} usr/bin/
        ln -s ${lib.getExe' pkgs.coreutils "env"} usr/bin/env
      '';
      config = {
        Entrypoint = [ "${pythonEnv}/bin/hpcab" ] ++ command;
        Env = [
          "HPCAB_ROOT=${hpcabRoot}"
          "PATH=${lib.makeBinPath onPath}:/usr/bin:/bin"
        ] ++ t.extra.env;
        WorkingDir = "/";
        Labels = {
          "org.opencontainers.image.title" = "hpcab-${name}";
          "org.opencontainers.image.version" = version;
          "org.opencontainers.image.created" = created;
          "dev.hpcab.image" = name;
          "dev.hpcab.role" = spec.role;
          "dev.hpcab.hardware" = spec.hardware;
          "dev.hpcab.nixpkgs" = nixpkgsRev;
        } // lib.mapAttrs' (tool: v: lib.nameValuePair "dev.hpcab.toolchain.${tool}" v) t.versions;
      };
      passthru = { inherit (t) versions; inherit pythonEnv; };
    };
in
{
  inherit created toolchainOf pythonFor;
  images = builtins.mapAttrs (name: _: image name) matrix.images;
}
