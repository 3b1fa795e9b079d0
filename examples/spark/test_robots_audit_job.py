"""Unit tests of the Spark job's parts that need no Spark: the command line, how runs are cut,
the working-directory depth, exit codes, which task failures Spark retries, a task's scratch
directory, manifests and the driver's listing of local inputs. Run by tests/spark.rs (`python3 -m
unittest` in this directory), which names the robots-audit binary under test in
ROBOTS_AUDIT_BINARY for the tests that run it."""

import io
import itertools
import os
import random
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

import robots_audit_job as job


class ParseArgs(unittest.TestCase):
    def test_options_values_flags_and_logs(self):
        binary, out, options, logs = job.parse_args(
            [
                "--binary",
                "bin/robots-audit",
                "--robots",
                "r",
                "--out=o",
                "--decisions",
                "--verify",
                "Google=g.json",
                "a.gz",
                "--grace=1h",
                "--haproxy-captures",
                "x-forwarded-for,host,user-agent",
                "--dns-budget=1m",
                "b.gz",
                "--",
                "--odd-name.gz",
            ]
        )
        self.assertEqual((binary, out), ("bin/robots-audit", "o"))
        self.assertEqual(
            options,
            [("--robots", "r"), ("--decisions", None), ("--verify", "Google=g.json"),
             ("--grace", "1h"), ("--haproxy-captures", "x-forwarded-for,host,user-agent"),
             ("--dns-budget", "1m")],
        )
        self.assertEqual(logs, ["a.gz", "b.gz", "--odd-name.gz"])

    def test_usage_errors(self):
        cases = [
            ["--out", "o", "--robots", "r", "a"],  # no --binary
            ["--binary", "b", "--robots", "r", "a"],  # no --out
            ["--binary", "b", "--out", "o", "--robots", "r"],  # no LOG
            ["--binary", "b", "--out", "o", "a"],  # no --robots
            ["--binary", "b", "--out", "o", "--robots", "r", "--bogus", "a"],
            ["--binary", "b", "--out", "o", "--robots", "r", "-"],  # standard input
            ["--binary", "b", "--out", "o", "--robots", "r", "--", "-"],  # still standard input
            ["--binary", "b", "--out", "o", "--robots", "r", "--decisions=yes", "a"],
            ["--binary", "b", "--out", "o", "--robots", "r", "a", "--grace"],
        ]
        for argv in cases:
            with self.subTest(argv=argv), self.assertRaises(job.UsageError):
                job.parse_args(argv)

    def test_shipped_paths(self):
        cases = [
            ("--robots", "sample-data/robots", "sample-data/robots"),
            ("--bots", "extra.json", "extra.json"),
            ("--verify", "Google=ranges/g.json", "ranges/g.json"),
            ("--verify", "ranges/g.json", "ranges/g.json"),
            ("--verify", "dns", None),
            ("--verify", "s3a://bucket/g.json", "s3a://bucket/g.json"),
            ("--origin", "https://example.com", None),
            ("--field", "time=ts", None),
        ]
        for option, value, expected in cases:
            with self.subTest(option=option, value=value):
                self.assertEqual(job.shipped_path(option, value), expected)


class ContiguousRuns(unittest.TestCase):
    def brute_force_best(self, weights, tasks):
        """The smallest largest-run total over every cut into at most `tasks` runs."""
        n = len(weights)
        best = sum(weights)
        for k in range(1, min(tasks, n)):
            for cuts in itertools.combinations(range(1, n), k):
                bounds = (0,) + cuts + (n,)
                best = min(best, max(sum(weights[a:b]) for a, b in zip(bounds, bounds[1:])))
        return best

    def test_runs_cover_the_list_in_order_and_are_optimal(self):
        rng = random.Random(12)
        for _ in range(300):
            sizes = [rng.choice([0, 1, 5, 100, 1000, rng.randrange(1, 5000)])
                     for _ in range(rng.randrange(1, 9))]
            tasks = rng.randrange(1, 6)
            runs = job.contiguous_runs(sizes, tasks)
            with self.subTest(sizes=sizes, tasks=tasks):
                self.assertLessEqual(len(runs), tasks)
                self.assertEqual([k for a, b in runs for k in range(a, b)], list(range(len(sizes))))
                self.assertTrue(all(a < b for a, b in runs))
                weights = [max(s, 1) for s in sizes]
                largest = max(sum(weights[a:b]) for a, b in runs)
                self.assertEqual(largest, self.brute_force_best(weights, tasks))

    def test_even_files_spread_evenly(self):
        self.assertEqual(job.contiguous_runs([10] * 6, 3), [(0, 2), (2, 4), (4, 6)])
        self.assertEqual(job.contiguous_runs([], 3), [])
        self.assertEqual(job.contiguous_runs([50, 1, 1, 1], 2), [(0, 1), (1, 4)])


