# The SIF conversion: `nix run .#sif -- NAME [options]` builds the image NAME with Nix,
# streams it to a docker-archive tar, converts it with Apptainer (SOURCE_DATE_EPOCH set:
# byte-identical SIF files from Apptainer 1.5 on), prints the SIF's sha256, asks the SIF
# which tool versions it carries (`hpcab images versions`) and records the image in the
# lock (`hpcab images add`). docs/images.md.
#
# `script` is the program's text from plain values (builtins only): tests/test_nix.py runs
# it with stand-in nix, apptainer and hpcab programs. `app` wraps it for the flake.
let
  quote = s: "'" + builtins.replaceStrings [ "'" ] [ "'\\''" ] (toString s) + "'";

  script =
    {
      images,          # the image names the flake builds
      epoch,           # sif.source_date_epoch
      apptainerMin,    # sif.apptainer: the oldest Apptainer allowed
      apptainer,       # the Apptainer used unless --apptainer or HPCAB_APPTAINER says otherwise
      flake,           # the flake that builds the images (its store copy)
      hpcab,           # the hpcab program that records the lock entry
      root,            # HPCAB_ROOT for it, unless set
    }:
    ''
      prog=hpcab-sif
      images=${quote (builtins.concatStringsSep " " images)}
      epoch=${quote epoch}
      apptainer_min=${quote apptainerMin}

      usage() {
        cat <<USAGE
      usage: nix run .#sif -- NAME [--out DIR] [--lock FILE] [--apptainer PROGRAM] [--flake REF]
                                   [--keep-archive] [--no-lock]

      Builds the image NAME (one of: $images) with Nix, streams it to a docker-archive tar,
      converts it to DIR/NAME.sif with Apptainer (SOURCE_DATE_EPOCH=$epoch), prints the SIF's
      sha256, writes DIR/NAME.versions.json (hpcab images versions, run inside the SIF) and
      records the image in the lock (hpcab images add).

        --out DIR          where NAME.sif goes (default: the current folder)
        --lock FILE        the lock to update (default: apptainer/images.lock.json, which
                           must exist: run from the checkout's root)
        --apptainer PROG   the Apptainer to use (default: \$HPCAB_APPTAINER if set, else the one
                           from the flake's nixpkgs); it must be $apptainer_min or later
        --flake REF        the flake that builds NAME (default: the one this program came from)
        --keep-archive     keep DIR/NAME.tar, the docker archive (default: removed at the end)
        --no-lock          do not record the image in the lock
      USAGE
      }

      die() { echo "$prog: $*" >&2; exit 1; }
      usage_error() { usage >&2; echo "$prog: $*" >&2; exit 2; }

      name=""
      out=.
      lock=apptainer/images.lock.json
      apptainer="''${HPCAB_APPTAINER:-}"
      [ -n "$apptainer" ] || apptainer=${quote apptainer}
      flake=${quote flake}
      lock_given=0
      keep=0
      record=1
      while [ $# -gt 0 ]; do
        case "$1" in
          -h | --help) usage; exit 0 ;;
          --out | --lock | --apptainer | --flake)
            [ $# -ge 2 ] || usage_error "$1 needs a value"
            case "$1" in
              --out) out="$2" ;;
              --lock) lock="$2"; lock_given=1 ;;
              --apptainer) apptainer="$2" ;;
              --flake) flake="$2" ;;
            esac
            shift 2 ;;
          --keep-archive) keep=1; shift ;;
          --no-lock) record=0; shift ;;
          -*) usage_error "unknown option $1" ;;
          *)
            [ -z "$name" ] || usage_error "one image at a time (got $name and $1)"
            name="$1"; shift ;;
        esac
      done
      [ -n "$name" ] || usage_error "which image? one of: $images"
      case " $images " in
        *" $name "*) ;;
        *) usage_error "unknown image '$name'; the flake builds: $images (toolchains/images.toml)" ;;
      esac

      if [ "$record" = 1 ] && [ "$lock_given" = 0 ] && [ ! -f "$lock" ]; then
        usage_error "no $lock here: run from the checkout's root, or give --lock FILE (or --no-lock)"
      fi

      # The Apptainer, and whether it is recent enough for byte-identical SIF files.
      command -v "$apptainer" >/dev/null 2>&1 || die "no Apptainer program '$apptainer' (--apptainer, HPCAB_APPTAINER)"
      banner=$("$apptainer" --version) || die "'$apptainer --version' failed"
      version=$(printf '%s\n' "$banner" | grep -oE '[0-9]+(\.[0-9]+)+' | head -n 1 || true)
      [ -n "$version" ] || die "cannot read a version in '$apptainer --version': $banner"
      oldest=$(printf '%s\n%s\n' "$apptainer_min" "$version" | sort -V | head -n 1)
      if [ "$oldest" != "$apptainer_min" ]; then
        die "$apptainer is Apptainer $version, older than $apptainer_min: only $apptainer_min and later build byte-identical SIF files (toolchains/images.toml, sif.apptainer). Use a newer one: --apptainer PROGRAM or HPCAB_APPTAINER=PROGRAM"
      fi
      echo "$prog: Apptainer $version ($apptainer)" >&2

      mkdir -p "$out"
      work=$(mktemp -d "$out/.$name.XXXXXX")
      trap 'rm -rf "$work"' EXIT
      tar="$out/$name.tar"
      sif="$out/$name.sif"
      versions="$out/$name.versions.json"

      echo "$prog: building $flake#$name" >&2
      nix --extra-experimental-features 'nix-command flakes' build --out-link "$work/stream" "$flake#$name"
      echo "$prog: streaming the image to $tar" >&2
      "$work/stream" > "$tar"

      echo "$prog: converting to $sif" >&2
      SOURCE_DATE_EPOCH="$epoch" "$apptainer" build --force "$sif" "docker-archive:$tar"
      sha=$(sha256sum "$sif" | cut -d ' ' -f 1)
      echo "$sha  $sif"

      # What the SIF itself carries (its own environment only: --cleanenv).
      "$apptainer" exec --cleanenv "$sif" hpcab images versions > "$versions"
      echo "$prog: tool versions in $versions" >&2

      if [ "$record" = 1 ]; then
        HPCAB_ROOT="''${HPCAB_ROOT:-${root}}" ${quote hpcab} images add --lock "$lock" --name "$name" \
          --sif "$sif" --docker-archive "$tar" --apptainer-version "$version" --toolchains-json "$versions"
        echo "$prog: recorded $name in $lock" >&2
      fi
      if [ "$keep" = 0 ]; then
        rm -f "$tar"
      fi
    '';

  app =
    {
      pkgs,
      matrix,
      flake,      # the flake's store copy (self)
      pythonEnv,  # a Python environment with hpcab
      root,
    }:
    let
      inherit (pkgs) lib;
      apptainer = lib.attrByPath (lib.splitString "." matrix.sif.nix)
        (throw "toolchains: sif.nix: nixpkgs has no attribute \"${matrix.sif.nix}\"") pkgs;
    in
    pkgs.writeShellApplication {
      name = "hpcab-sif";
      runtimeInputs = with pkgs; [ coreutils gnugrep ];
      text = script {
        images = builtins.attrNames matrix.images;
        epoch = matrix.sif.source_date_epoch;
        apptainerMin = matrix.sif.apptainer;
        apptainer = "${lib.getBin apptainer}/bin/apptainer";
        flake = "path:${flake}";
        hpcab = "${pythonEnv}/bin/hpcab";
        inherit root;
      };
    };
in
{
  inherit script app;
}
