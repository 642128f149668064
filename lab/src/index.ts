// index.ts: the wordlab JupyterLab extension: the text/x-wordlab editor mode, the .wlab file type with its icon, and a launcher item for a new .wlab file.
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICodeMirror } from '@jupyterlab/codemirror';
import { ILauncher } from '@jupyterlab/launcher';
import { LabIcon } from '@jupyterlab/ui-components';
import logo from '../../share/jupyter/kernels/wordlab/logo-svg.svg';
import { wordlabMode, wordlabModeInfo } from './mode';

/** The kernel's logo as the icon of .wlab files and of the launcher item. */
export const wordlabIcon = new LabIcon({ name: 'wordlab:logo', svgstr: logo });

const CREATE_FILE = 'wordlab:create-file';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'wordlab:plugin',
  autoStart: true,
  requires: [ICodeMirror],
  optional: [ILauncher],
  activate: (app: JupyterFrontEnd, codeMirror: ICodeMirror, launcher: ILauncher | null) => {
    // The mode, registered before any editor asks for it: cells and consoles of the wordlab kernel (its
    // language_info names codemirror_mode "wordlab", mimetype text/x-wordlab) and editors of *.wlab files.
    const cm = codeMirror.CodeMirror as any;
    cm.defineMode('wordlab', () => wordlabMode);
    cm.defineMIME(wordlabModeInfo.mime, 'wordlab');
    if (!cm.modeInfo.some((info: { name: string }) => info.name === wordlabModeInfo.name)) cm.modeInfo.push(wordlabModeInfo);

    app.docRegistry.addFileType({
      name: 'wordlab',
      displayName: 'wordlab script',
      extensions: ['.wlab'],
      mimeTypes: [wordlabModeInfo.mime],
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
