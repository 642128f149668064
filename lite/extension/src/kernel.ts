// kernel.ts: the wordlab kernel of a JupyterLite page: a BaseKernel whose requests run in the Web Worker of
// lite/worker.js (the C kernel compiled to WebAssembly); it passes on the worker's replies and IOPub messages.
import type { KernelMessage } from '@jupyterlab/services';
import { BaseKernel, type IKernel } from '@jupyterlite/services';
import { PromiseDelegate } from '@lumino/coreutils';

/** Where the worker is and what it may read. */
export interface IWordlabOptions {
  workerUrl: string;
  artifacts: { name: string; url: string }[];
  /** 'auto': the relaxed-SIMD build where the engine fuses its multiply-add; 'portable': the other build. */
  build: 'auto' | 'portable';
}

interface IPending {
  reply: any;
  done: PromiseDelegate<any>;
}

export class WordlabKernel extends BaseKernel {
  constructor(options: IKernel.IOptions, wordlab: IWordlabOptions) {
    super(options);
    this._worker = new Worker(wordlab.workerUrl, { type: 'module' });
    this._worker.onmessage = (e) => this._onMessage(e.data);
    // Interrupt inside a running cell needs memory shared with the worker: only a cross-origin isolated page has it.
    this._interrupt = self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this._worker.postMessage({
      op: 'start',
      artifacts: wordlab.artifacts,
      build: wordlab.build,
      interrupt: this._interrupt?.buffer ?? null
    });
  }

  get ready(): Promise<void> {
    return this._ready.promise;
  }

  /** Whether an interrupt can stop the cell that runs (else it stops the cells queued after it only). */
  get canInterruptRunning(): boolean {
    return this._interrupt !== null;
  }

  /** Asks the running cell to stop: the runtime reads the request at its next step. */
  interruptRunning(): void {
    if (this._interrupt && this._executing) Atomics.store(this._interrupt, 0, 1);
  }

  dispose(): void {
    if (this.isDisposed) return;
    this._worker.terminate();
    super.dispose();
  }

  async kernelInfoRequest(): Promise<KernelMessage.IInfoReplyMsg['content']> {
    return this._request('kernel_info_request', {});
  }

  async executeRequest(
    content: KernelMessage.IExecuteRequestMsg['content']
  ): Promise<KernelMessage.IExecuteReplyMsg['content']> {
    this._executing = true;
    try {
      return await this._request('execute_request', content);
    } finally {
      this._executing = false;
    }
  }

  async completeRequest(
    content: KernelMessage.ICompleteRequestMsg['content']
  ): Promise<KernelMessage.ICompleteReplyMsg['content']> {
    return this._request('complete_request', content);
  }

  async inspectRequest(
    content: KernelMessage.IInspectRequestMsg['content']
  ): Promise<KernelMessage.IInspectReplyMsg['content']> {
    return this._request('inspect_request', content);
  }

  async isCompleteRequest(
    content: KernelMessage.IIsCompleteRequestMsg['content']
  ): Promise<KernelMessage.IIsCompleteReplyMsg['content']> {
    return this._request('is_complete_request', content);
  }

  async commInfoRequest(
    content: KernelMessage.ICommInfoRequestMsg['content']
  ): Promise<KernelMessage.ICommInfoReplyMsg['content']> {
    return this._request('comm_info_request', content);
  }

  /** The kernel asks for no input (the browser kernel has no stdin). */
  inputReply(content: KernelMessage.IInputReplyMsg['content']): void {
    void content;
  }

  /** wordlab has no comm targets: the kernel answers a comm_open by closing the comm. */
  async commOpen(msg: KernelMessage.ICommOpenMsg): Promise<void> {
    await this._request('comm_open', msg.content);
  }

  async commMsg(msg: KernelMessage.ICommMsgMsg): Promise<void> {
    void msg;
  }

  async commClose(msg: KernelMessage.ICommCloseMsg): Promise<void> {
    void msg;
  }

  /** Runs one request in the worker: its IOPub messages go out as they come, its reply is returned. */
  private async _request(type: string, content: unknown): Promise<any> {
    await this._ready.promise;
    const id = ++this._lastId;
    const pending: IPending = { reply: null, done: new PromiseDelegate<any>() };
    this._pending.set(id, pending);
    this._worker.postMessage({ op: 'request', id, type, content: JSON.stringify(content) });
    return pending.done.promise;
  }

  private _onMessage(m: any): void {
    if (m.op === 'started') {
      this._ready.resolve();
      return;
    }
    const pending = m.id !== undefined ? this._pending.get(m.id) : undefined;
    if (m.op === 'failed') {
      const error = new Error(`wordlab kernel: ${m.error}`);
      if (pending) {
        this._pending.delete(m.id);
        pending.done.reject(error);
      } else {
        this._ready.reject(error);
      }
    } else if (m.op === 'done' && pending) {
      this._pending.delete(m.id);
      pending.done.resolve(pending.reply);
    } else if (m.op === 'msg' && pending) {
      const content = JSON.parse(m.content);
      if (m.kind === 0) pending.reply = content;
      else this._publish(m.type, content);
    }
  }

  /** An IOPub message of the C core, through BaseKernel (which sends status and execute_input itself). */
  private _publish(type: string, content: any): void {
    switch (type) {
      case 'stream':
        this.stream(content);
        break;
      case 'display_data':
        this.displayData(content);
        break;
      case 'update_display_data':
        this.updateDisplayData(content);
        break;
      case 'clear_output':
        this.clearOutput(content);
        break;
      case 'execute_result':
        this.publishExecuteResult(content);
        break;
      case 'error':
        this.publishExecuteError(content);
        break;
      case 'comm_close':
        this.handleComm('comm_close', content, {}, []);
        break;
      default:
        break;   // status and execute_input: BaseKernel's own
    }
  }

  private _worker: Worker;
  private _interrupt: Int32Array | null;
  private _executing = false;
  private _ready = new PromiseDelegate<void>();
  private _pending = new Map<number, IPending>();
  private _lastId = 0;
}
