"""The bubblewrap sandbox (hpcab.sandbox): real bwrap, real compiled C candidates.

A sandboxed candidate reaches no network, reads nothing outside its binds, sees none of
the judge's processes, and a fork bomb stops at RLIMIT_NPROC; a sandboxed compile sees
nothing outside its build folder and the system's toolchain. Each property has a control:
the same candidate without the sandbox does reach what the sandbox hides, so a pass is the
sandbox's doing. The judge refuses to start where bubblewrap cannot run, unless told
--unsandboxed, and says which in GET /health.
"""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from hpcab import sandbox
from hpcab.build import Candidate, build
from hpcab.case import preset_case
from hpcab.grade import grade
from hpcab.timing.policy import Policy, pinned

from .conftest import EXAMPLES, Listener

# A correct gemm that first looks at something the sandbox should hide (OBSERVE: a C
# statement setting `breached`); having seen it, it answers NaN, so the grade says which.
GEMM = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int observed = 0, breached = 0;

static void observe(void) {
%(observe)s
}

void gemm(const double *restrict A, const double *restrict B, double *restrict C,
          double alpha, double beta, int64_t NI, int64_t NJ, int64_t NK,
          uint8_t *restrict workspace, int64_t workspace_size)
{
    (void)workspace; (void)workspace_size;
    if (!observed) { observed = 1; observe(); }
    for (int64_t i = 0; i < NI; i++) {
        double *restrict c = C + i * NJ;
        for (int64_t j = 0; j < NJ; j++)
            c[j] *= beta;
        for (int64_t k = 0; k < NK; k++) {
            const double a = alpha * A[i * NK + k];
            const double *restrict b = B + k * NJ;
            for (int64_t j = 0; j < NJ; j++)
                c[j] += a * b[j];
        }
        if (breached)
            for (int64_t j = 0; j < NJ; j++)
                c[j] = NAN;
    }
}
"""


def gemm_observing(observe: str) -> Candidate:
    return Candidate(GEMM % {"observe": observe}, "c", label="sandbox probe")


@pytest.fixture
def policy(fast_policy):
    return attrs.evolve(fast_policy, sandbox="bubblewrap")


def grade_gemm(corpus, toolchains, candidate, policy):
    k = corpus.get("gemm")
    return grade(k, candidate, [preset_case(k, "S")], toolchains, policy=policy, baseline=False)


def test_bubblewrap_runs_here():
    """CI installs bubblewrap (scripts/bootstrap.sh): a machine without it fails here, loudly."""
    ok, why = sandbox.available()
    assert ok, why


def test_auto_resolves_and_the_grade_records_it(corpus, toolchains, fast_policy):
    assert Policy().sandbox == "auto"
    assert pinned(Policy()).sandbox == "bubblewrap"
    g = grade_gemm(corpus, toolchains, Candidate((EXAMPLES / "gemm.c").read_text(), "c"), fast_policy)
    assert g.status == "ok", g.message
    assert g.policy.sandbox == "bubblewrap" and attrs.asdict(g.policy)["sandbox"] == "bubblewrap"
    with pytest.raises(ValueError, match="sandbox"):
        pinned(Policy(sandbox="chroot"))


def test_the_command_binds_only_what_the_job_names(tmp_path):
    lib = tmp_path / "cache" / "builds" / "ab" / "abcd" / "candidate.so"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    job = tmp_path / "job"
    job.mkdir()
    argv = sandbox.command(["python", "-m", "hpcab.timing.untrusted.runner"],
                           binds=[sandbox.Bind(lib, lib), sandbox.Bind(job, job, writable=True)],
                           env={"PATH": "/usr/bin"}, cwd=str(job), processes=64)
    sep = argv.index("--")
    opts = argv[:sep]
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--new-session", "--clearenv"):
        assert flag in opts
    assert opts[opts.index("--proc") + 1] == "/proc" and opts[opts.index("--dev") + 1] == "/dev"
    pairs = [(opts[i], opts[i + 1], opts[i + 2]) for i, a in enumerate(opts) if a in ("--bind", "--ro-bind")]
    assert ("--ro-bind", str(lib), str(lib)) in pairs and ("--bind", str(job), str(job)) in pairs
    assert not any(src == str(lib.parent) or src == str(tmp_path / "cache") for _, src, _ in pairs)
    writable = [src for kind, src, _ in pairs if kind == "--bind"]
    assert writable == [str(job)]
    assert str(Path.home()) not in [src for _, src, _ in pairs]
    assert opts[opts.index("--setenv") + 1:opts.index("--setenv") + 3] == ["PATH", "/usr/bin"]


def test_no_network(corpus, toolchains, policy):
    server = Listener()
    try:
        cand = gemm_observing(f"""
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {{0}};
    a.sin_family = AF_INET; a.sin_port = htons({server.port}); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) breached = 1;
    if (s >= 0) close(s);""")
        g = grade_gemm(corpus, toolchains, cand, policy)
        assert g.status == "ok", g.message           # the grade completes; the connection did not
        assert server.accepted == 0
        control = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox="none"))
        assert control.status == "incorrect" and server.accepted >= 1
    finally:
        server.close()


def test_no_file_outside_the_binds(corpus, toolchains, policy, tmp_path):
    secret = tmp_path / "judge.db.secret"
    secret.write_text("the judge's secret\n")
    (tmp_path / "judge.db").write_bytes(b"SQLite format 3\0")
    paths = [secret, tmp_path / "judge.db"] + [p for p in (Path.home() / ".profile", Path.home() / ".bashrc")
                                               if p.is_file()][:1]
    listed = ", ".join(f'"{p}"' for p in paths)
    cand = gemm_observing(f"""
    const char *paths[] = {{{listed}}};
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {{
        FILE *f = fopen(paths[i], "r");
        if (f) {{ breached = 1; fclose(f); }}
    }}""")
    g = grade_gemm(corpus, toolchains, cand, policy)
    assert g.status == "ok", g.message
    control = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox="none"))
    assert control.status == "incorrect"


def test_no_view_of_the_build_cache(corpus, toolchains, policy):
    """Of the build cache, only the libraries the job names (the candidate's, the harness's)
    are bound: another agent's entry is not there, not even its name."""
    builds = Path(os.environ["HPCAB_CACHE"]) / "builds"
    other = build(Candidate("int someone_elses(void) { return 1; }\n", "c"), toolchains).library.parent
    cand = gemm_observing(f"""
    if (access("{other}", F_OK) == 0 || access("{other / 'candidate.c'}", F_OK) == 0) breached = 1;
    DIR *d = opendir("{builds}");
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d)); ) if (e->d_name[0] != '.') entries++;
    if (d) closedir(d);
    if (entries > 2) breached = 1;     /* the folders of its own library and of the harness */""")
    g = grade_gemm(corpus, toolchains, cand, policy)
    assert g.status == "ok", g.message
    control = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox="none"))
    assert control.status == "incorrect"


