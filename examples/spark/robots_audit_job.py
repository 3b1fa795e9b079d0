"""robots-audit on Apache Spark: one night's logs audited by many executors, one report.

    spark-submit [--master URL] examples/spark/robots_audit_job.py \
        --binary PATH --out DIR [audit options] LOG...

The driver lists the inputs as `robots-audit audit` would (a directory stands for its regular
files in natural order, `access.log.2` before `access.log.10`, selected by --include and
--exclude; local paths and any Hadoop file system URI such as s3a://, gs://, hdfs://),
cuts the list into contiguous runs of whole files whose byte totals are as even as possible (a
gzip file is never split), and runs one task per run, biggest first. Each task runs the shipped
binary, `audit` over its run, and returns its report directory to the driver as a tar archive;
the driver merges the task reports with `robots-audit merge`, in argument order, into --out.

Why contiguous runs: `merge` concatenates the rows of violations.csv, decisions.csv, inputs.csv
... in the order of its arguments, so task reports that each hold a contiguous run of the
argument list, merged in run order, give the rows of one audit over the whole list in its order.
Interleaved assignments (files dealt out biggest first to the least loaded task) would need one
audit and one report per file to restore that order; runs chosen to minimise the largest run's
bytes balance as well whenever a night has more files than tasks, with one audit per task.

File names: reports name inputs and robots sources by the path strings the audit was given. Each
task therefore runs the binary in a scratch directory in which every relative path and every URI
of the command line resolves, under the very string the user wrote, to the file it stands for (a
symbolic link to a local file or to the shipped copy of a robots source, a local copy of a remote
input). Absolute local paths are passed as they are: they must exist on every executor.

Runs one audit would not cut: a run whose every file is unreadable (its audit exits 1, where one
audit over the night exits 3), and content two runs both read (`merge` counts it once, one audit
as often as it was given), would make the merged reports differ from one audit's; the driver
audits the runs concerned again, joined to their neighbours, before it merges.

Retries: a task attempt that fails in a way another attempt may not (the binary killed by a
signal, an audit that could not write its report, a copy or an unpacking that raised) raises, and
Spark runs the task again, up to spark.task.maxFailures attempts; an attempt starts from an empty
scratch directory, and only one attempt's report per run reaches the driver. What another attempt
would repeat (the audit's verdict, exit 0 or 3; a usage error, exit 2; any other exit 1) is the
task's result, as below.

Exit code: the merge's, which judges the night as a whole (input errors anywhere, nothing judged
anywhere); when a task fails, the worst of the failed tasks' codes, and nothing is merged; when
Spark gives up on a task after its attempts, 1, naming the task and its last error, and nothing
is merged.
"""

import csv
import ctypes
import io
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile

# The `audit` options that take a value, and those of them that name files to ship with the job.
VALUE_OPTIONS = {
    "--robots",
    "--origin",
    "--format",
    "--field",
    "--grace",
    "--bots",
    "--verify",
    "--user-agent",
    "--dns-cache",
    "--dns-ttl",
    "--dns-server",
    "--dns-timeout",
    "--dns-budget",
    "--threads",
    "--timezone",
    "--haproxy-captures",
    "--include",
    "--exclude",
}
# Options the driver applies itself when it lists a directory's files: a task is given the
# files, and a file named on the command line is always read.
LISTING_OPTIONS = {"--include", "--exclude"}
FLAG_OPTIONS = {
    "--trust-forwarded",
    "--strict",
    "--all-agents",
    "--offline",
    "--decisions",
    "--no-html",
    "--raw-csv",
    "--wait",
    "-q",
    "--quiet",
}
SHIPPED_OPTIONS = {"--robots", "--bots", "--verify"}
# The flags `merge` takes as `audit` does: how much it says, whether it renders report.html, and
# which cells the reports were made with (it refuses --raw-csv reports without the flag).
MERGE_FLAGS = {"-q", "--quiet", "--no-html", "--wait", "--raw-csv"}

# The job's archives hold plain files and directories only: Python's "data" filter (where
# it has one) refuses anything else, such as links out of the extraction directory.
EXTRACT = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}

EXIT_OK, EXIT_FATAL, EXIT_USAGE, EXIT_INPUT_ERRORS = 0, 1, 2, 3
# How bad each exit code is: usage errors and fatal failures outrank a run with input errors.
SEVERITY = {EXIT_OK: 0, EXIT_INPUT_ERRORS: 1, EXIT_FATAL: 2, EXIT_USAGE: 3}

