# Reads every toolchains/*.toml with builtins only (no nixpkgs, no lib), the way
# hpcab.toolchain.load_toolchains does in Python, and returns
#
#   matrix  the role x hardware x toolchain matrix, equal (as JSON) to Python's
#           load_toolchains().matrix(); tests/test_nix.py checks that they agree
#   origin  "compilers.gcc" -> "toolchains/gnu.toml": the file each name comes from,
#           so that an error (nix/images.nix) can name the file and the field
#
# A name defined in two files (compilers, flagsets, hardware, runtimes, images, or the
# [defaults] / [sif] tables) is an error naming both files, as in Python.
{ toolchainsDir }:
let
  inherit (builtins)
    attrNames concatMap concatStringsSep elem filter foldl' head length listToAttrs
    mapAttrs match readDir readFile removeAttrs sort lessThan zipAttrsWith;

  # Errors name files as "toolchains/gnu.toml" (the folder's own name, not a store path).
  dirName = baseNameOf (toString toolchainsDir);
  entries = readDir toolchainsDir;
  files = filter (f: match ".*\\.toml" f != null && entries.${f} != "directory") (attrNames entries);

  docs = map (file: rec {
    where = "${dirName}/${file}";
    doc = builtins.addErrorContext "while reading ${where}"
      (builtins.fromTOML (readFile (toolchainsDir + "/${file}")));
  }) files;

  tables = [ "compilers" "flagsets" "hardware" "runtimes" "images" ];
  singles = [ "defaults" "sif" ];

  # Every definition, in file order: { key = "compilers.gcc"; where = "toolchains/gnu.toml"; }
  definitions = concatMap (d:
    concatMap (t: map (n: { key = "${t}.${n}"; inherit (d) where; }) (attrNames (d.doc.${t} or { }))) tables
    ++ map (s: { key = s; inherit (d) where; }) (filter (s: d.doc ? ${s}) singles)
  ) docs;
  origins = zipAttrsWith (key: wheres: wheres) (map (x: { ${x.key} = x.where; }) definitions);
  origin = mapAttrs (key: wheres: head wheres) origins;

  merged = table: foldl' (acc: d: acc // (d.doc.${table} or { })) { } docs;
  compilers = merged "compilers";
  flagsets = merged "flagsets";
  hardware = merged "hardware";
  runtimes = merged "runtimes";
  images = merged "images";
  defaults = merged "defaults";
  sif = merged "sif";

  sorted = sort lessThan;
  # Sorted and without repeats (attribute names are sorted).
  uniqueSorted = list: attrNames (listToAttrs (map (s: { name = s; value = null; }) list));

  # The first error found, as Python would report it: "FILE: FIELD: what".
  errors =
    (if files == [ ] then [ "${dirName}: no toolchain files (*.toml)" ] else [ ])
    ++ map (key:
      let ws = origins.${key}; in
      "${builtins.elemAt ws 1}: ${key}: already defined in ${head ws}"
      + (if length ws > 2 then " (and again in ${concatStringsSep ", " (builtins.tail (builtins.tail ws))})" else "")
    ) (filter (key: length origins.${key} > 1) (attrNames origins))
    ++ (if origin ? defaults then
      (if flagsets ? ${defaults.flagset} then [ ]
       else [ "${origin.defaults}: defaults.flagset: names unknown flag set \"${defaults.flagset}\"" ])
      ++ concatMap (lang:
        let name = defaults.compilers.${lang}; in
        if !(compilers ? ${name}) then [ "${origin.defaults}: defaults.compilers.${lang}: names unknown compiler \"${name}\"" ]
        else if compilers.${name}.language != lang then
          [ "${origin.defaults}: defaults.compilers.${lang}: \"${name}\" compiles ${compilers.${name}.language}, not ${lang}" ]
        else [ ]
      ) (attrNames defaults.compilers)
    else [ "${dirName}: defaults: no file defines [defaults]" ])
    ++ concatMap (name:
      let c = compilers.${name}; in
      if c ? backend && !(compilers ? ${c.backend})
      then [ "${origin."compilers.${name}"}: compilers.${name}.backend: names unknown compiler \"${c.backend}\"" ]
      else [ ]
    ) (attrNames compilers)
    ++ concatMap (name:
      let i = images.${name}; in
      if hardware ? ${i.hardware} then [ ]
      else [ "${origin."images.${name}"}: images.${name}.hardware: no [hardware.${i.hardware}] table says which compiler families it carries" ]
    ) (attrNames images);

  imageEntry = name: image:
    let
      carried = filter (c: elem compilers.${c}.family hardware.${image.hardware}.families) (attrNames compilers);
      runtimeNames = attrNames runtimes;
    in {
      inherit (image) role hardware;
      compilers = carried;                      # attrNames: already sorted
      runtimes = runtimeNames;
      nix = uniqueSorted (map (c: compilers.${c}.nix) carried ++ map (r: runtimes.${r}.nix) runtimeNames);
      versions = listToAttrs (map (c: { name = c; value = compilers.${c}.version; }) carried)
        // mapAttrs (r: v: v.version) runtimes;
    };

  matrix = {
    compilers = mapAttrs (n: c: { inherit (c) language family version nix; }) compilers;
    flagsets = mapAttrs (n: f: removeAttrs f [ "description" ]) flagsets;
    defaults = { inherit (defaults) flagset compilers; };
    hardware = mapAttrs (h: d: { families = sorted d.families; }) hardware;
    inherit runtimes sif;
    images = mapAttrs imageEntry images;
  };
in
{
  matrix = if errors == [ ] then matrix else throw (head errors);
  inherit origin dirName;
}