class JoinedRuns(unittest.TestCase):
    RUNS = [(0, 2), (2, 3), (3, 5), (5, 6)]

    def test_nothing_to_join(self):
        prints = [["a", "b"], ["c"], [], ["d"]]
        self.assertEqual(job.joined_runs(self.RUNS, [], prints), self.RUNS)
        # Repeats within one run stay: its audit counted them as one audit does.
        self.assertEqual(job.joined_runs(self.RUNS, [], [["a", "a"], [], [], []]), self.RUNS)
        self.assertEqual(job.joined_runs([(0, 3)], [0], [[]]), [(0, 3)])

    def test_a_run_of_unreadable_files_joins_a_neighbour(self):
        empty = [[]] * 4
        self.assertEqual(job.joined_runs(self.RUNS, [1], empty), [(0, 2), (2, 5), (5, 6)])
        self.assertEqual(job.joined_runs(self.RUNS, [3], empty), [(0, 2), (2, 3), (3, 6)])
        self.assertEqual(job.joined_runs(self.RUNS, [0, 1], empty), [(0, 5), (5, 6)])

    def test_content_in_two_runs_joins_every_run_between(self):
        prints = [["a"], ["b"], ["c"], ["a"]]
        self.assertEqual(job.joined_runs(self.RUNS, [], prints), [(0, 6)])
        prints = [["a"], ["b", "a"], ["c"], ["c"]]
        self.assertEqual(job.joined_runs(self.RUNS, [], prints), [(0, 3), (3, 6)])


