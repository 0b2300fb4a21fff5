"""A throwaway PostgreSQL cluster for the tests: ``initdb`` in a temporary folder, ``pg_ctl start`` listening on a
Unix socket in that folder only (``listen_addresses=''``: no port), stopped and removed after.

Run as root (a container, CI), the cluster's programs run as an unprivileged user (``nobody``, or
``RANGEFIRE_PG_USER``), which owns the folder: ``initdb`` refuses root. Each pytest-xdist worker starts its own.
Each test gets a schema of its own in it (:meth:`Cluster.address`), so that no test sees another's battles.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

#: The database role the tests connect as (the cluster's superuser, trusted on its socket).
ROLE = "rangefire"


def bin_folder() -> Path | None:
    """Where PostgreSQL's server programs are: ``pg_config --bindir``, else Debian's /usr/lib/postgresql/*/bin
    (the newest), else None."""
    found: list[Path] = []
    config = shutil.which("pg_config")
    if config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            found.append(Path(subprocess.run([config, "--bindir"], capture_output=True, text=True, check=True,
                                             timeout=30).stdout.strip()))
    found += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                                      key=lambda p: [int(x) for x in Path(p).parent.name.split(".") if x.isdigit()],
                                      reverse=True)]
    initdb = shutil.which("initdb")
    if initdb:
        found.append(Path(initdb).parent)
    return next((folder for folder in found if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file()),
                None)


class Cluster:
    """A cluster of our own, started in a temporary folder (its data, its socket, its log)."""

    def __init__(self, bindir: Path, fsync: bool = False) -> None:
        self.bindir = bindir
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        # /tmp rather than pytest's folders: a socket's path is at most 107 bytes
        self.folder = Path(tempfile.mkdtemp(prefix=f"rangefire-pg-{worker}-", dir="/tmp" if os.name == "posix"
                                            else None))
        self.data, self.socket, self.log = self.folder / "data", self.folder / "socket", self.folder / "log"
        self.socket.mkdir()
        self.as_user: dict[str, Any] = {}
        if os.name == "posix" and os.getuid() == 0:
            import pwd

            user = pwd.getpwnam(os.environ.get("RANGEFIRE_PG_USER", "nobody"))
            for path in (self.folder, self.socket):
                os.chown(path, user.pw_uid, user.pw_gid)
            self.as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [],
                            "cwd": self.folder}
        self._run("initdb", "-D", str(self.data), "-U", ROLE, "--auth=trust", "-E", "UTF8", "--no-sync",
                  "--no-instructions")
        settings = ["listen_addresses=''", f"unix_socket_directories='{self.socket}'", "max_connections=200"]
        if not fsync:  # a test cluster: nothing in it outlives the run
            settings += ["fsync=off", "full_page_writes=off"]
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write("".join(f"{line}\n" for line in settings))
        self.start()

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run([str(self.bindir / program), *args], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "LC_ALL": "C"}, **self.as_user)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()} {log}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self) -> None:
        """Stopped (``fast``: every connection cut) and started again."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", "fast", "-w", "-t", "60", "restart")

    def address(self, schema: str | None = None) -> str:
        """The cluster's ``postgres`` database as a ``postgresql://`` address, its tables in ``schema``."""
        query = f"host={quote(str(self.socket), safe='')}"
        if schema is not None:
            query += "&options=" + quote(f"-csearch_path={schema}", safe="")
        return f"postgresql://{ROLE}@/postgres?{query}"

    def new_schema(self) -> str:
        """A fresh schema's address: a store of its own."""
        import psycopg

        name = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.address(), autocommit=True) as db:
            db.execute(f"CREATE SCHEMA {name}")
        return self.address(name)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
