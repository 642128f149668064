// app.js: the JupyterLab application: the @jupyterlab/* plugins a user expects, the wordlab extension, started on page load.
import { PageConfig } from '@jupyterlab/coreutils';

// The chunks and assets load from the server's static URL for this application (set before any CSS is imported).
// eslint-disable-next-line no-undef
__webpack_public_path__ = PageConfig.getOption('fullStaticUrl') + '/';

const styles = import('wordlab-lab-style');

// Plugin packages; each default export is a plugin or a list of plugins. Their schemas were copied by Build.ensureAssets.
const extensions = [
  import('@jupyterlab/application-extension'),
  import('@jupyterlab/apputils-extension'),
  import('@jupyterlab/codemirror-extension'),
  import('@jupyterlab/completer-extension'),
  import('@jupyterlab/console-extension'),
  import('@jupyterlab/docmanager-extension'),
  import('@jupyterlab/documentsearch-extension'),
  import('@jupyterlab/filebrowser-extension'),
  import('@jupyterlab/fileeditor-extension'),
  import('@jupyterlab/help-extension'),
  import('@jupyterlab/hub-extension'),
  import('@jupyterlab/imageviewer-extension'),
  import('@jupyterlab/inspector-extension'),
  import('@jupyterlab/launcher-extension'),
  import('@jupyterlab/mainmenu-extension'),
  import('@jupyterlab/markdownviewer-extension'),
  import('@jupyterlab/mathjax2-extension'),
  import('@jupyterlab/notebook-extension'),
  import('@jupyterlab/rendermime-extension'),
  import('@jupyterlab/running-extension'),
  import('@jupyterlab/settingeditor-extension'),
  import('@jupyterlab/shortcuts-extension'),
  import('@jupyterlab/statusbar-extension'),
  import('@jupyterlab/theme-dark-extension'),
  import('@jupyterlab/theme-light-extension'),
  import('@jupyterlab/toc-extension'),
  import('@jupyterlab/tooltip-extension'),
  import('@jupyterlab/translation-extension'),
  import('@jupyterlab/ui-components-extension'),
  import('./src/index'),
];
// Renderers of MIME types beyond the built-in HTML, SVG, images, Markdown, LaTeX and text. The JSON tree comes
// after all of them (rank 130, text/plain is 120), as in Notebook 6: wordlab's values carry application/json for
// programs next to the text, tables and pictures meant to be read (JupyterLab's own rank 0 would show the tree).
const JSON_RANK = 130;
const mimeExtensions = [
  import('@jupyterlab/json-extension').then((m) => ({
    __esModule: true,
    default: m.default.map((extension) => ({ ...extension, rank: JSON_RANK })),
  })),
];

function plugins(module) {
  const exported = module.default;
  return Array.isArray(exported) ? exported : [exported];
}

window.addEventListener('load', async () => {
  const { JupyterLab } = await import('@jupyterlab/application');
  await styles;
  const lab = new JupyterLab({ mimeExtensions: await Promise.all(mimeExtensions) });
  lab.registerPlugins((await Promise.all(extensions)).flatMap(plugins));
  await lab.start();
  await lab.restored;
  document.body.dataset.wordlabLab = 'restored';
});