class Retries(unittest.TestCase):
    """Which ends of a task's audit make Spark run the task again."""

    def test_what_another_attempt_would_repeat_is_the_result(self):
        cases = [
            (0, b""),
            (3, b"robots-audit: logs/a.gz: gzip stream cut short after 1,024 bytes\n"),
            (3, b"robots-audit: nothing judged: none of the 812 requests read was a bot's\n"),
            (2, b"robots-audit: --grace soon: not a duration\n"),
            (1, b"robots-audit: no readable input (2 inputs, every one with an error)\n"),
            (1, b"robots-audit: robots/manifest.csv line 3: no such file robots/a.txt\n"),
            (1, b"robots-audit: --verify ranges/g.json: not a range file\n"),
            # A panic: the same input panics again.
            (101, b"thread 'main' panicked at src/audit/mod.rs:1:1:\n"),
            # A --verify file that cannot be read is the run's own input.
            (1, b"robots-audit: cannot read ranges/g.json: Permission denied (os error 13)\n"),
        ]
        for code, stderr in cases:
            with self.subTest(code=code, stderr=stderr):
                self.assertIsNone(job.transient_failure(code, stderr))

    def test_what_another_attempt_may_not_meet_is_retried(self):
        cases = [
            (-9, b"", "the audit was killed by signal 9 (SIGKILL)"),
            (-15, b"robots-audit: warning: x\n", "killed by signal 15 (SIGTERM); it said: "
             "robots-audit: warning: x"),
            (130, b"robots-audit: interrupted: no report was written\n", "stopped by a signal"),
            (1, b"robots-audit: warning: --verify dns: slow\n"
                b"robots-audit: cannot write reports: No space left on device (os error 28)\n",
             "could not write its report on this executor: robots-audit: cannot write reports: "
             "No space left on device (os error 28)"),
            (1, b"robots-audit: cannot write reports into /s/report: Disk quota exceeded\n",
             "Disk quota exceeded"),
            (1, b"robots-audit: cannot write into --out /s/report: No space left\n", "No space"),
            (1, b"robots-audit: cannot create --out /s/report: Input/output error\n", "Input/"),
            (1, b"robots-audit: cannot lock /s/.report.lock: No space left\n", "cannot lock"),
            (1, b"robots-audit: DNS cache /s/shipped/0/dns.csv: cannot write: No space left\n",
             "DNS cache"),
            (1, b"robots-audit: cannot start 4 worker threads: Resource temporarily unavailable\n",
             "worker threads"),
        ]
        for code, stderr, reason in cases:
            with self.subTest(code=code, stderr=stderr):
                self.assertIn(reason, job.transient_failure(code, stderr) or "")

    def test_the_audits_own_messages_are_classified(self):
        # The real binary's words, so that a changed message cannot slip past the patterns.
        binary = os.environ.get("ROBOTS_AUDIT_BINARY")
        if binary is None:
            self.skipTest("ROBOTS_AUDIT_BINARY is not set (tests/spark.rs sets it)")
        with tempfile.TemporaryDirectory() as tmp:
            robots = os.path.join(tmp, "robots.txt")
            log = os.path.join(tmp, "a.log")
            for path in (robots, log):
                with open(path, "wb") as f:
                    f.write(b"User-agent: *\nDisallow: /x\n" if path == robots else b"")
            blocked = os.path.join(tmp, "a-file")
            open(blocked, "wb").close()
            cases = [
                # --out under a regular file: the audit's output cannot be made.
                ([robots], os.path.join(blocked, "report"), b"cannot create --out", True),
                # A robots source that is not there: the run's own input.
                ([os.path.join(tmp, "missing")], os.path.join(tmp, "r1"), b"robots source", False),
                # Every input unreadable: the driver joins the run to its neighbour.
                ([robots], os.path.join(tmp, "r2"), b"no readable input", False),
            ]
            for robots_source, out, says, retried in cases:
                logs = [log] if out != os.path.join(tmp, "r2") else [log + ".missing"]
                done = subprocess.run(
                    [binary, "audit", "-q", "--no-html", "--out", out, "--origin",
                     "https://a.example", "--robots", *robots_source, "--", *logs],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                )
                with self.subTest(out=out, stderr=done.stderr):
                    self.assertEqual(done.returncode, 1)
                    self.assertIn(says, done.stderr)
                    reason = job.transient_failure(done.returncode, done.stderr)
                    self.assertEqual(reason is not None, retried)

    def test_spark_giving_up_names_the_task_and_its_last_error(self):
        # Spark's report of a job it aborted (abridged): the Python traceback of the last attempt
        # inside the Java one; partitions are the runs biggest first.
        failure = (
            "An error occurred while calling z:org.apache.spark.api.python.PythonRDD."
            "collectAndServe.\n: org.apache.spark.SparkException: Job aborted due to stage "
            "failure: Task 1 in stage 0.0 failed 3 times, most recent failure: Lost task 1.2 in "
            "stage 0.0 (TID 5) (127.0.0.1 executor driver): org.apache.spark.api.python."
            "PythonException: Traceback (most recent call last):\n  File \"job.py\", line 1\n"
            "__main__.AttemptFailed: robots-audit task 0: the audit was killed by signal 9 "
            "(SIGKILL)\n\n\tat org.apache.spark.api.python.BasePythonRunner\n"
        )
        message = job.gave_up(failure, [1, 0])
        self.assertEqual(
            message,
            "task 0 failed on all 3 attempts, as many as spark.task.maxFailures allows; its last "
            "error: the audit was killed by signal 9 (SIGKILL); nothing merged into --out",
        )
        # A task lost with its Python worker: Spark's own words, the run found by partition.
        lost = failure.split("org.apache.spark.api.python.PythonException")[0] + "lost\n"
        lost = lost.replace("failed 3 times", "failed 1 times")
        message = job.gave_up(lost, [1, 0])
        self.assertTrue(message.startswith("task 0 failed on its one attempt ("), message)
        self.assertIn("its last error: Lost task 1.2 in stage 0.0", message)
        self.assertEqual(
            job.gave_up("java.lang.OutOfMemoryError\n", [0]),
            "Spark gave up on the job: java.lang.OutOfMemoryError; nothing merged into --out",
        )


