# jupyterhub_config.py: a wordlab classroom on one machine: JupyterHub, each student a Unix user of their own, the lessons in every home.
#
# `make classroom` (scripts/classroom.sh) starts JupyterHub 5 of the project's pinned environment with this file, as
# root, after installing what the students' servers run to a prefix every user can read; the load test
# (tests/load/loadtest.py) and tests/py/test_classroom.py start it the same way.  Every setting below that a
# real deployment changes is marked REAL DEPLOYMENT.  The script passes its choices through environment variables:
#
#   WORDLAB_CLASSROOM_STATE    folder (root only) for the hub's database, cookie secret and the two passwords
#   WORDLAB_CLASSROOM_HOMES    folder under which each student's home is made (never in the build: make clean)
#   WORDLAB_CLASSROOM_PORT     the port the hub's proxy listens on (127.0.0.1 only)
#   WORDLAB_CLASSROOM_HUB_PORT, WORDLAB_CLASSROOM_PROXY_API_PORT  the hub's and the proxy's own ports
#   WORDLAB_CLASSROOM_PREFIX   what the students' servers run (bin/wordlab, venv/, proxy/, artifacts/, scripts/, and
#                              lessons/ + notebooks/: the lessons as built, which lessons-copy.sh hands out)
#   WORDLAB_CLASSROOM_CACHE    the kernels' shared cache (root's, filled by the script; students only read it)
#   WORDLAB_CLASSROOM_UI       lab (JupyterLab 4) or notebook (Notebook 7)
#   WORDLAB_CLASSROOM_API_TOKEN a token for the load test's service (admin of users and servers)
import asyncio
import os
import pwd
import re

c = get_config()  # noqa: F821  (JupyterHub's config loader defines get_config)

env = os.environ.get
state = env("WORDLAB_CLASSROOM_STATE", "/var/lib/wordlab-classroom")
homes = env("WORDLAB_CLASSROOM_HOMES", "/home/wordlab-classroom")
prefix = env("WORDLAB_CLASSROOM_PREFIX", "/opt/wordlab-classroom")
ui = env("WORDLAB_CLASSROOM_UI", "lab")
if os.geteuid() != 0:
    raise SystemExit("the classroom runs each student's server as that student's own Unix user: start it as root")
# The hub and its proxy run ahead of the students' processes for the CPU (nice -5; the students' servers go back to
# 0, below): they serve every student, and on a saturated machine a starved hub let servers give up reaching it at
# start ("Failed to connect to my Hub", 34 of 40 students) and failed to add routes to the proxy within its 30 s.
os.setpriority(os.PRIO_PROCESS, 0, -5)

