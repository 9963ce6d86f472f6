#!/usr/bin/env python3
"""Run a command as an unprivileged user, in a working copy of the kit that user owns.

    python tests/hosts/as_user.py [options] -- COMMAND [ARGS...]

Simulates a course machine where the kit is cloned and run by an ordinary account with
the system's Python (here Debian's /usr/bin/python3, 3.11.2), not by root with root's
own interpreter. Needs root, to make the account and hand it the copy. Step by step:

1. the account (--user, default kit-user) is created with useradd if missing, with its
   home under /home;
2. the Python (--python, default /usr/bin/python3) is checked to run for that user
   (root's pyenv under /root is unreadable to it) and to have venv and ensurepip;
3. root's own pip configuration (~root/.pip/pip.conf, ~root/.config/pip/pip.conf: the
   local indexes and find-links) is copied to the same places in the user's home, and
   the PIP_* variables of this environment are passed on;
4. the repository (--repo, default the one holding this script) is copied into a new
   folder in the user's home, owned by the user: its committed tree (`git archive HEAD`),
   or with --worktree its working tree as it is (tracked files with their changes, plus
   untracked files git does not ignore); no .git folder goes along;
5. unless --no-venv, `make .venv/.installed PYTHON=<python>` builds .venv from
   requirements.lock there, as the user (the kit's own set-up, as `make test` does it);
6. COMMAND runs as the user (its groups only), in the copy, in a session of its own,
   with a clean environment: HOME, USER, LOGNAME, SHELL, LANG, PATH (the copy's
   .venv/bin first), the PIP_* variables and any --env NAME=VALUE.

Afterwards whatever is left of the command's process group is killed and the copy is
removed (--keep leaves it and prints where). The account stays for later runs (with its
pip cache); --remove-user deletes it and its home as well. Exit status: the command's
(128 + N when signal N ended it).
"""

import argparse
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = HERE.parent.parent
PIP_CONFIGS = [".pip/pip.conf", ".config/pip/pip.conf"]


def say(message: str) -> None:
    print(f"as_user: {message}", file=sys.stderr, flush=True)