# What the audit says when none of its inputs could be read (src/audit/mod.rs).
NO_READABLE_INPUT = b"no readable input ("
# What the audit says, exit 1, when it cannot write its own output or start its threads: the
# executor's disk, quota or process limits, which another attempt may not meet. The messages
# are those of src/commit/mod.rs (CommitError), src/cmd/audit.rs, src/audit/auditor.rs
# (`write_failed`), src/audit/schedule.rs and crates/bots/src/dns.rs (DnsError::CacheWrite,
# the task's own copy of --dns-cache).
EXECUTOR_FAILURE = re.compile(
    rb"^robots-audit: (?:cannot write into --out |cannot write reports[ :]|cannot create --out "
    rb"|cannot lock |cannot clear what an interrupted run left beside --out "
    rb"|cannot start [0-9]+ worker threads: |DNS cache .*: cannot write: )",
    re.MULTILINE,
)
# The audit's exit code when SIGINT, SIGTERM or SIGHUP stopped it (docs/guide/exit-codes.md).
EXIT_INTERRUPTED = 130
# How a task attempt's failure begins, so that the driver finds it in Spark's report of the
# last attempt (a Java stack trace around a Python one).
ATTEMPT_FAILED = "robots-audit task "

# Not named .tar: SparkContext.addFile unpacks files so named on executors.
ARCHIVE_NAME = "robots-audit-job-sources.bundle"
MANIFEST_COLUMNS = ("origin", "valid_from", "status", "file")
USAGE = (
    "usage: spark-submit [--master URL] robots_audit_job.py --binary PATH --out DIR "
    "[audit options] LOG..."
)


class UsageError(Exception):
    """Wrong command line (exit 2)."""


class FatalError(Exception):
    """Nothing could be audited (exit 1)."""


class AttemptFailed(Exception):
    """A failure of one attempt at a task that another attempt may not meet (a copy from object
    storage that failed, a disk that filled, the binary killed by a signal): the task raises it
    so that Spark runs the task again, up to spark.task.maxFailures attempts in all."""

    def __init__(self, index, reason):
        # One line: the driver reads it back out of Spark's report of the last attempt.
        super().__init__(f"{ATTEMPT_FAILED}{index}: {' '.join(reason.split())}")


def transient_failure(code, stderr):
    """Why an audit that ended with `code`, saying `stderr`, failed in a way another attempt may
    not (the reason, for the message), or None when its exit code is the run's result: 0 and 3
    (its verdict on its inputs), 2 (usage), an exit 1 about its inputs or robots sources, a panic
    (101): another attempt would end the same way."""
    said = stderr.decode("utf-8", "replace").strip().splitlines()
    last_words = f"; it said: {said[-1]}" if said else ""
    if code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        # The OOM killer, a pre-empted or shrinking node, an operator's kill.
        return f"the audit was killed by signal {-code}{name}{last_words}"
    if code == EXIT_INTERRUPTED:
        return f"the audit was stopped by a signal (exit {code}){last_words}"
    if code == EXIT_FATAL and NO_READABLE_INPUT not in stderr:
        failure = EXECUTOR_FAILURE.search(stderr)
        if failure:
            line = stderr[failure.start() :].split(b"\n", 1)[0].decode("utf-8", "replace")
            return f"the audit could not write its report on this executor: {line}"
    return None


def worst(codes):
    """The worst of several exit codes; an unknown code or a signal counts as fatal."""
    known = [c if c in SEVERITY else EXIT_FATAL for c in codes]
    return max(known, key=SEVERITY.get, default=EXIT_OK)


def is_uri(path):
    """A Hadoop file system URI (scheme://...), as opposed to a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme[:1].isalpha() and all(c.isalnum() or c in "+.-" for c in scheme)


def local_path_of_uri(uri):
    """The local path of a file: URI, or None for any other scheme."""
    if uri.startswith("file://"):
        return uri[len("file://") :] or "/"
    return None


# ---------------------------------------------------------------------------------------------
# Command line


def parse_args(argv):
    """Splits the command line into the job's own options, the audit options and the LOGs."""
    binary = out = None
    audit_options = []  # (option, value or None), in order
    logs = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            logs.extend(argv[i + 1 :])
            break
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in ("--binary", "--out") or name in VALUE_OPTIONS:
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise UsageError(f"{name} needs a value")
            if name == "--binary":
                binary = value
            elif name == "--out":
                out = value
            else:
                audit_options.append((name, value))
        elif name in FLAG_OPTIONS:
            if eq:
                raise UsageError(f"{name} takes no value")
            audit_options.append((name, None))
        elif arg.startswith("-") and len(arg) > 1:
            raise UsageError(f"unknown option {arg}")
        else:
            logs.append(arg)
        i += 1
    if binary is None:
        raise UsageError("--binary PATH (the robots-audit executable to ship) is required")
    if out is None:
        raise UsageError("--out DIR is required")
    if not logs:
        raise UsageError("at least one LOG is required")
    if "-" in logs:
        # After `--` too: the audit reads standard input for `-` wherever it stands.
        raise UsageError("standard input (-) cannot be spread over tasks: name the files")
    if not any(o == "--robots" for o, _ in audit_options):
        raise UsageError("at least one --robots PATH is required (as for audit)")
    return binary, out, audit_options, logs