def test_no_view_of_the_judges_processes(corpus, toolchains, policy):
    cand = gemm_observing(f"""
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", {os.getpid()});
    if (access(path, F_OK) == 0) breached = 1;
    DIR *d = opendir("/proc");
    int pids = 0;
    for (struct dirent *e; d && (e = readdir(d)); ) if (e->d_name[0] >= '0' && e->d_name[0] <= '9') pids++;
    if (d) closedir(d);
    if (pids > 8) breached = 1;     /* bwrap's init, the measuring child and what it started */""")
    g = grade_gemm(corpus, toolchains, cand, policy)
    assert g.status == "ok", g.message
    control = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox="none"))
    assert control.status == "incorrect"


def test_the_candidate_holds_no_file_of_the_judges_and_writes_only_its_private_tmp(corpus, toolchains, policy):
    """Its working folder is a private /tmp: no job description, no input sets, no results
    file to rewrite; the rest of its file system is read-only."""
    cand = gemm_observing("""
    const char *judges[] = {"job.json", "inputs.npz", "result.json", "outputs.npz", "where", "../job.json"};
    for (unsigned i = 0; i < sizeof judges / sizeof *judges; i++)
        if (access(judges[i], F_OK) == 0) breached = 1;
    int fd = open("/hpcab-sandbox-planted", O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) { breached = 1; close(fd); unlink("/hpcab-sandbox-planted"); }
    fd = open("planted", O_CREAT | O_WRONLY, 0644);     /* its private /tmp: allowed */
    if (fd >= 0) { close(fd); unlink("planted"); }""")
    g = grade_gemm(corpus, toolchains, cand, policy)
    assert g.status == "ok", g.message
    control = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox="none"))
    assert control.status == "incorrect"       # unsandboxed, a root judge's / is writable