class TaskAttempt(unittest.TestCase):
    """One attempt at a task in a scratch directory, with a shell script for the binary."""

    def attempt(self, script, inputs=(), archive=True):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        shipped, workspace = os.path.join(tmp.name, "shipped"), os.path.join(tmp.name, "work")
        os.makedirs(shipped)
        os.makedirs(workspace)
        with open(os.path.join(shipped, "robots-audit"), "w") as f:
            f.write("#!/bin/sh\n" + script)
        if archive:
            tarfile.open(os.path.join(shipped, job.ARCHIVE_NAME), "w").close()
        settings = {"binary_name": "robots-audit", "audit_options": [], "sources": [],
                    "dns_cache_member": None, "threads": None}
        run = (5, [{"name": name, "location": location} for name, location in inputs])
        try:
            return job.audit_run(run, settings, workspace, lambda n: os.path.join(shipped, n))
        finally:
            # Every attempt, failed or not, takes its scratch directory with it.
            self.assertEqual(os.listdir(workspace), [])

    def test_a_killed_binary_fails_the_attempt(self):
        with self.assertRaises(job.AttemptFailed) as raised:
            self.attempt('echo "robots-audit: warning: slow" >&2; kill -9 $$\n')
        self.assertEqual(
            str(raised.exception),
            "robots-audit task 5: the audit was killed by signal 9 (SIGKILL); it said: "
            "robots-audit: warning: slow",
        )

    def test_a_full_disk_fails_the_attempt(self):
        with self.assertRaises(job.AttemptFailed) as raised:
            self.attempt('echo "robots-audit: cannot write reports: No space left on device '
                         '(os error 28)" >&2; exit 1\n')
        self.assertIn("No space left on device", str(raised.exception))

    def test_a_usage_error_is_the_result(self):
        index, code, stderr, report = self.attempt('echo "robots-audit: bad --grace" >&2; exit 2\n')
        self.assertEqual(
            (index, code, stderr, report), (5, 2, b"robots-audit: bad --grace\n", None)
        )

    def test_a_report_comes_back_whole(self):
        # $5 is --out's value: `audit -q --no-html --out DIR`.
        index, code, _, report = self.attempt('mkdir "$5" && echo "{}" > "$5/state.json"; exit 3\n')
        self.assertEqual((index, code), (5, 3))
        with tarfile.open(fileobj=io.BytesIO(report)) as tar:
            self.assertEqual(sorted(tar.getnames()), ["report", "report/state.json"])

    @unittest.skipUnless(sys.platform.startswith("linux"), "prctl's parent death signal is Linux's")
    def test_the_audit_dies_with_a_killed_worker(self):
        # Spark kills a task's Python worker with SIGKILL: the audit it started must not run on.
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = os.path.join(tmp, "pid")
            worker = os.fork()
            if worker == 0:
                try:
                    self.attempt(f'echo $$ > "{pid_file}.part" && mv "{pid_file}.part" '
                                 f'"{pid_file}"; exec sleep 60\n')
                finally:
                    os._exit(0)
            audit = None
            try:
                audit = int(wait_for(lambda: read_or_none(pid_file), "the audit to start"))
                os.kill(worker, signal.SIGKILL)
                os.waitpid(worker, 0)
                wait_for(lambda: not is_running(audit), "the orphaned audit to die")
            finally:
                if audit is not None and is_running(audit):
                    os.kill(audit, signal.SIGKILL)

    def test_a_failed_copy_or_unpacking_fails_the_attempt(self):
        with tempfile.TemporaryDirectory() as tmp:
            gone = "file://" + os.path.join(tmp, "gone.log.gz")
            with self.assertRaises(job.AttemptFailed) as raised:
                self.attempt("exit 0\n", inputs=[(gone, gone)])
            self.assertIn("robots-audit task 5: FileNotFoundError", str(raised.exception))
        with self.assertRaises(job.AttemptFailed) as raised:
            self.attempt("exit 0\n", archive=False)
        self.assertIn("robots-audit task 5: FileNotFoundError", str(raised.exception))


