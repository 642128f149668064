// index.ts: the wordlab JupyterLab 4 extension: the text/x-wordlab editor language, the .wlab file type with its
// icon, and a launcher item for a new .wlab file.
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { ILauncher } from '@jupyterlab/launcher';
import { LabIcon } from '@jupyterlab/ui-components';
import logo from '../style/logo.svg';
import { wordlabSupport } from './language';

/** The kernel's logo as the icon of .wlab files and of the launcher item. */
export const wordlabIcon = new LabIcon({ name: 'wordlab:logo', svgstr: logo });

const CREATE_FILE = 'wordlab:create-file';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'wordlab-jupyterlab:plugin',
  description: 'Highlighting of the wordlab language, the .wlab file type and a launcher item.',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  optional: [ILauncher],
  activate: (app: JupyterFrontEnd, languages: IEditorLanguageRegistry, launcher: ILauncher | null) => {
    // Cells and consoles of the wordlab kernel (its language_info names codemirror_mode "wordlab", mimetype
    // text/x-wordlab) and editors of *.wlab files find the language by name, MIME type or extension.
    languages.addLanguage({
      name: 'wordlab',
      displayName: 'wordlab',
      mime: 'text/x-wordlab',
      extensions: ['wlab'],
      support: wordlabSupport(),
    });

    app.docRegistry.addFileType({
      name: 'wordlab',
      displayName: 'wordlab script',
      extensions: ['.wlab'],
      mimeTypes: ['text/x-wordlab'],
      fileFormat: 'text',
      contentType: 'file',
      icon: wordlabIcon,
    });

    app.commands.addCommand(CREATE_FILE, {
      label: (args) => (args.isLauncher ? 'wordlab File' : 'New wordlab File'),
      caption: 'Create a new wordlab script (.wlab)',
      icon: (args) => (args.isLauncher ? wordlabIcon : undefined),
      execute: async (args) => {
        const cwd = (args.cwd as string) || '';
        const model = await app.commands.execute('docmanager:new-untitled', { path: cwd, type: 'file', ext: '.wlab' });
        return app.commands.execute('docmanager:open', { path: model.path, factory: 'Editor' });
      },
    });
    if (launcher) launcher.add({ command: CREATE_FILE, category: 'Other', rank: 1, args: { isLauncher: true } });
  },
};

export default plugin;