def test_links_left_in_the_job_folder_read_nothing_of_the_judges(corpus, toolchains, policy, tmp_path):
    """Should a candidate get to leave, under the names the judge reads back, a link to a
    file of the judge's or a FIFO (the job folder is read-only in the sandbox, so it does
    not), the judge reads neither: an error grade, never the file's contents, never a hang."""
    secret = tmp_path / "judge.db.secret"
    secret.write_text("SECRET-7f3a9c\n")
    for mode, ending in (("bubblewrap", "_exit(1);"), ("bubblewrap", "_exit(0);"), ("none", "_exit(1);"),
                         ("none", "_exit(0);")):      # without the sandbox, the links are made
        cand = gemm_observing(f"""
    unlink("stderr.txt"); symlink("{secret}", "stderr.txt");
    unlink("result.json"); symlink("{secret}", "result.json");
    unlink("outputs.npz"); mkfifo("outputs.npz", 0666);
    {ending}""")
        started = time.monotonic()
        g = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, sandbox=mode))
        assert g.status == "error", (g.status, g.message)
        assert "SECRET-7f3a9c" not in g.message and all("SECRET" not in c.message for c in g.cases)
        assert time.monotonic() - started < 25


def sandbox_processes() -> list[int]:
    """Live processes of the sandbox's user (a root judge: this process's own sandbox uid)."""
    uid = sandbox.sandbox_uid()
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid and fields.get("State", "").split()[:1] != ["Z"]:
            found.append(int(status.parent.name))
    return found


def test_forks_stop_at_the_process_limit(corpus, toolchains, policy):
    """Children that stay alive: fork fails (EAGAIN) near Policy.processes, not thousands later."""
    cand = gemm_observing("""
    int n = 0;
    for (; n < 2000; n++) {
        pid_t p = fork();
        if (p == 0) { pause(); _exit(0); }
        if (p < 0) break;
    }
    if (n >= 200) breached = 1;""")
    g = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, processes=32))
    assert g.status == "ok", g.message
    if sandbox.privileged():
        time.sleep(0.5)
        assert sandbox_processes() == []        # the sandbox's pid namespace took them all with it


def test_a_fork_bomb_is_a_failed_grade_and_the_judge_lives(corpus, toolchains, policy):
    cand = gemm_observing("""
    for (;;) fork();""")
    started = time.monotonic()
    g = grade_gemm(corpus, toolchains, cand, attrs.evolve(policy, processes=32, timeout_seconds=5))
    assert g.status in ("crashed", "error", "timeout"), g.status
    assert time.monotonic() - started < 60
    assert subprocess.run(["true"], timeout=10).returncode == 0      # this process can still fork
    if sandbox.privileged():
        deadline = time.monotonic() + 5
        while sandbox_processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sandbox_processes() == []
    # ... and the next grade is fine.
    ok = grade_gemm(corpus, toolchains, Candidate((EXAMPLES / "gemm.c").read_text(), "c"), policy)
    assert ok.status == "ok", ok.message


