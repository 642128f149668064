// index.ts: the JupyterLite plugin that registers the wordlab kernel (kernel.ts) and routes interrupts to it.
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
import { IKernelClient, IKernelSpecs, type IKernel } from '@jupyterlite/services';

import { WordlabKernel } from './kernel';

// Where the extension's static files are (the worker, the WebAssembly module, the logos, artifacts.json).
const STATIC = 'extensions/@wordlab/lite-kernel/static/';

const plugin: JupyterFrontEndPlugin<void> = {
  id: '@wordlab/lite-kernel:kernel',
  autoStart: true,
  requires: [IKernelSpecs, IKernelClient],
  activate: (app: JupyterFrontEnd, kernelspecs: IKernelSpecs, client: IKernelClient) => {
    const base = PageConfig.getBaseUrl();
    const staticUrl = (file: string) => URLExt.join(base, STATIC, file);
    const kernels = new Map<string, WordlabKernel>();
    kernelspecs.register({
      spec: {
        name: 'wordlab',
        display_name: 'wordlab',
        language: 'wordlab',
        argv: [],
        resources: {
          'logo-32x32': staticUrl('logo-32x32.png'),
          'logo-64x64': staticUrl('logo-64x64.png'),
          'logo-svg': staticUrl('logo-svg.svg')
        }
      },
      create: async (options: IKernel.IOptions): Promise<IKernel> => {
        // artifacts.json: the bundled artifacts, which the site serves from its contents (files/artifacts/).
        const listing = await fetch(staticUrl('artifacts.json'));
        if (!listing.ok) throw new Error(`wordlab kernel: ${listing.url}: HTTP ${listing.status}`);
        const names: string[] = await listing.json();
        const artifacts = names.map((name) => ({ name, url: URLExt.join(base, 'files/artifacts', name) }));
        // ?wordlab-build=portable in the page's address: the build for engines without relaxed SIMD (to compare).
        const build = new URLSearchParams(window.location.search).get('wordlab-build') === 'portable' ? 'portable' : 'auto';
        const kernel = new WordlabKernel(options, { workerUrl: staticUrl('worker.js'), artifacts, build });
        kernels.set(kernel.id, kernel);
        kernel.disposed.connect(() => kernels.delete(kernel.id));
        return kernel;
      }
    });
    // JupyterLite's interrupt cancels the cells queued behind the running one; the running cell is the kernel's.
    const interrupt = client.interrupt.bind(client);
    client.interrupt = async (id: string) => {
      kernels.get(id)?.interruptRunning();
      return interrupt(id);
    };
  }
};

export default [plugin];