def shipped_path(option, value):
    """The file or directory an audit option names, or None when it names none."""
    if option not in SHIPPED_OPTIONS:
        return None
    if option == "--verify":
        if value == "dns":
            return None
        # BOT=PATH, unless the whole value names an existing file (the audit's own rule).
        key, eq, path = value.partition("=")
        if eq and key and "/" not in key and not os.path.exists(value) and not is_uri(value):
            return path
    return value


# ---------------------------------------------------------------------------------------------
# Listing the inputs (driver)


class Input:
    """One log file: its position in the expanded argument list, the name one audit would show,
    where a task reads it from, and its size in bytes."""

    def __init__(self, position, name, location, size):
        self.position = position
        self.name = name
        self.location = location  # an absolute local path, or a URI
        self.size = size


class HadoopFs:
    """Hadoop's FileSystem through Spark's JVM gateway: lists and copies any URI Spark reads."""

    def __init__(self, sc):
        self.jvm = sc._jvm
        self.gateway = sc._gateway
        self.conf = sc._jsc.hadoopConfiguration()

    def _fs(self, uri):
        path = self.jvm.org.apache.hadoop.fs.Path(uri)
        return path, path.getFileSystem(self.conf)

    def list(self, uri):
        """[(name, size)] of the regular files `uri` stands for, as `audit` expands a LOG, or
        None when `uri` does not exist."""
        path, fs = self._fs(uri)
        if not fs.exists(path):
            return None
        status = fs.getFileStatus(path)
        if not status.isDirectory():
            return [(uri, status.getLen())]
        files = [s for s in fs.listStatus(path) if s.isFile()]
        return [(join(uri, s.getPath().getName()), s.getLen()) for s in files]

    def copy_to_local(self, uri, local):
        """Copies a file or directory `uri` to the local path `local`, a stream per file. Not
        FileSystem.copyToLocalFile: it rebuilds each child's path from its name, which Hadoop
        refuses when the name holds a colon, as dated robots versions' names do."""
        path = self.jvm.org.apache.hadoop.fs.Path(uri)
        # A file system of its own: checksum files (.NAME.crc) are skipped, as their names
        # would hold the colon too, without changing the instance Spark shares.
        fs = self.jvm.org.apache.hadoop.fs.FileSystem.newInstance(path.toUri(), self.conf)
        try:
            fs.setVerifyChecksum(False)
            self._copy(fs, fs.getFileStatus(path), local)
        finally:
            fs.close()

    def _copy(self, fs, status, local):
        if status.isDirectory():
            os.makedirs(local, exist_ok=True)
            for child in fs.listStatus(status.getPath()):
                self._copy(fs, child, os.path.join(local, child.getPath().getName()))
            return
        options = self.gateway.new_array(self.jvm.java.nio.file.CopyOption, 0)
        stream = fs.open(status.getPath())
        try:
            target = self.jvm.java.nio.file.Paths.get(
                local, self.gateway.new_array(self.jvm.java.lang.String, 0)
            )
            self.jvm.java.nio.file.Files.copy(stream, target, options)
        finally:
            stream.close()


def join(directory, name):
    """`directory/name` as Rust's Path::join writes it (the audit's names for a directory's files)."""
    return directory + name if directory.endswith("/") else directory + "/" + name


def natural_key(name):
    """Sorts names as `audit` does (src/audit/inputs.rs, `natural_order`): runs of digits
    compare as numbers, leading zeros aside, the rest byte by byte, and names equal that way
    by their bytes."""
    raw = os.fsencode(name) if isinstance(name, str) else name
    parts = []
    for run in re.findall(rb"[0-9]+|[^0-9]", raw):
        if run[:1].isdigit():
            # A run of digits stands where its first byte would: no other byte lies between
            # "0" and "9", so against any other byte it compares as that byte would.
            digits = run.lstrip(b"0")
            parts.append((ord("0"), len(digits), digits))
        else:
            parts.append((run[0], 0, b""))
    return (parts, raw)


