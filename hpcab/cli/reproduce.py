"""hpcab reproduce: grade a recorded grade's submission again, in its image where the lock
has it, and say whether its correctness and speedup reproduce (docs/images.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.cli.common import EXIT_USAGE
from hpcab.errors import InputError
from hpcab.gradedoc import fmt_speedup


def cmd_reproduce(args, out: Console) -> int:
    import shutil
    import subprocess

    from hpcab.corpus import load_corpus
    from hpcab.environment import image_digest
    from hpcab.record import connect
    from hpcab.reproduce import TEST, DifferentImage, find_grade, recorded_image, reproduce, triple_json
    from hpcab.toolchain import load_toolchains

    db = Path(args.db)
    if not db.is_file():
        raise InputError(args.db, "", "no such judge database")
    conn = connect(db)
    grade_id = find_grade(conn, args.grade)
    then, now = recorded_image(conn, grade_id), image_digest()
    hint = ""
    if then != now and then != "native":
        # The image is available when the lock lists it with a local SIF: re-run inside it.
        from hpcab.launch.images import default_lock_path, entry_for_digest, exec_prefix, load_lock, verify
        entry = entry_for_digest(load_lock(args.lock), then) if args.lock or default_lock_path().exists() else None
        if entry is not None and entry.path is not None and entry.path.is_file():
            if shutil.which("apptainer"):
                digest = verify(entry)
                argv = exec_prefix(entry, [db.resolve().parent, Path.cwd()], 1 if entry.hardware != "cpu" else 0,
                                   digest) + ["python", "-m", "hpcab", "reproduce", grade_id, "--db", str(db.resolve())]
                argv += ["--json"] if args.json else []
                print(f"grade {grade_id} ran in image {entry.name} ({entry.path}): re-running inside it",
                      file=sys.stderr, flush=True)
                return subprocess.run(argv).returncode
            hint = f" (the lock's image {entry.name!r}, {entry.path}, is that image, but no apptainer is on PATH)"
        elif entry is not None:
            hint = f" (the lock's image {entry.name!r} is that image, but its SIF {entry.sif} is not here)"
    toolchains, corpus = load_toolchains(), load_corpus()
    try:
        with out.status("re-grading…") as status:
            rep = reproduce(conn, grade_id, toolchains, corpus, allow_different_image=args.allow_different_image,
                            progress=lambda msg: status.update(f"reproducing {grade_id[:12]}: {msg}"))
    except DifferentImage as exc:
        err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
        err.print(f"[bold red]refused:[/bold red] {escape(str(exc))}{escape(hint)}", highlight=False, soft_wrap=True)
        _print_differences(exc.differences, err)
        return EXIT_USAGE
    doc = rep.document()
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0 if rep.reproduced else 1
    out.print(f"grade {rep.grade_id} ({rep.kernel}) re-graded as {rep.new_grade.id}", highlight=False)
    table = Table(title="recorded → now")
    for col in ("what", "recorded", "now", "reproduced"):
        table.add_column(col, overflow="fold")

    def yes(ok) -> str:
        return "-" if ok is None else ("[green]yes[/green]" if ok else "[red]NO[/red]")

    table.add_row("status", rep.recorded_status, rep.status, yes(rep.recorded_status == rep.status))
    for label, was, is_ in rep.case_statuses:
        table.add_row(f"  case {escape(label)}", was, is_, yes(was == is_))
    for s in rep.speedups:
        table.add_row(f"speedup {s.name} (95% CI)", fmt_speedup(triple_json(s.recorded), "\n"),
                      fmt_speedup(triple_json(s.now), "\n"), yes(s.reproduced))
        if s.ratio is not None:
            r = s.ratio
            table.add_row("  ratio now / recorded", "", f"{r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}]", yes(s.reproduced))
    table.add_row("image", rep.image_recorded, rep.image_now, yes(rep.image_recorded == rep.image_now))
    out.print(table)
    _print_differences(list(rep.differences), out)
    out.print(f"test: {TEST}", highlight=False)
    if rep.reproduced:
        out.print("[green]REPRODUCED[/green]: the same correctness, and every speedup's ratio to the recorded one "
                  "has a 95% interval that holds 1" + (" (in a different image)" if rep.image_recorded != rep.image_now
                                                       else ""))
    else:
        why = [w for w, bad in (("correctness differs", not rep.correctness_reproduced),
                                ("a speedup differs from the recorded one: its ratio's 95% interval excludes 1",
                                 not rep.speedup_reproduced))
               if bad]
        out.print(f"[red]NOT REPRODUCED[/red]: {'; '.join(why)}")
    return 0 if rep.reproduced else 1


def _print_differences(diffs: list, out: Console) -> None:
    if not diffs:
        out.print("environment: the same fingerprint as recorded", highlight=False)
        return
    out.print("environment differences (recorded → now):", highlight=False)
    for field, was, is_ in diffs:
        out.print(f"  {escape(field)}: {escape(str(was))} → {escape(str(is_))}", highlight=False)


def register(sub) -> None:
    s = sub.add_parser("reproduce", help="grade a recorded grade's submission again and say whether its correctness "
                                         "and speedup reproduce (docs/images.md)")
    s.add_argument("grade", help="the grade's id (or a unique prefix of 6 or more hex digits)")
    s.add_argument("--db", required=True, help="the judge database that recorded it")
    s.add_argument("--allow-different-image", action="store_true",
                   help="re-run even though the grade ran in another image (or natively), and list what differs")
    s.add_argument("--lock", help="the image lock that may hold the grade's image (default: apptainer/images.lock.json)")
    s.add_argument("--json", action="store_true", help="print the comparison as JSON")
    s.set_defaults(func=cmd_reproduce)