# --- network ---------------------------------------------------------------------------------
# The proxy listens on 127.0.0.1 only.  REAL DEPLOYMENT: put the proxy behind TLS (c.JupyterHub.ssl_key /
# ssl_cert, or a reverse proxy) and bind the address students reach, e.g. c.JupyterHub.bind_url = "https://0.0.0.0:443".
c.JupyterHub.bind_url = "http://127.0.0.1:%s" % env("WORDLAB_CLASSROOM_PORT", "8700")
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("WORDLAB_CLASSROOM_HUB_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%s" % env("WORDLAB_CLASSROOM_PROXY_API_PORT", "8001")
# configurable-http-proxy as pinned by share/classroom/proxy/package-lock.json (installed by the script).
c.ConfigurableHTTPProxy.command = [os.path.join(prefix, "proxy", "node_modules", ".bin", "configurable-http-proxy")]
c.ConfigurableHTTPProxy.should_start = True

# --- the hub's own files ---------------------------------------------------------------------
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")
# Ctrl-C (SIGINT) or SIGTERM stops the hub, the proxy and every student's server.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# --- who logs in ----------------------------------------------------------------------------
# Students log in with a name of their choice and the class password; the teacher logs in as "teacher" with the
# teacher's password (the admin).  scripts/classroom.sh generates both once, keeps them in the state folder (root
# only) and prints them when it makes them.  Anyone with the class password can log in as any student: it keeps
# out whoever does not have it, not one student from another.
# REAL DEPLOYMENT: the school's login, e.g. c.JupyterHub.authenticator_class = "pam" (system accounts),
# "oauthenticator.GitHubOAuthenticator" or an LTI authenticator for a learning platform.
from jupyterhub.authenticators.shared import SharedPasswordAuthenticator  # noqa: E402

STUDENT = re.compile(r"[a-z][a-z0-9_]{0,15}")  # a login name
ACCOUNT_PREFIX = "wl-"                          # each student's Unix account: wl-<login name>


class ClassroomAuthenticator(SharedPasswordAuthenticator):
    """The class password and the teacher's, with every login name mapped to the Unix account wl-<name>."""

    def normalize_username(self, username):
        name = super().normalize_username(username).strip()
        return name if name.startswith(ACCOUNT_PREFIX) else ACCOUNT_PREFIX + name

    def validate_username(self, username):
        return (username.startswith(ACCOUNT_PREFIX) and STUDENT.fullmatch(username[len(ACCOUNT_PREFIX):]) is not None
                and super().validate_username(username))


def read_secret(name):
    with open(os.path.join(state, name), encoding="ascii") as f:
        return f.read().strip()


c.JupyterHub.authenticator_class = ClassroomAuthenticator
c.ClassroomAuthenticator.user_password = read_secret("class-password")
c.ClassroomAuthenticator.admin_password = read_secret("teacher-password")
c.Authenticator.admin_users = {ACCOUNT_PREFIX + "teacher"}
c.Authenticator.allow_all = True  # every name the pattern allows, with the class password

# A service token for the load test (tests/load/): it creates students, starts their servers and
# talks to their kernels.  Unset in `make classroom` unless WORDLAB_CLASSROOM_API_TOKEN is given.
token = env("WORDLAB_CLASSROOM_API_TOKEN", "")
if token:
    c.JupyterHub.services = [{"name": "wordlab-loadtest", "api_token": token}]
    c.JupyterHub.load_roles = [{
        "name": "wordlab-loadtest",
        "scopes": ["admin:users", "admin:servers", "access:servers", "read:users", "list:users"],
        "services": ["wordlab-loadtest"],
    }]

# --- one server per student, as that student ----------------------------------------------------
# Each student's server runs as the Unix account wl-<name> (made on the first login, with no password: no way in
# but the hub), with the home WORDLAB_CLASSROOM_HOMES/wl-<name> that only they can open.
# REAL DEPLOYMENT: "systemdspawner" (cgroup limits per student) or "kubespawner" (see share/classroom/z2jh-values.yaml).
from jupyterhub.spawner import LocalProcessSpawner  # noqa: E402


def listening(port):
    """Whether a socket listens on TCP port (IPv4 or IPv6) of this machine (/proc/net/tcp: state 0A is LISTEN)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def to_priority(pid, nice):
    """Sets every thread of process pid and of its children to nice (a process's priority is per thread)."""
    for task in os.listdir("/proc/%d/task" % pid):
        os.setpriority(os.PRIO_PROCESS, int(task), nice)
        with open("/proc/%d/task/%s/children" % (pid, task), encoding="ascii") as f:
            for child in f.read().split():
                to_priority(int(child), nice)


class ClassroomSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose server, started at nice STARTING_NICE (Spawner.cmd), runs at 0 once it listens: its
    start ends only then, so the hub sends the student to a server that already runs at 0."""

    async def start(self):
        ip_port = await super().start()
        pid = self.pid
        while not listening(self.port):
            if not os.path.exists("/proc/%d" % pid):
                return ip_port  # it exited: the hub's own check of the server says so
            await asyncio.sleep(0.25)
        try:
            to_priority(pid, 0)
        except OSError:  # it exited meanwhile
            pass
        return ip_port


c.JupyterHub.spawner_class = ClassroomSpawner
c.Spawner.start_timeout = 300  # a class logging in at once queues for the CPU: a student waits rather than fails
c.Spawner.http_timeout = 300
# A student's server that sits idle is not culled here; REAL DEPLOYMENT: add jupyterhub-idle-culler as a service.

# The kernel spec and the extension are in the environment's share/jupyter (wordlab install-kernel --prefix); the
# kernels find the bundled checkpoints in the prefix, and read the shared cache of computed results (generated
# corpora, their windows, the bundled checkpoints' weights and scores), computed once for the class and mapped by
# every kernel; what it lacks a student's kernel computes for itself without storing it.
# MALLOC_ARENA_MAX=2: at most two glibc malloc arenas in a student's server and kernels instead of eight per core (no
# difference in their memory was measured at 10 students: docs/classroom.md).
# OPENBLAS_NUM_THREADS=1: a student's kernel computes on one thread (its matrix products and its training's parallel
# parts), not one per core: a class keeps every core busy with its own kernels, and a kernel's threads only wait for
# each other there (six lesson 01 training runs at once: 7.4 s of CPU with one thread each, 10.5 s with two; the
# same results).
c.Spawner.environment = {
    "WORDLAB_ARTIFACTS": os.path.join(prefix, "artifacts"),
    "WORDLAB_CACHE": env("WORDLAB_CLASSROOM_CACHE", "/var/cache/wordlab-classroom"),
    "MALLOC_ARENA_MAX": "2",
    "OPENBLAS_NUM_THREADS": "1",
}
# The environment's jupyterhub-singleuser, with the kernels on ipc (the environment's setting) in a folder only the
# student may open: no other user of the machine can connect to them (TCP on localhost is open to every local user).
# A student's server starts at nice 10 (15 below the hub's -5), behind the kernels of the students already working, and
# runs at 0, the priority of everything else, once it listens (ClassroomSpawner, below): a class that logs in at once
# queues its servers' starts (2 s of CPU each) behind the cells of those already in, not in front of them.
STARTING_NICE = 10
c.Spawner.cmd = ["nice", "-n", str(STARTING_NICE + 5),
                 "bash", os.path.join(prefix, "scripts", "lab-singleuser.sh"), os.path.join(prefix, "venv")]
c.Spawner.default_url = "/lab" if ui == "lab" else "/tree"
# The server loads only what the lessons use: JupyterLab (and Notebook 7 for UI=notebook). Off: terminals (a shell on
# this machine, which the lessons do not need), the language servers' bridge (jupyter_lsp), the classic notebook's
# shim, and Notebook 7 under JupyterLab. Each extension loaded is memory and start-up CPU paid once per student.
# REAL DEPLOYMENT: turn terminals back on (remove jupyter_server_terminals here) if students should have a shell.
UNUSED_EXTENSIONS = ["jupyter_lsp", "jupyter_server_terminals", "notebook_shim"] + (["notebook"] if ui == "lab" else [])
# Nor does JupyterLab offer to rebuild itself (students cannot: the environment is root's) or check whether it should:
# the check asks node for yarn's configuration, a 95 MB process, each time a student opens JupyterLab.
NO_BUILD = {"page_config_data": {"buildAvailable": False, "buildCheck": False}}
c.Spawner.args = ["--ServerApp.jpserver_extensions=%r" % {name: False for name in UNUSED_EXTENSIONS},
                  "--ServerApp.tornado_settings=%r" % NO_BUILD]


ACCOUNTS = asyncio.Lock()  # one useradd at a time: two at once fail on the lock of /etc/passwd (status 1)


async def student_account(name, home):
    """The Unix account of a student, made on first use (useradd, without blocking the hub); refuses an account that
    the classroom did not make."""
    async with ACCOUNTS:
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            made = await asyncio.create_subprocess_exec(
                "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", home, "--shell", "/bin/bash",
                "--comment", "wordlab classroom student", name)
            if await made.wait() != 0:
                raise RuntimeError("useradd %s failed (status %d)" % (name, made.returncode))
            pw = pwd.getpwnam(name)
    if pw.pw_dir != home or pw.pw_uid == 0:
        raise RuntimeError("%s is an account of this machine that the classroom did not make (home %s)" % (name, pw.pw_dir))
    return pw


async def prepare_student(spawner):
    """Before a student's server starts: the account, and a home only they can open (the folder of homes is root's,
    so nothing in it is a student's link).  The server itself copies the lessons in, as the student
    (lab-singleuser.sh: lessons-copy.sh), so root never writes into a folder a student controls."""
    name = spawner.user.name
    home = os.path.join(homes, name)
    pw = await student_account(name, home)
    os.makedirs(home, mode=0o700, exist_ok=True)
    os.chown(home, pw.pw_uid, pw.pw_gid, follow_symlinks=False)
    os.chmod(home, 0o700, follow_symlinks=False)


c.Spawner.pre_spawn_hook = prepare_student