def wait_for(answer, what, seconds=20):
    """What `answer()` returns once it is true, asked every 50 ms; fails after `seconds`."""
    for _ in range(int(seconds / 0.05)):
        value = answer()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")


def read_or_none(path):
    try:
        with open(path) as f:
            return f.read().strip() or None
    except FileNotFoundError:
        return None


def is_running(pid):
    """Whether process `pid` exists and is not a zombie (an orphan that no one reaps yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class Helpers(unittest.TestCase):
    def test_worst_exit_code(self):
        cases = [
            ([], 0),
            ([0, 0], 0),
            ([0, 3], 3),
            ([3, 1], 1),
            ([1, 2, 3], 2),
            ([0, -9], 1),  # killed by a signal
            ([0, 101], 1),  # a panic's exit code
        ]
        for codes, expected in cases:
            with self.subTest(codes=codes):
                self.assertEqual(job.worst(codes), expected)

    def test_depth_needed(self):
        cases = [
            (["a/b.gz", "/abs/c.gz"], 0),
            (["../x.gz"], 1),
            (["../../x.gz", "a/../../y"], 2),
            (["./a/../b", "s3a://bucket/logs/a.gz"], 0),
        ]
        for names, expected in cases:
            with self.subTest(names=names):
                self.assertEqual(job.depth_needed(names), expected)

    def test_a_placed_name_resolves_as_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "a.gz")
            open(target, "wb").close()
            cwd = os.path.join(tmp, "cwd")
            os.makedirs(cwd)
            for name in ["other/../logs/a.gz", "logs/a.gz", "b.gz"]:
                job.place(cwd, name, target)
                self.assertTrue(os.path.isfile(os.path.join(cwd, name)), name)
            here = os.getcwd()
            os.chdir(tmp)
            self.addCleanup(os.chdir, here)
            self.assertEqual(job.location("x/../a.gz"), os.path.realpath(tmp) + "/x/../a.gz")

    def test_uris(self):
        self.assertTrue(job.is_uri("s3a://bucket/a.gz"))
        self.assertTrue(job.is_uri("hdfs://nn:8020/logs"))
        self.assertFalse(job.is_uri("logs/a.gz"))
        self.assertFalse(job.is_uri("/logs/x://y"))
        self.assertEqual(job.local_path_of_uri("file:///var/log"), "/var/log")
        self.assertIsNone(job.local_path_of_uri("gs://b/x"))
        self.assertEqual(job.join("s3a://b/logs", "a.gz"), "s3a://b/logs/a.gz")
        self.assertEqual(job.join("logs/", "a.gz"), "logs/a.gz")

    def test_manifest_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            manifest = os.path.join(tmp, "m.csv")
            with open(manifest, "w") as f:
                f.write("\ufefforigin,valid_from,status,file\n"
                        "https://a.example,,200,a.txt\n"
                        "https://b.example,,503,\n"
                        "https://c.example,2026-01-01T00:00:00Z,200,dated/c.txt\n")
            self.assertEqual(job.manifest_files(manifest), ["a.txt", "dated/c.txt"])
            robots = os.path.join(tmp, "robots.txt")
            with open(robots, "w") as f:
                f.write("User-agent: *\nDisallow: /x\n")
            self.assertEqual(job.manifest_files(robots), [])

    def test_local_listing_is_the_audits(self):
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            self.addCleanup(os.chdir, here)
            os.makedirs("logs/sub")
            for name, body in [("b.gz", b"12"), ("a.gz", b"1"), ("B.gz", b"")]:
                with open(os.path.join("logs", name), "wb") as f:
                    f.write(body)
            inputs = job.list_inputs(
                ["logs/", "missing.gz", "logs/a.gz"], hadoop=None, name_filter=job.NameFilter([])
            )
            self.assertEqual(
                [(i.position, i.name, i.size) for i in inputs],
                [(0, "logs/B.gz", 0), (1, "logs/a.gz", 1), (2, "logs/b.gz", 2),
                 (3, "missing.gz", 0), (4, "logs/a.gz", 1)],
            )
            self.assertEqual(inputs[0].location, os.path.join(os.path.realpath(tmp), "logs/B.gz"))
            os.makedirs("empty")
            with self.assertRaises(job.FatalError):
                job.list_inputs(["empty"], hadoop=None, name_filter=job.NameFilter([]))

    def test_natural_order_is_the_audits(self):
        # The cases of src/audit/inputs.rs's own tests: numbers compare as numbers, a digit
        # against another byte as that byte would, equal numbers by their bytes.
        ordered = [
            "a.log", "access.log", "access.log.1", "access.log.2", "access.log.2.gz",
            "access.log.10", "access.log.10.gz", "error.log", "x01", "x1", "x001b", "x2",
        ]
        for _ in range(20):
            shuffled = random.sample(ordered, len(ordered))
            self.assertEqual(sorted(shuffled, key=job.natural_key), ordered)
        self.assertLess(job.natural_key("a.b"), job.natural_key("a0"))
        self.assertLess(job.natural_key("a9"), job.natural_key("a_"))

    def test_include_and_exclude_select_by_name(self):
        name_filter = job.NameFilter(
            [("--include", "access.log*"), ("--include", "*.gz"), ("--exclude", "*.{1,10}")]
        )
        cases = [
            ("access.log", True), ("access.log.1", False), ("access.log.10", False),
            ("access.log.2.gz", True), ("error.log", False), ("error.log.gz", True),
        ]
        for name, read in cases:
            self.assertEqual(name_filter.selects(name), read, name)
        self.assertTrue(job.NameFilter([]).selects("anything"))
        self.assertEqual(name_filter.describe(), "--include access.log* --include *.gz --exclude *.{1,10}")

    def test_globs_are_globsets(self):
        # What `audit --include GLOB` reads of a directory of these names (globset's syntax).
        names = ["a^", "ab", "ac", "a*", "a\\b", "x.1", "x.2", "x.3", "x,1"]
        cases = [
            ("a[^b]", ["a^", "ac", "a*"]),
            ("a[!b]", ["a^", "ac", "a*"]),
            ("a\\*", ["a*"]),
            ("a\\\\b", ["a\\b"]),
            ("x.{1,{2,3}}", ["x.1", "x.2", "x.3"]),
            ("x,1", ["x,1"]),
            ("a**", ["a^", "ab", "ac", "a*", "a\\b"]),
            ("[]a-b]?", ["a^", "ab", "ac", "a*"]),
            ("x[-,]1", ["x,1"]),
            ("**/x.1", ["x.1"]),
            ("{**/x.2,ab}", ["ab", "x.2"]),
            ("**/*1", ["x.1", "x,1"]),
            ("**/**/ab", ["ab"]),
            ("a/**", []),
        ]
        for glob, read in cases:
            name_filter = job.NameFilter([("--include", glob)])
            self.assertEqual([n for n in names if name_filter.selects(n)], read, glob)
        for glob in ["[a", "{a,b", "a}", "a\\", "[z-a]"]:
            with self.subTest(glob=glob), self.assertRaises(job.UsageError):
                job.NameFilter([("--exclude", glob)])
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            self.addCleanup(os.chdir, here)
            os.makedirs("logs")
            for name in ["access.log.10", "access.log.2", "error.log", "access.log"]:
                open(os.path.join("logs", name), "wb").close()
            inputs = job.list_inputs(
                ["logs"], hadoop=None, name_filter=job.NameFilter([("--exclude", "error.*")])
            )
            self.assertEqual(
                [i.name for i in inputs], ["logs/access.log", "logs/access.log.2", "logs/access.log.10"]
            )
            with self.assertRaises(job.FatalError):
                job.list_inputs(["logs"], hadoop=None, name_filter=job.NameFilter([("--include", "*.gz")]))


if __name__ == "__main__":
    unittest.main()
