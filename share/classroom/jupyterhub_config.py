# jupyterhub_config.py: a wordlab classroom on one machine: JupyterHub, one single-user server per student, the lessons in every home.
#
# `make classroom` (scripts/classroom.sh) starts Debian's JupyterHub with this file; the load test
# (tests/load/loadtest.py) starts it the same way.  Every setting below that a real deployment
# changes is marked REAL DEPLOYMENT.  The script passes its choices through environment variables:
#
#   WORDLAB_CLASSROOM_STATE    folder for the hub's database, cookie secret and proxy token
#   WORDLAB_CLASSROOM_HOMES    folder under which each student's home is made (local trials)
#   WORDLAB_CLASSROOM_PORT     the port the hub's proxy listens on (127.0.0.1 only)
#   WORDLAB_CLASSROOM_HUB_PORT, WORDLAB_CLASSROOM_PROXY_API_PORT  the hub's and the proxy's own ports
#   WORDLAB_CLASSROOM_LESSONS  the folder whose *.ipynb are copied into a new student's home
#   WORDLAB_CLASSROOM_LESSON_SOURCES  the source tree: a copied notebook is signed only when its content is
#                              notebooks/NAME.ipynb of a lessons/NAME.wlab there (unset: none is signed)
#   WORDLAB_CLASSROOM_UI       lab (JupyterLab 4 of the project environment) or classic (Notebook 6)
#   WORDLAB_CLASSROOM_LAB_CMD  the command that runs the JupyterLab single-user server (lab UI)
#   WORDLAB_CLASSROOM_JUPYTER_PATH  where the wordlab kernel spec is installed (JUPYTER_PATH)
#   WORDLAB_CLASSROOM_ARTIFACTS  the bundled artifacts' folder (WORDLAB_ARTIFACTS of every kernel)
#   WORDLAB_CLASSROOM_CACHE    the kernels' shared cache folder (WORDLAB_CACHE; default: STATE/cache)
#   WORDLAB_CLASSROOM_PASSWORD the one password of the dummy authenticator ("" = any password)
#   WORDLAB_CLASSROOM_API_TOKEN a token for the load test's service (admin of users and servers)
import os
import shutil

c = get_config()  # noqa: F821  (JupyterHub's config loader defines get_config)

env = os.environ.get
state = env("WORDLAB_CLASSROOM_STATE", os.path.abspath("classroom-state"))
homes = env("WORDLAB_CLASSROOM_HOMES", os.path.join(state, "home"))
lessons = env("WORDLAB_CLASSROOM_LESSONS", "")
sources = env("WORDLAB_CLASSROOM_LESSON_SOURCES", "")
ui = env("WORDLAB_CLASSROOM_UI", "classic")
os.makedirs(state, exist_ok=True)
os.makedirs(homes, exist_ok=True)

