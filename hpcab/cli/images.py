"""hpcab images verify, add and versions: the Apptainer image lock (docs/images.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.errors import HpcabError, InputError


def cmd_images(args, out: Console) -> int:
    from hpcab.launch.images import load_lock, verify_rows
    lock = load_lock(args.lock)
    rows = verify_rows(lock, args.names or None)
    if not rows:
        out.print(f"{lock.path}: the lock lists no image; nothing to verify", highlight=False)
        return 0
    # Digests shortened to 16 hex digits in the table; each failure is printed in full below it.
    table = Table(title=f"images of {lock.path}")
    for col in ("name", "file", "expected", "actual", "ok"):
        table.add_column(col, overflow="fold", no_wrap=col in ("expected", "actual"))
    for r in rows:
        table.add_row(escape(r["name"]), escape(r["file"]), r["expected"][:16] + "…" if r["expected"] else "-",
                      r["actual"][:16] + "…" if r["actual"] else "-",
                      "[green]ok[/green]" if r["ok"] else f"[red]{r['state'].upper()}[/red]")
    out.print(table)
    for r in rows:
        if not r["ok"]:
            out.print(f"[red]{escape(r['error'])}[/red]", highlight=False)
    return 0 if all(r["ok"] for r in rows) else 1


def cmd_images_add(args, out: Console) -> int:
    import datetime as dt

    from hpcab.launch.images import add_entry, default_lock_path, docker_archive_config_digest, sha256_file
    from hpcab.toolchain import load_toolchains
    toolchains = load_toolchains()
    image = toolchains.images.get(args.name)
    if image is None:
        raise InputError("toolchains/images.toml", "images",
                         f"no image {args.name!r}; known: {', '.join(sorted(toolchains.images))}")
    lock = Path(args.lock) if args.lock else default_lock_path()
    sif = Path(args.sif)
    if not sif.is_file():
        raise InputError(args.sif, "", "no such SIF file")
    if args.docker_archive and args.oci_config_digest:
        raise HpcabError("images add: give --docker-archive TAR or --oci-config-digest sha256:HEX, not both")
    # Neither: a SIF built from an apptainer/*.def file, which has no OCI config (recorded as null).
    config = args.oci_config_digest or (docker_archive_config_digest(Path(args.docker_archive))
                                        if args.docker_archive else None)
    if args.toolchains_json:
        try:
            versions = json.loads(Path(args.toolchains_json).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(args.toolchains_json, "", f"expected a JSON object tool -> version: {exc}") from None
    else:       # what toolchains/ declares for the image (hpcab images versions inside it says what is there)
        versions = toolchains.matrix()["images"][args.name]["versions"]
    # The SIF is recorded relative to the lock's folder when it lies under it.
    try:
        where = os.path.relpath(sif.resolve(), lock.resolve().parent)
        where = where if not where.startswith("..") else str(sif.resolve())
    except ValueError:
        where = str(sif.resolve())
    entry = {"name": args.name, "role": image.role, "hardware": image.hardware, "sif": where,
             "sif_sha256": sha256_file(sif), "oci_config_digest": config, "toolchains": versions,
             "apptainer_version": args.apptainer_version,
             "built_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    add_entry(lock, entry)
    out.print(f"{lock}: {args.name} → {where}\n  sif_sha256 {entry['sif_sha256']}\n  oci_config_digest {config}",
              highlight=False)
    return 0


def cmd_images_versions(args, out: Console) -> int:
    from hpcab.launch.images import installed_versions
    print(json.dumps(installed_versions(), indent=2))
    return 0


def register(sub) -> None:
    s = sub.add_parser("images", help="the Apptainer image lock (docs/images.md)")
    images = s.add_subparsers(dest="images_command", required=True)
    s = images.add_parser("verify", help="check each SIF's sha256 against the lock: exit 0 if all match, 1 if any "
                                         "differs or is missing")
    s.add_argument("--lock", help="the lock file (default: apptainer/images.lock.json)")
    s.add_argument("names", nargs="*", metavar="NAME|PATH",
                   help="the images to check, by name or by SIF file (default: every image of the lock)")
    s.set_defaults(func=cmd_images)
    s = images.add_parser("add", help="record a built image in the lock: its SIF's sha256, OCI config digest and "
                                      "toolchain versions (nix run .#sif calls it)")
    s.add_argument("--name", required=True, help="the image, as toolchains/images.toml names it (e.g. judge-cpu)")
    s.add_argument("--sif", required=True, help="the SIF file built")
    s.add_argument("--docker-archive", help="the docker-archive tar it was built from (its config is hashed)")
    s.add_argument("--oci-config-digest", help="or the OCI config digest itself, sha256:HEX (neither: a SIF built "
                                               "from an apptainer/*.def file; recorded as null)")
    s.add_argument("--apptainer-version", required=True, help="the Apptainer that built the SIF")
    s.add_argument("--toolchains-json", help="JSON {tool: version} read inside the image (hpcab images versions); "
                                             "default: the versions toolchains/ declares")
    s.add_argument("--lock", help="the lock file (default: apptainer/images.lock.json)")
    s.set_defaults(func=cmd_images_add)
    s = images.add_parser("versions", help="print the installed toolchain versions as JSON (run inside an image)")
    s.set_defaults(func=cmd_images_versions)