def glob_regex(pattern, flag):
    """The regular expression of an --include or --exclude glob, in the syntax of the `globset`
    crate `audit` uses (src/audit/inputs.rs): `*`, `?`, `**/` (any directories or none),
    `[...]` (`[!...]` and `[^...]` negated, `]` first and `-` first or last literal), `{a,b}`
    (nested too) and a backslash escaping the next character. What globset refuses is a usage
    error, as for `audit`."""

    def refuse(why):
        raise UsageError(f"{flag} {pattern!r} is not a glob: {why}")

    branches = [[]]  # the branches of the open alternations, innermost last
    opened = []  # for each open alternation, where its branches start in `branches`
    i = 0
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if c == "?":
            branches[-1].append(".")
        elif (
            c == "*"
            and pattern.startswith("*/", i)
            and (not branches[-1] or pattern[i - 2] == "/")
        ):
            # `**/` at the start of a pattern, of an alternate, or after a `/`: any directories
            # or none, so `**/x` selects the name `x`.
            branches[-1].append("(?:.*/)?")
            i += 2
        elif c == "*":
            branches[-1].append(".*")
        elif c == "\\":
            if i == len(pattern):
                refuse("dangling '\\'")
            branches[-1].append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            negated = i < len(pattern) and pattern[i] in "!^"
            i += negated
            ranges, first, in_range = [], True, False
            while True:
                if i == len(pattern):
                    refuse("unclosed character class; missing ']'")
                c = pattern[i]
                i += 1
                if c == "]" and not first:
                    break
                if c == "-" and not first and not in_range:
                    in_range = True
                elif in_range:
                    if c < ranges[-1][0]:
                        refuse(f"invalid range; '{ranges[-1][0]}' > '{c}'")
                    ranges[-1] = (ranges[-1][0], c)
                    in_range = False
                else:
                    ranges.append((c, c))
                first = False
            if in_range:
                ranges.append(("-", "-"))
            body = "".join(f"{re.escape(a)}-{re.escape(b)}" for a, b in ranges)
            branches[-1].append(f"[{'^' if negated else ''}{body}]")
        elif c == "{":
            opened.append(len(branches))
            branches.append([])
        elif c == "}":
            if not opened:
                refuse("unopened alternate group; missing '{'")
            start = opened.pop()
            alternates = ["".join(b) for b in branches[start:]]
            del branches[start:]
            branches[-1].append("(?:" + "|".join(alternates) + ")")
        elif c == "," and opened:
            branches.append([])
        else:
            branches[-1].append(re.escape(c))
    if opened:
        refuse("unclosed alternate group; missing '}'")
    return re.compile("".join(branches[0]), re.DOTALL)


class NameFilter:
    """--include and --exclude, matched against a file's name within its directory as
    `audit` matches them; a pattern that is no glob is a usage error (UsageError)."""

    def __init__(self, audit_options):
        def globs(flag):
            return [(v, glob_regex(v, flag)) for o, v in audit_options if o == flag]

        self.include = globs("--include")
        self.exclude = globs("--exclude")

    def selects(self, name):
        def matches(globs):
            return any(regex.fullmatch(name) for _, regex in globs)

        if self.include and not matches(self.include):
            return False
        return not matches(self.exclude)

    def describe(self):
        flags = [f"--include {g}" for g, _ in self.include]
        flags += [f"--exclude {g}" for g, _ in self.exclude]
        return " ".join(flags)


def list_local(arg, name_filter):
    """[(name, absolute path, size)] of the files a local LOG argument stands for."""
    if os.path.isdir(arg):
        entries = os.listdir(arg)
        # The audit keeps every entry that is a regular file, and those it cannot stat.
        names = []
        for entry in entries:
            full = join(arg, entry)
            try:
                if stat.S_ISREG(os.stat(full).st_mode):
                    names.append(entry)
            except OSError:
                names.append(entry)
        if not names:
            raise FatalError(
                f"log directory {arg} holds no file to read (its subdirectories are not read)"
            )
        selected = [n for n in names if name_filter.selects(n)]
        if not selected:
            raise FatalError(
                f"log directory {arg} holds {len(names)} file{'s' if len(names) != 1 else ''},"
                f" and {name_filter.describe()} leaves out every one"
            )
        names = sorted(selected, key=natural_key)
        return [(join(arg, n), location(join(arg, n)), size_of(join(arg, n))) for n in names]
    # A missing or unreadable file is still an input: the audit lists it with its error.
    return [(arg, location(arg), size_of(arg))]


def location(name):
    """The absolute path of a local input as the kernel resolves `name` from the driver's
    working directory: `..` is left for the kernel to step back out of where a symbolic link
    leads, where os.path.abspath would drop it with the component before it."""
    return os.path.join(os.getcwd(), name)