# --- network ---------------------------------------------------------------------------------
# The proxy listens on 127.0.0.1 only.  REAL DEPLOYMENT: put the proxy behind TLS (c.JupyterHub.ssl_key /
# ssl_cert, or a reverse proxy) and bind the address students reach, e.g. c.JupyterHub.bind_url = "https://0.0.0.0:443".
c.JupyterHub.bind_url = "http://127.0.0.1:%s" % env("WORDLAB_CLASSROOM_PORT", "8000")
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("WORDLAB_CLASSROOM_HUB_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%s" % env("WORDLAB_CLASSROOM_PROXY_API_PORT", "8001")
# Debian's configurable-http-proxy finds its Node modules through NODE_PATH (the hub passes its environment on).
os.environ.setdefault("NODE_PATH", "/usr/share/nodejs")
c.ConfigurableHTTPProxy.should_start = True

# --- the hub's own files ---------------------------------------------------------------------
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")
# Ctrl-C (SIGINT) or SIGTERM stops the hub, the proxy and every student's server.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# --- who logs in ----------------------------------------------------------------------------
# Local trials: any user name, with the one password below (or any password when it is empty).
# REAL DEPLOYMENT: the school's login, e.g. c.JupyterHub.authenticator_class = "pam" (system accounts),
# "oauthenticator.GitHubOAuthenticator" or an LTI authenticator for a learning platform; list the teachers
# in c.Authenticator.admin_users and restrict students with c.Authenticator.allowed_users.
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = env("WORDLAB_CLASSROOM_PASSWORD", "")
c.Authenticator.admin_users = {"teacher"}

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

# --- one server per student ------------------------------------------------------------------
# Local trials: every student's server runs as the hub's own user with a home of its own under
# WORDLAB_CLASSROOM_HOMES (SimpleLocalProcessSpawner; no isolation between students).
# REAL DEPLOYMENT: "jupyterhub.spawner.LocalProcessSpawner" (each student a system user, the hub as root),
# "systemdspawner" (cgroup limits per student) or "kubespawner" (see share/classroom/z2jh-values.yaml).
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(homes, "{username}")
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# A student's server that sits idle is not culled here; REAL DEPLOYMENT: add jupyterhub-idle-culler as a service.

jupyter_path = env("WORDLAB_CLASSROOM_JUPYTER_PATH", "")
c.Spawner.environment = {"JUPYTER_PATH": jupyter_path} if jupyter_path else {}
# The kernels' shared cache (generated corpora, their windows, the bundled checkpoints' weights and scores): computed
# once for the class and mapped by every kernel.  Only the folder's owner writes it; here every student's server runs
# as the hub's user, who owns it.  REAL DEPLOYMENT with students as system users: a folder owned by a classroom user
# who fills it (runs the lessons once) before class; students then read it and cannot change it.
c.Spawner.environment["WORDLAB_CACHE"] = env("WORDLAB_CLASSROOM_CACHE", os.path.join(state, "cache"))
artifacts = env("WORDLAB_CLASSROOM_ARTIFACTS", "")
if artifacts:  # where `artifact NAME` finds the bundled checkpoints (default: beside the wordlab program)
    c.Spawner.environment["WORDLAB_ARTIFACTS"] = artifacts
args = []
if os.geteuid() == 0:
    args.append("--allow-root")  # local trials as root run every student's server as root
if ui == "lab":
    # JupyterLab 4 of the project environment as the single-user UI (scripts/lab-singleuser.sh).
    c.Spawner.cmd = env("WORDLAB_CLASSROOM_LAB_CMD", "jupyterhub-singleuser").split()
    c.Spawner.default_url = "/lab"
else:
    # Notebook 6 as the single-user UI.
    c.Spawner.cmd = ["jupyterhub-singleuser"]
    c.Spawner.environment["JUPYTERHUB_SINGLEUSER_APP"] = "notebook.notebookapp.NotebookApp"
    c.Spawner.default_url = "/tree"
c.Spawner.args = args


def copy_lessons(spawner):
    """On a student's first login, copy the lessons into the new home (a lesson already there is kept)."""
    home = spawner.home_dir
    os.makedirs(home, exist_ok=True)
    if not lessons:
        return
    for name in sorted(os.listdir(lessons)):
        dest = os.path.join(home, name)
        if name.endswith(".ipynb") and not os.path.exists(dest):
            shutil.copyfile(os.path.join(lessons, name), dest)
            if is_built_lesson(dest):
                trust(dest, home)


def is_built_lesson(path):
    """Whether the file's content is a lesson as built from the source tree (notebooks/NAME.ipynb of a
    lessons/NAME.wlab): only those are signed, never any other file of the folder."""
    import filecmp
    if not sources:
        return False
    name = os.path.basename(path)
    built = os.path.join(sources, "notebooks", name)
    return (os.path.exists(os.path.join(sources, "lessons", name[:-len(".ipynb")] + ".wlab"))
            and os.path.exists(built) and filecmp.cmp(path, built, shallow=False))


def trust(path, home):
    """Sign a copied lesson for its student, so its saved tables and pictures show before it is run."""
    import nbformat
    from nbformat.sign import NotebookNotary
    data_dir = os.path.join(home, ".local", "share", "jupyter")  # the student's server runs with HOME=home
    os.makedirs(data_dir, exist_ok=True)
    notary = NotebookNotary(data_dir=data_dir)
    notary.sign(nbformat.read(path, as_version=4))


c.Spawner.pre_spawn_hook = copy_lessons
