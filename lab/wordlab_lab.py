"""wordlab_lab.py: serves wordlab's JupyterLab application (built by lab/webpack.config.js) with Debian's jupyterlab_server.

Standalone:   python3 lab/wordlab_lab.py --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=notebooks
As an extension of a jupyter_server (e.g. JupyterHub's single-user server), with lab/ on PYTHONPATH:
              --ServerApp.jpserver_extensions='{"wordlab_lab": True}' --ServerApp.default_url=/lab
The built application is found in $WORDLAB_LAB_DIR, else in build/jupyterlab next to this directory.
"""
import json
import logging
import os
import sys

from jupyter_core.paths import jupyter_config_dir
from jupyter_server.base.handlers import APIHandler, FileFindHandler
from jupyter_server.utils import url_path_join
from jupyterlab_server import LabServerApp
from tornado import web

HERE = os.path.dirname(os.path.abspath(__file__))
# MathJax 2 (Debian's libjs-mathjax), served with the application at /mathjax/ so that LaTeX renders offline.
MATHJAX_DIR = "/usr/share/javascript/mathjax"


def _lab_dir():
    return os.path.abspath(os.environ.get("WORDLAB_LAB_DIR") or os.path.join(HERE, "..", "build", "jupyterlab"))


class IdentityHandler(APIHandler):
    """GET /api/me: who is logged in, as JupyterLab 3.6 asks it (jupyter_server 2 serves it; 1.23 does not)."""

    @web.authenticated
    def get(self):
        user = self.current_user
        name = str(user.get("name", "") if isinstance(user, dict) else user) or "anonymous"
        identity = {"username": name, "name": name, "display_name": name, "initials": name[:1].upper(),
                    "avatar_url": None, "color": None}
        self.finish(json.dumps({"identity": identity, "permissions": {}}))


def _jupyter_server_extension_points():
    return [{"module": "wordlab_lab", "app": WordlabLabApp}]


class WordlabLabApp(LabServerApp):
    name = "wordlab_lab"
    app_name = "wordlab JupyterLab"
    description = "JupyterLab with the wordlab extension, for the wordlab lessons"
    extension_url = "/lab"
    default_url = "/lab"
    # Run standalone, the server also loads the other enabled server extensions (e.g. nbclassic's /tree).
    load_other_extensions = True

    def initialize_templates(self):
        # The first of the extension's set-up steps (then settings, then handlers): every directory is known here.
        lab = _lab_dir()
        if not os.path.isfile(os.path.join(lab, "static", "main.js")):
            sys.exit(f"wordlab_lab: no built application in {lab} (build it with `make build`, or set WORDLAB_LAB_DIR)")
        with open(os.path.join(HERE, "package.json"), encoding="utf-8") as f:
            self.app_version = json.load(f)["version"]
        user_dir = os.path.join(jupyter_config_dir(), "wordlab-lab")
        self.static_dir = os.path.join(lab, "static")
        self.schemas_dir = os.path.join(lab, "schemas")
        self.themes_dir = os.path.join(lab, "themes")
        self.templates_dir = os.path.join(HERE, "templates")
        self.app_settings_dir = os.path.join(HERE, "settings")
        self.user_settings_dir = os.path.join(user_dir, "user-settings")
        self.workspaces_dir = os.path.join(user_dir, "workspaces")
        # No federated (prebuilt) extensions: this application is one bundle, without module federation.
        self.labextensions_path = []
        self.extra_labextensions_path = []
        super().initialize_templates()

    def initialize_settings(self):
        if not os.path.isfile(os.path.join(MATHJAX_DIR, "MathJax.js")):
            sys.exit(f"wordlab_lab: no MathJax in {MATHJAX_DIR} (Debian package libjs-mathjax)")
        self.settings["mathjax_url"] = url_path_join(self.serverapp.base_url, "mathjax", "MathJax.js")
        # SVG output: its glyphs are paths, no web font to fetch (HTML-CSS probes fonts at about:blank, a console error).
        self.settings["mathjax_config"] = "TeX-AMS_SVG-full,Safe"
        tornado = self.serverapp.tornado_settings
        if "hub_prefix" in tornado:
            # JupyterHub's single-user server: @jupyterlab/hub-extension's File > Hub Control Panel and Log Out.
            page = self.settings.setdefault("page_config_data", dict(self.serverapp.web_app.settings.get("page_config_data", {})))
            page.update(hubPrefix=tornado["hub_prefix"], hubHost=tornado.get("hub_host", ""), hubUser=tornado.get("user", ""),
                        shareUrl=url_path_join(tornado["hub_prefix"], "user-redirect"),
                        hubServerName=getattr(self.serverapp, "server_name", ""))
        super().initialize_settings()

    def initialize_handlers(self):
        self.handlers.append((r"/mathjax/(.*)", FileFindHandler, {"path": [MATHJAX_DIR]}))
        self.handlers.append((r"/api/me", IdentityHandler))
        super().initialize_handlers()


def main():
    WordlabLabApp.launch_instance()
    # The server has stopped and cleaned up (kernels shut down, connection and server files removed). Idle worker
    # threads of its libraries were seen to keep the interpreter from exiting after a SIGTERM: end the process here.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