def size_of(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def list_inputs(logs, hadoop, name_filter):
    """Every input file in the order one audit would read them."""
    inputs = []
    for arg in logs:
        if is_uri(arg):
            listed = hadoop.list(arg)
            if listed is None:
                raise FatalError(f"{arg} does not exist")
            if not listed:
                raise FatalError(f"log directory {arg} holds no file to read")
            if len(listed) > 1 or listed[0][0] != arg:
                names = [(name[len(arg) :].lstrip("/"), name, size) for name, size in listed]
                kept = [n for n in names if name_filter.selects(n[0])]
                if not kept:
                    raise FatalError(
                        f"log directory {arg} holds {len(names)} file{'s' if len(names) != 1 else ''},"
                        f" and {name_filter.describe()} leaves out every one"
                    )
                listed = [(name, size) for _, name, size in sorted(kept, key=lambda n: natural_key(n[0]))]
            entries = [(name, name, size) for name, size in listed]
        else:
            entries = list_local(arg, name_filter)
        for name, location, size in entries:
            inputs.append(Input(len(inputs), name, location, size))
    return inputs


def contiguous_runs(sizes, tasks):
    """Cuts `sizes` (in order) into at most `tasks` contiguous runs whose largest byte total is
    the smallest possible; returns the runs as (start, end) index pairs. Every file weighs at
    least one byte, so empty files are spread too."""
    weights = [max(s, 1) for s in sizes]
    if not weights:
        return []

    def cuts(limit):
        runs, start, total = [], 0, 0
        for i, w in enumerate(weights):
            if total + w > limit and i > start:
                runs.append((start, i))
                start, total = i, 0
            total += w
        runs.append((start, len(weights)))
        return runs

    low, high = max(weights), sum(weights)
    while low < high:
        mid = (low + high) // 2
        if len(cuts(mid)) <= tasks:
            high = mid
        else:
            low = mid + 1
    return cuts(low)


# ---------------------------------------------------------------------------------------------
# One task (executor)


def place(cwd, name, target):
    """Makes `name` (relative to `cwd`) lead to `target`: a symbolic link, in a directory made
    for it. A name already placed (the same file given twice) is left alone."""
    link = os.path.normpath(os.path.join(cwd, name))
    # The audit opens `name` as written, so every directory it walks through must be there,
    # those a `..` steps back out of included (`other/../logs/a.gz`).
    os.makedirs(os.path.join(cwd, os.path.dirname(name)), exist_ok=True)
    if os.path.lexists(link):
        return
    os.symlink(target, link)


def depth_needed(names):
    """How many directories deep the scratch working directory must be so that every relative
    name, `..` components included, stays inside the scratch directory."""
    deepest = 0
    for name in names:
        depth = 0
        for part in name.split("/"):
            if part == "..":
                depth -= 1
                deepest = min(deepest, depth)
            elif part not in ("", "."):
                depth += 1
    return -deepest


def fetch_remote(uri, local):
    """Copies a remote input to local disk on an executor (executors have no JVM gateway): a
    file: URI directly, others with fsspec when the executors' Python has it (s3fs, gcsfs, ...),
    else with the Hadoop command-line client when it is on the PATH (YARN nodes)."""
    if local_path_of_uri(uri) is not None:
        shutil.copyfile(local_path_of_uri(uri), local)
        return
    try:
        import fsspec  # noqa: PLC0415 (optional: only for remote inputs)

        protocol = uri.split("://", 1)[0]
        # Hadoop's S3A connector and fsspec's s3fs read the same buckets.
        fs_uri = "s3://" + uri.split("://", 1)[1] if protocol in ("s3a", "s3n") else uri
        with fsspec.open(fs_uri, "rb") as source, open(local, "wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
        return
    except ImportError:
        pass
    hadoop = shutil.which("hadoop")
    if hadoop is None:
        raise FatalError(
            f"cannot read {uri} on this executor: install fsspec (with s3fs or gcsfs) in the "
            "executors' Python, or put the hadoop command on their PATH"
        )
    subprocess.run([hadoop, "fs", "-copyToLocal", uri, local], check=True)


def run_task(run, job):
    """Audits one run of inputs on an executor (one Spark task): `audit_run` in the executor's
    own working space (under spark.local.dir, YARN's local directories or the pod's work
    directory), which Spark cleans up after the application too."""
    from pyspark import SparkFiles  # noqa: PLC0415 (executor side)

    return audit_run(run, job, SparkFiles.getRootDirectory(), SparkFiles.get)


# prctl(2)'s request that a signal be sent to the calling process when its parent exits.
PR_SET_PDEATHSIG = 1


def dies_with_this_process():
    """A preexec_fn that makes the audit's process die when this one does, or None where the
    kernel has no such request (prctl is Linux's). When Spark kills a task (a speculative copy
    that lost, a cancelled job, a lost executor), it kills the Python worker with SIGKILL, which
    nothing in Python can catch: without this the audit would run on, orphaned, beside the next
    attempt, for as long as its run takes. SIGKILL, not SIGTERM: an attempt's report is thrown
    away with its scratch directory, and the commit protocol leaves nothing half-written."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec():
        # Runs in the child between fork and exec: the ctypes function is bound beforehand, so
        # the child calls into libc and the kernel only, and takes no lock another thread of
        # the worker might have held at the fork.
        if prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0 and os.getppid() != parent:
            # The worker died between the fork and the request: the signal will never come.
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def audit_run(run, job, workspace, shipped_file):
    """Audits one run of inputs in a scratch directory of its own under `workspace`, with the
    files the driver shipped (`shipped_file(name)` is where one is); returns (run index, exit
    code, stderr, tar archive of the report directory or None). A failure another attempt may
    not meet raises AttemptFailed, so that Spark runs the task again; the scratch directory goes
    with every attempt, so an attempt starts from nothing and its report is the run's whole."""
    index, inputs = run
    scratch = tempfile.mkdtemp(prefix="robots-audit-task-", dir=workspace)
    try:
        binary = os.path.join(scratch, "robots-audit")
        shutil.copyfile(shipped_file(job["binary_name"]), binary)
        os.chmod(binary, 0o755)
        shipped = os.path.join(scratch, "shipped")
        with tarfile.open(shipped_file(ARCHIVE_NAME)) as archive:
            archive.extractall(shipped, **EXTRACT)

        relative = [i["name"] for i in inputs if not i["name"].startswith("/")]
        relative += [name for name, _ in job["sources"]]
        cwd = os.path.join(scratch, "cwd", *(["d"] * depth_needed(relative)))
        os.makedirs(cwd)
        for name, member in job["sources"]:
            place(cwd, name, os.path.join(shipped, member))
        for item in inputs:
            name, location = item["name"], item["location"]
            if is_uri(location):
                copy = os.path.normpath(os.path.join(cwd, name))
                os.makedirs(os.path.dirname(copy), exist_ok=True)
                fetch_remote(location, copy)
            elif not name.startswith("/"):
                place(cwd, name, location)

        report = os.path.join(scratch, "report")
        # The merge renders report.html from the task reports' states: tasks write none.
        command = [binary, "audit", "-q", "--no-html", "--out", report]
        for option, value in job["audit_options"]:
            if option in ("-q", "--quiet", "--no-html"):
                continue
            if option == "--dns-cache":
                # Each task reads its own copy; the job never writes the user's cache back.
                value = os.path.join(shipped, job["dns_cache_member"])
            command += [option] if value is None else [option, value]
        if job["threads"]:
            command += ["--threads", str(job["threads"])]
        command += ["--"] + [i["name"] for i in inputs]
        done = subprocess.run(
            command,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=dies_with_this_process(),
        )
        reason = transient_failure(done.returncode, done.stderr)
        if reason is not None:
            raise AttemptFailed(index, reason)
        archive = None
        if os.path.isdir(report):
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
                tar.add(report, arcname="report")
            archive = buffer.getvalue()
        return index, done.returncode, done.stderr, archive
    except AttemptFailed:
        raise
    except FatalError as error:
        # This executor has no client for a URI's scheme: every attempt would meet it.
        return index, EXIT_FATAL, f"task {index}: {error}\n".encode(), None
    except Exception as error:  # noqa: BLE001
        # Copying the binary, unpacking the shipped sources, copying an input from object
        # storage, archiving the report: the executor's disk, memory or network, or the
        # storage's, none of them the run's own.
        raise AttemptFailed(index, f"{type(error).__name__}: {error}") from error
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Driver


def manifest_files(path):
    """The `file` column of a robots manifest CSV (relative to the manifest), or [] when `path`
    is not one: a `.csv` file, or a file whose header names the manifest's columns."""
    try:
        with open(path, "rb") as f:
            body = f.read()
    except OSError:
        return []
    text = body.decode("utf-8", "surrogateescape").lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    header = [cell.strip().lower() for cell in rows[0]]
    if not (path.lower().endswith(".csv") or set(header) & set(MANIFEST_COLUMNS)):
        return []
    if "file" not in header:
        return []
    column = header.index("file")
    return [row[column] for row in rows[1:] if len(row) > column and row[column]]


def ship_sources(sc, hadoop, audit_options, staging):
    """Archives every robots source (with the files a manifest names), catalog and range file
    the audit options name, and ships the archive with SparkContext.addFile (one archive:
    addFile refuses two files of one name, and sources from several directories often share
    names such as robots.txt). Returns the (name on the command line, member in the archive)
    pairs and the DNS cache's member."""
    sources, dns_cache_member = [], None
    archive_path = os.path.join(staging, ARCHIVE_NAME)
    counter = iter(range(1 << 30))

    def fetch(path):
        """A local copy (or the local path itself) of a source, and its archive member."""
        number = next(counter)
        base = os.path.basename(path.rstrip("/")) or "root"
        if is_uri(path):
            local = os.path.join(staging, "remote", str(number), base)
            os.makedirs(os.path.dirname(local))
            hadoop.copy_to_local(path, local)
        else:
            local = path
        return local, f"{number}/{base}"

    with tarfile.open(archive_path, "w", dereference=True) as archive:

        def ship(option, path):
            local, member = fetch(path)
            if not os.path.exists(local):
                raise FatalError(f"{option} {path} does not exist")
            if not path.startswith("/"):
                archive.add(local, arcname=member, recursive=True)
                sources.append((path, member))
            # An absolute path is used where it is: it must exist on every executor.
            if option == "--robots" and os.path.isfile(local):
                for name in manifest_files(local):
                    if not name.startswith("/"):
                        ship(option, os.path.join(os.path.dirname(path), name))

        for option, value in audit_options:
            if option == "--dns-cache":
                local, member = fetch(value)
                if os.path.exists(local):
                    archive.add(local, arcname=member)
                dns_cache_member = member
            elif shipped_path(option, value) is not None:
                ship(option, shipped_path(option, value))
    sc.addFile(archive_path)
    return sources, dns_cache_member


class TaskReport:
    """What the task of one run left on the driver: its audit's exit code and standard error,
    and its report directory (None when it wrote none)."""

    def __init__(self, code, stderr, report):
        self.code = code
        self.stderr = stderr
        self.report = report

    def unreadable(self):
        """Whether the audit found no readable input in the run: an error of the run alone
        when other runs have readable files, since one audit over them all would list these
        files with their errors and exit 3."""
        return self.report is None and self.code == EXIT_FATAL and NO_READABLE_INPUT in self.stderr

    def fingerprints(self):
        """The content fingerprints of the run's inputs (those read), from its state.json."""
        with open(os.path.join(self.report, "state.json"), "rb") as f:
            state = json.load(f)
        return [i["fingerprint"] for i in state["payload"]["inputs"] if i["fingerprint"]]


def joined_runs(runs, unreadable, fingerprints):
    """The runs to audit instead of `runs` (in order) so that merging their reports gives one
    audit's: a run of unreadable files only (position in `unreadable`) joins its next run (its
    previous, for the last), and content held by two runs (`fingerprints`, per run) joins
    every run from the first that holds it to the last, since `merge` would count it once
    where one audit counts it as often as it was given. Returns `runs` when nothing joins."""
    joined = [False] * len(runs)  # joined[k]: run k and run k + 1 become one
    for k in unreadable:
        if len(runs) > 1:
            joined[min(k, len(runs) - 2)] = True
    first = {}
    for k, prints in enumerate(fingerprints):
        for f in prints:
            for j in range(first.setdefault(f, k), k):
                joined[j] = True
    result = []
    for k, (start, end) in enumerate(runs):
        if k > 0 and joined[k - 1]:
            result[-1] = (result[-1][0], end)
        else:
            result.append((start, end))
    return result


def gave_up(failure, runs_by_partition):
    """What to say when Spark gave up on the job, from its `failure` text (which tells the
    partition that failed, how often, and its last attempt's error): the task (the run index,
    `runs_by_partition[partition]`), its attempts and its last error."""
    ours = re.findall(re.escape(ATTEMPT_FAILED) + r"([0-9]+): ([^\n]*)", failure)
    counted = re.search(r"Task ([0-9]+) in stage \S+ failed ([0-9]+) times?", failure)
    lines = failure.strip().splitlines() or ["no reason given"]
    if ours:
        task, error = ours[-1]
    elif counted and int(counted.group(1)) < len(runs_by_partition):
        # Lost with its executor or its Python worker: Spark's own words for the last attempt.
        task = runs_by_partition[int(counted.group(1))]
        last = re.search(r"most recent failure: ([^\n]*)", failure)
        error = last.group(1) if last else lines[0]
    else:
        return f"Spark gave up on the job: {lines[0]}; nothing merged into --out"
    tries = int(counted.group(2)) if counted else 0
    if tries > 1:
        attempts = f" on all {tries} attempts, as many as spark.task.maxFailures allows"
    elif tries == 1:
        attempts = (
            " on its one attempt (spark.task.maxFailures is 1, as in local mode unless the master"
            " is 'local[N,F]')"
        )
    else:
        attempts = ""
    return f"task {task} failed{attempts}; its last error: {error}; nothing merged into --out"


def audit_runs(sc, job, inputs, runs, positions, staging, round_number):
    """Audits the runs at `positions` of `runs` (index pairs into `inputs`), one task each,
    biggest first; returns {run: TaskReport}. Each round's reports go to directories of their
    own: a report of a run that was then joined to another is never merged."""
    work = [
        (k, [{"name": i.name, "location": i.location} for i in inputs[slice(*runs[k])]])
        for k in positions
    ]
    # Biggest run first: Spark starts partitions in order, so the longest task starts first.
    work.sort(key=lambda w: -sum(inputs[i].size for i in range(*runs[w[0]])))
    from py4j.protocol import Py4JJavaError  # noqa: PLC0415 (driver side, with pyspark)

    try:
        results = sc.parallelize(work, len(work)).map(lambda run: run_task(run, job)).collect()
    except Py4JJavaError as error:
        raise FatalError(gave_up(str(error), [k for k, _ in work])) from None
    reports = {}
    for index, code, stderr, archive in results:
        report = None
        if archive is not None:
            target = os.path.join(staging, "reports", f"{round_number}-{index:05}")
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(target, **EXTRACT)
            report = os.path.join(target, "report")
        reports[runs[index]] = TaskReport(code, stderr, report)
    return reports


def run_job(sc, binary, out, audit_options, logs, name_filter):
    """Lists, spreads, audits and merges; returns the exit code."""
    hadoop = HadoopFs(sc)
    inputs = list_inputs(logs, hadoop, name_filter)
    tasks = max(1, min(sc.defaultParallelism, len(inputs)))
    runs = contiguous_runs([i.size for i in inputs], tasks)

    staging = tempfile.mkdtemp(prefix="robots-audit-job-")
    try:
        sc.addFile(os.path.abspath(binary))
        sources, dns_cache_member = ship_sources(sc, hadoop, audit_options, staging)
        task_cpus = int(sc.getConf().get("spark.task.cpus", "1"))
        job = {
            "binary_name": os.path.basename(binary),
            "audit_options": audit_options,
            "sources": sources,
            "dns_cache_member": dns_cache_member,
            # One task's audit uses the cores Spark gives the task, unless --threads says.
            "threads": None if any(o == "--threads" for o, _ in audit_options) else task_cpus,
        }
        sys.stderr.write(
            f"robots-audit job: {len(inputs)} files, {sum(i.size for i in inputs)} bytes, "
            f"{len(runs)} tasks\n"
        )
        reports = {}
        round_number = 0
        while True:
            pending = [k for k, r in enumerate(runs) if r not in reports]
            reports.update(audit_runs(sc, job, inputs, runs, pending, staging, round_number))
            done = [reports[r] for r in runs]
            if any(t.report is None and not t.unreadable() for t in done):
                break
            joined = joined_runs(
                runs,
                [k for k, t in enumerate(done) if t.unreadable()],
                [t.fingerprints() if t.report else [] for t in done],
            )
            if joined == runs:
                break
            again = [r for r in joined if r not in reports]
            sys.stderr.write(
                f"robots-audit job: {len(runs) - len(joined) + len(again)} of {len(runs)} runs "
                f"audited again as {len(again)} (a run found no readable input, or two runs "
                "read the same content)\n"
            )
            runs, round_number = joined, round_number + 1

        failed = [
            (k, t)
            for k, t in enumerate(done)
            if t.report is None or t.code not in (EXIT_OK, EXIT_INPUT_ERRORS)
        ]
        if failed:
            for index, task in failed:
                text = task.stderr.decode("utf-8", "replace")
                sys.stderr.write("".join(f"[task {index}] {line}\n" for line in text.splitlines()))
                if task.report is None:
                    sys.stderr.write(
                        f"robots-audit job: task {index} wrote no report (exit {task.code})\n"
                    )
            # A run that could not be audited would be missing from the merge: no partial report.
            sys.stderr.write("robots-audit job: a task failed; nothing merged into --out\n")
            return worst([t.code for _, t in failed] + [EXIT_FATAL])
        for index, task in enumerate(done):
            # The merge names the inputs with errors, and says why nothing was judged, for the
            # whole night: a task's own lines of those would repeat or contradict it.
            text = task.stderr.decode("utf-8", "replace").splitlines()
            warnings = [line for line in text if line.startswith("robots-audit: warning:")]
            sys.stderr.write("".join(f"[task {index}] {line}\n" for line in warnings))
        merge = [os.path.abspath(binary), "merge", "--out", out]
        # Standard error, report.html and cells as one audit with these options would have them.
        merge += [o for o, _ in audit_options if o in MERGE_FLAGS]
        merged = subprocess.run(merge + [t.report for t in done])
        # The merge judges the night as a whole: input errors in any run, or nothing judged in
        # all of them (a run without a bot's request is not a night without one).
        return merged.returncode if merged.returncode >= 0 else EXIT_FATAL
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return EXIT_OK
    try:
        binary, out, audit_options, logs = parse_args(argv)
        name_filter = NameFilter(audit_options)
        if not os.path.isfile(binary):
            raise UsageError(f"--binary {binary} is not a file")
    except UsageError as error:
        sys.stderr.write(f"robots-audit job: {error}\n{USAGE}\n")
        return EXIT_USAGE
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415 (not needed for usage errors)

    sc = SparkContext(conf=SparkConf().setAppName("robots-audit"))
    sc.setLogLevel("WARN")
    try:
        return run_job(sc, binary, out, audit_options, logs, name_filter)
    except FatalError as error:
        sys.stderr.write(f"robots-audit job: {error}\n")
        return EXIT_FATAL
    finally:
        sc.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
