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

Exit code: the worst of the tasks' audits and the merge (0 < 3 < 1 < 2), as `audit` would have it.
"""

import csv
import fnmatch
import io
import os
import re
import shutil
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
    "--threads",
    "--timezone",
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

# The job's archives hold plain files and directories only: Python's "data" filter (where
# it has one) refuses anything else, such as links out of the extraction directory.
EXTRACT = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}

EXIT_OK, EXIT_FATAL, EXIT_USAGE, EXIT_INPUT_ERRORS = 0, 1, 2, 3
# How bad each exit code is: usage errors and fatal failures outrank a run with input errors.
SEVERITY = {EXIT_OK: 0, EXIT_INPUT_ERRORS: 1, EXIT_FATAL: 2, EXIT_USAGE: 3}

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
        elif arg == "-":
            raise UsageError("standard input (-) cannot be spread over tasks: name the files")
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


def expand_braces(pattern):
    """`{a,b}` alternatives of a glob, expanded (fnmatch has none; globset, which `audit`
    uses, has them)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [e for alt in match.group(1).split(",") for e in expand_braces(head + alt + tail)]


class NameFilter:
    """--include and --exclude, matched against a file's name within its directory as
    `audit` matches them (`*`, `?`, `[...]`, `[!...]`, `{a,b}`)."""

    def __init__(self, audit_options):
        def globs(flag):
            return [g for o, v in audit_options if o == flag for g in expand_braces(v)]

        self.include = globs("--include")
        self.exclude = globs("--exclude")

    def selects(self, name):
        if self.include and not any(fnmatch.fnmatchcase(name, g) for g in self.include):
            return False
        return not any(fnmatch.fnmatchcase(name, g) for g in self.exclude)

    def describe(self):
        flags = [f"--include {g!r}" for g in self.include]
        flags += [f"--exclude {g!r}" for g in self.exclude]
        return ", ".join(flags)


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
        return [(join(arg, n), os.path.abspath(join(arg, n)), size_of(join(arg, n))) for n in names]
    # A missing or unreadable file is still an input: the audit lists it with its error.
    return [(arg, os.path.abspath(arg), size_of(arg))]


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
    if os.path.lexists(link):
        return
    os.makedirs(os.path.dirname(link), exist_ok=True)
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
    """Audits one run of inputs on an executor; returns (run index, exit code, stderr, tar
    archive of the report directory or None)."""
    from pyspark import SparkFiles  # noqa: PLC0415 (executor side)

    index, inputs = run
    # The executor's own working space (under spark.local.dir, YARN's local directories or
    # the pod's work directory), which Spark cleans up after the application too.
    scratch = tempfile.mkdtemp(prefix="robots-audit-task-", dir=SparkFiles.getRootDirectory())
    try:
        binary = os.path.join(scratch, "robots-audit")
        shutil.copyfile(SparkFiles.get(job["binary_name"]), binary)
        os.chmod(binary, 0o755)
        shipped = os.path.join(scratch, "shipped")
        with tarfile.open(SparkFiles.get(ARCHIVE_NAME)) as archive:
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
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        archive = None
        if os.path.isdir(report):
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
                tar.add(report, arcname="report")
            archive = buffer.getvalue()
        return index, done.returncode, done.stderr, archive
    except Exception as error:  # noqa: BLE001 (reported to the driver, which decides)
        return index, EXIT_FATAL, f"task {index}: {error}\n".encode(), None
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


def run_job(sc, binary, out, audit_options, logs):
    """Lists, spreads, audits and merges; returns the exit code."""
    hadoop = HadoopFs(sc)
    inputs = list_inputs(logs, hadoop, NameFilter(audit_options))
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
        work = [
            (
                index,
                [{"name": i.name, "location": i.location} for i in inputs[start:end]],
            )
            for index, (start, end) in enumerate(runs)
        ]
        # Biggest run first: Spark starts partitions in order, so the longest task starts first.
        work.sort(key=lambda w: -sum(inputs[k].size for k in range(*runs[w[0]])))
        sys.stderr.write(
            f"robots-audit job: {len(inputs)} files, {sum(i.size for i in inputs)} bytes, "
            f"{len(runs)} tasks\n"
        )
        results = (
            sc.parallelize(work, len(work))
            .map(lambda run: run_task(run, job))
            .collect()
        )
        results.sort(key=lambda r: r[0])

        codes, report_dirs = [], []
        for index, code, stderr, archive in results:
            codes.append(code)
            text = stderr.decode("utf-8", "replace")
            if text:
                sys.stderr.write("".join(f"[task {index}] {line}\n" for line in text.splitlines()))
            if archive is None:
                sys.stderr.write(f"robots-audit job: task {index} wrote no report (exit {code})\n")
                continue
            target = os.path.join(staging, "reports", f"{index:05}")
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(target, **EXTRACT)
            report_dirs.append(os.path.join(target, "report"))
        if len(report_dirs) != len(results) or SEVERITY.get(worst(codes)) >= SEVERITY[EXIT_FATAL]:
            # A run that could not be audited would be missing from the merge: no partial report.
            sys.stderr.write("robots-audit job: a task failed; nothing merged into --out\n")
            return worst(codes + [EXIT_FATAL])
        merge = [os.path.abspath(binary), "merge", "--out", out]
        # Standard error and report.html as one audit with these options would have them.
        merge += [o for o, _ in audit_options if o in ("-q", "--quiet", "--no-html", "--wait")]
        merged = subprocess.run(merge + report_dirs)
        return worst(codes + [merged.returncode])
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return EXIT_OK
    try:
        binary, out, audit_options, logs = parse_args(argv)
        if not os.path.isfile(binary):
            raise UsageError(f"--binary {binary} is not a file")
    except UsageError as error:
        sys.stderr.write(f"robots-audit job: {error}\n{USAGE}\n")
        return EXIT_USAGE
    from pyspark import SparkConf, SparkContext  # noqa: PLC0415 (not needed for usage errors)

    sc = SparkContext(conf=SparkConf().setAppName("robots-audit"))
    sc.setLogLevel("WARN")
    try:
        return run_job(sc, binary, out, audit_options, logs)
    except FatalError as error:
        sys.stderr.write(f"robots-audit job: {error}\n")
        return EXIT_FATAL
    finally:
        sc.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