def test_compile_sees_only_its_source_and_the_toolchain(toolchains, tmp_path):
    header = tmp_path / "secret.h"
    header.write_text("#define SECRET 42\n")
    cache = tmp_path / "cache"
    source = f'#include "{header}"\nint f(void) {{ return SECRET; }}\n'
    inside = build(Candidate(source, "c"), toolchains, cache_root=cache, sandbox="bubblewrap")
    assert not inside.ok and "No such file" in inside.diagnostics and inside.library is None
    again = build(Candidate(source, "c"), toolchains, cache_root=cache, sandbox="bubblewrap")
    assert again.cached and not again.ok and again.key == inside.key      # the error is cached
    outside = build(Candidate(source, "c"), toolchains, cache_root=cache, sandbox="none")
    assert outside.ok and outside.key != inside.key        # the control; and never served sandboxed

    # Another agent's source in the same cache is out of sight too.
    other = build(Candidate("int other_agents_code(void) { return 7; }\n", "c"), toolchains, cache_root=cache,
                  sandbox="bubblewrap")
    assert other.ok
    theirs = other.library.parent / "candidate.c"
    assert theirs.is_file()
    peek = build(Candidate(f'#include "{theirs}"\n', "c"), toolchains, cache_root=cache, sandbox="bubblewrap")
    assert not peek.ok and "No such file" in peek.diagnostics
    # A correct source builds, and its library is ours again (not the sandbox user's).
    fine = build(Candidate("#include <math.h>\ndouble g(double x) { return sqrt(x); }\n", "c"), toolchains,
                 cache_root=cache, sandbox="bubblewrap")
    assert fine.ok and fine.library.stat().st_uid == os.getuid()


def test_a_sandboxed_build_needs_bubblewrap(toolchains, tmp_path, monkeypatch):
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(tmp_path / "no-bwrap"))
    assert sandbox.available()[0] is False and sandbox.BWRAP_ENV in sandbox.available()[1]
    assert pinned(Policy()).sandbox == "none"          # auto: none where bubblewrap cannot run
    with pytest.raises(sandbox.SandboxError):
        build(Candidate("int f(void) { return 1; }\n", "c"), toolchains, cache_root=tmp_path, sandbox="bubblewrap")
    assert not list(tmp_path.glob("*/*/build.json"))     # nothing was cached for it


def test_serve_refuses_without_bubblewrap_unless_unsandboxed(start_judge, tmp_path, monkeypatch):
    env = dict(os.environ, **{sandbox.BWRAP_ENV: "/nonexistent/bwrap"}, HPCAB_SLOT_DIR=str(tmp_path / "slots"))
    proc = subprocess.run([sys.executable, "-m", "hpcab", "serve", "--db", str(tmp_path / "refused.db"),
                           "--port", "0", "--kernels", "gemm"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "--unsandboxed" in proc.stderr and "bubblewrap" in proc.stderr and "/nonexistent/bwrap" in proc.stderr

    monkeypatch.setenv(sandbox.BWRAP_ENV, "/nonexistent/bwrap")
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1", "--unsandboxed")
    assert_judge_sandbox(judge, "none")


def assert_judge_sandbox(judge, mode: str) -> None:
    """/health says mode, and a graded submission's recorded policy too."""
    client = judge.client()
    assert client.health()["sandbox"] == mode
    doc = client.submit("gemm", (EXAMPLES / "gemm.c").read_text(), "c")
    assert doc["correct"], doc
    conn = sqlite3.connect(judge.db)
    try:
        (policy,) = conn.execute("SELECT policy FROM grades WHERE id = ?", (doc["id"],)).fetchone()
    finally:
        conn.close()
    assert json.loads(policy)["sandbox"] == mode


def test_serve_is_sandboxed_by_default(start_judge):
    judge = start_judge("--kernels", "gemm", "--target-seconds", "0.05", "--sessions", "2", "--workers", "1")
    assert_judge_sandbox(judge, "bubblewrap")