def ensure_user(name: str) -> tuple[pwd.struct_passwd, bool]:
    """The account's passwd entry, and whether this run created it."""
    try:
        return pwd.getpwnam(name), False
    except KeyError:
        pass
    done = subprocess.run(
        ["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"as_user: useradd {name} failed: {done.stderr.strip()}")
    say(f"created user {name}")
    return pwd.getpwnam(name), True


def as_account(entry: pwd.struct_passwd) -> dict:
    """Popen arguments that run a process as the account, with its own groups only."""
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": os.getgrouplist(entry.pw_name, entry.pw_gid)}


def chown_tree(path: Path, entry: pwd.struct_passwd) -> None:
    os.lchown(path, entry.pw_uid, entry.pw_gid)
    for folder, names, files in os.walk(path):
        for name in names + files:
            os.lchown(os.path.join(folder, name), entry.pw_uid, entry.pw_gid)


def copy_pip_config(entry: pwd.struct_passwd) -> list[str]:
    """Root's user-level pip.conf files, copied to the same places in the account's home."""
    root_home = Path(pwd.getpwuid(0).pw_dir)
    copied = []
    for relative in PIP_CONFIGS:
        source = root_home / relative
        if not source.is_file():
            continue
        target = Path(entry.pw_dir) / relative
        for folder in reversed(target.relative_to(entry.pw_dir).parents[:-1]):
            (Path(entry.pw_dir) / folder).mkdir(exist_ok=True)
            os.lchown(Path(entry.pw_dir) / folder, entry.pw_uid, entry.pw_gid)
        shutil.copyfile(source, target)
        os.lchown(target, entry.pw_uid, entry.pw_gid)
        copied.append(str(target))
    return copied


def copy_repository(repo: Path, destination: Path, worktree: bool) -> None:
    """The committed tree (or the working tree) of `repo`, extracted into `destination`."""
    if worktree:
        listed = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
        present = b"\0".join(name for name in listed.split(b"\0") if name and os.path.lexists(repo / os.fsdecode(name)))
        pack = subprocess.Popen(
            ["tar", "-C", str(repo), "-cf", "-", "--null", "--no-recursion", "-T", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        feed = present + b"\0"
    else:
        pack = subprocess.Popen(
            ["git", "-C", str(repo), "archive", "--format=tar", "HEAD"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        feed = None
    unpack = subprocess.Popen(["tar", "-C", str(destination), "-xf", "-"], stdin=pack.stdout)
    pack.stdout.close()
    if feed is not None:
        pack.stdin.write(feed)
        pack.stdin.close()
    if pack.wait() != 0 or unpack.wait() != 0:
        raise SystemExit(f"as_user: copying {repo} failed")


def environment(entry: pwd.struct_passwd, copy: Path, venv: bool, extra: list[str]) -> dict:
    env = {
        "HOME": entry.pw_dir,
        "USER": entry.pw_name,
        "LOGNAME": entry.pw_name,
        "SHELL": entry.pw_shell or "/bin/sh",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
    }
    if venv:
        env["PATH"] = f"{copy / '.venv' / 'bin'}:{env['PATH']}"
        env["VIRTUAL_ENV"] = str(copy / ".venv")
    if "TERM" in os.environ:
        env["TERM"] = os.environ["TERM"]
    env.update({name: value for name, value in os.environ.items() if name.startswith("PIP_")})
    for item in extra:
        name, separator, value = item.partition("=")
        if not separator:
            raise SystemExit(f"as_user: --env wants NAME=VALUE, not {item!r}")
        env[name] = value
    return env


def run_as(entry: pwd.struct_passwd, command: list[str], cwd: Path, env: dict) -> int:
    """Run `command` as the account in a session of its own; its exit status, then kill what it left."""
    try:
        child = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True, umask=0o022, **as_account(entry))
    except OSError as error:
        say(f"cannot run {command[0]!r}: {error.strerror}")
        return 127

    def forward(number, _frame):
        try:
            os.killpg(child.pid, number)
        except ProcessLookupError:
            pass

    previous = {number: signal.signal(number, forward) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        status = child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return 128 - status if status < 0 else status


def main(argv: list[str]) -> int:
    split = argv.index("--") if "--" in argv else len(argv)
    options, command = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(
        prog="python tests/hosts/as_user.py",
        usage="%(prog)s [options] -- COMMAND [ARGS...]",
        description="Run COMMAND as an unprivileged user in a working copy of the kit that user owns (needs root).",
    )
    parser.add_argument("--user", default="kit-user", help="account to run as, created if missing (default kit-user)")
    parser.add_argument(
        "--python",
        default="/usr/bin/python3",
        help="Python the user builds .venv with (default /usr/bin/python3, Debian's)",
    )
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="repository to copy (default this one)")
    parser.add_argument(
        "--worktree",
        action="store_true",
        help="copy the working tree as it is (uncommitted changes and untracked files too), not HEAD",
    )
    parser.add_argument("--no-venv", dest="venv", action="store_false", help="do not build .venv in the copy")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="set a variable for COMMAND")
    parser.add_argument("--keep", action="store_true", help="leave the copy in the user's home afterwards")
    parser.add_argument("--remove-user", action="store_true", help="delete the account and its home afterwards")
    args = parser.parse_args(options)
    if not command:
        parser.error("no COMMAND after --")
    if os.geteuid() != 0:
        raise SystemExit("as_user: needs root (to create the account and hand it a copy)")
    if not os.path.isfile(args.python):
        raise SystemExit(f"as_user: no Python at {args.python}")

    entry, created = ensure_user(args.user)
    copy = None
    try:
        try:
            probe = subprocess.run(
                [args.python, "-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"],
                capture_output=True,
                text=True,
                cwd="/",
                env={"PATH": "/usr/bin:/bin", "HOME": entry.pw_dir},
                **as_account(entry),
            )
            why = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        except PermissionError as error:
            probe, why = None, error.strerror
        if probe is None or probe.returncode != 0:
            raise SystemExit(f"as_user: {args.user} cannot use {args.python} to make a venv: {why}")
        pip_configs = copy_pip_config(entry)
        copy = Path(tempfile.mkdtemp(prefix="autograder.", dir=entry.pw_dir))
        copy_repository(args.repo.resolve(), copy, args.worktree)
        chown_tree(copy, entry)
        os.chmod(copy, 0o755)
        say(
            f"{args.user} (uid {entry.pw_uid}), Python {probe.stdout.strip()} at {args.python}, copy at {copy}"
            + (f", pip config {', '.join(pip_configs)}" if pip_configs else "")
        )
        env = environment(entry, copy, args.venv, args.env)
        if args.venv:
            started = time.monotonic()
            status = run_as(
                entry,
                ["make", "--no-print-directory", ".venv/.installed", f"PYTHON={args.python}"],
                copy,
                environment(entry, copy, False, args.env),
            )
            if status != 0:
                say(f"building .venv failed (status {status})")
                return status
            say(f".venv built from requirements.lock in {time.monotonic() - started:.0f} s")
        return run_as(entry, command, copy, env)
    finally:
        if copy is not None:
            if args.keep:
                say(f"kept {copy}")
            else:
                shutil.rmtree(copy, ignore_errors=True)
        if args.remove_user:
            done = subprocess.run(["userdel", "--remove", args.user], capture_output=True, text=True)
            if done.returncode != 0 and "mail spool" not in done.stderr:
                say(f"userdel {args.user}: {done.stderr.strip()}")
        elif created:
            say(f"user {args.user} stays (its pip cache too); --remove-user deletes it")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
