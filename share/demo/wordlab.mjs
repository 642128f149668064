// wordlab.mjs: the C runtime compiled to WebAssembly, from JavaScript (the demo page and the Node tests): vocabulary,
// tokenize, checkpoints, forward, forward_details and generation one model call at a time (wasm/wl_wasm.c).
import createModule from './wordlab-wasm.mjs';

// Instantiates the module from the bytes of wordlab-wasm.wasm (the caller fetches or reads them).
export async function loadRuntime(wasmBinary) {
  const M = await createModule({ wasmBinary, print: () => {}, printErr: () => {} });
  return new Runtime(M);
}

export class Runtime {
  constructor(M) {
    this.M = M;
    this.T = M._wlw_context_len();
    this.nfiles = 0;
  }

  // Throws the runtime's message for the call that returned failure (after what, unless the message names a file).
  fail(what) {
    const msg = this.M.UTF8ToString(this.M._wlw_error());
    throw new Error(what ? `${what}: ${msg}` : msg);
  }

  // Runs fn(pointer) with s as a NUL-terminated UTF-8 string in the module's memory.
  withString(s, fn) {
    const n = this.M.lengthBytesUTF8(s) + 1;
    const p = this.M._malloc(n);
    try {
      this.M.stringToUTF8(s, p, n);
      return fn(p);
    } finally {
      this.M._free(p);
    }
  }

  // Runs fn(pointer) with ids as int32 values in the module's memory.
  withIds(ids, fn) {
    const p = this.M._malloc(4 * Math.max(ids.length, 1));
    try {
      this.M.HEAP32.set(ids, p >> 2);
      return fn(p);
    } finally {
      this.M._free(p);
    }
  }

  // The text of a malloc'd C string, freed afterwards.
  take(p, what) {
    if (!p) this.fail(what);
    const s = this.M.UTF8ToString(p);
    this.M._free(p);
    return s;
  }

  // Runs fn(path) with bytes as a file of the in-memory file system (in a directory of its own, under its own
  // name, which the runtime's messages then show), removed afterwards.
  withFile(name, bytes, fn) {
    const dir = `/load${this.nfiles++}`;
    const path = `${dir}/${name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
    this.M.FS.mkdir(dir);
    this.M.FS.writeFile(path, bytes);
    try {
      return this.withString(path, fn);
    } finally {
      this.M.FS.unlink(path);
      this.M.FS.rmdir(dir);
    }
  }

  tokenize(text) {
    return JSON.parse(this.take(this.withString(text, (p) => this.M._wlw_tokenize(p, 0)), 'tokenize')).tokens;
  }

  // vocab.json as it is.
  vocab(bytes, name = 'vocab.json') {
    const ptr = this.withFile(name, bytes, (p) => this.M._wlw_vocab_load(p));
    if (!ptr) this.fail(null);
    return new Vocab(this, ptr);
  }

  // A checkpoint .npz as it is; with vocab, its size must match.
  model(bytes, name, vocab) {
    const ptr = this.withFile(name, bytes, (p) => this.M._wlw_model_load(p, vocab ? vocab.size : 0));
    if (!ptr) this.fail(null);
    return new Model(this, ptr);
  }
}

// An object of the C runtime held by its pointer; free() gives it back through the runtime's function freeFn.
class Handle {
  constructor(rt, ptr, freeFn) {
    this.rt = rt;
    this.ptr = ptr;
    this.freeFn = freeFn;
  }

  free() {
    this.rt.M[this.freeFn](this.ptr);
    this.ptr = 0;
  }
}

export class Vocab extends Handle {
  constructor(rt, ptr) {
    super(rt, ptr, '_wlw_vocab_free');
    this.size = rt.M._wlw_vocab_size(ptr);
  }

  token(id) {
    const p = this.rt.M._wlw_vocab_token(this.ptr, id);
    return p ? this.rt.M.UTF8ToString(p) : null;
  }

  // {tokens, ids}: unknown words get id 3 (<UNK>).
  encode(text) {
    const rt = this.rt;
    return JSON.parse(rt.take(rt.withString(text, (p) => rt.M._wlw_tokenize(p, this.ptr)), 'tokenize'));
  }

  // The text of ids as English is written; before: the ids of the text before them (a prompt), whose open quotes
  // they close.
  detokenize(ids, before = []) {
    const rt = this.rt;
    const all = [...before, ...ids];
    return rt.take(rt.withIds(all, (p) => rt.M._wlw_detokenize(this.ptr, p, all.length, before.length)), 'detokenize');
  }
}

export class Model extends Handle {
  constructor(rt, ptr) {
    super(rt, ptr, '_wlw_model_free');
    const info = JSON.parse(rt.take(rt.M._wlw_model_info(ptr), 'model info'));
    this.kind = info.kind;
    this.parameters = info.parameters;
    this.metadata = info.metadata;
    this.V = rt.M._wlw_model_vocab_size(ptr);
    this.heads = rt.M._wlw_model_heads(ptr);   // 0 for mlp
    this.logitsPtr = rt.M._malloc(4 * this.V);
  }

  checkContext(ctx) {
    if (ctx.length !== this.rt.T) throw new Error(`a context has ${this.rt.T} ids, got ${ctx.length}`);
  }

  // Float32Array [V]: the final row's logits for ctx [T].
  forward(ctx) {
    const rt = this.rt;
    this.checkContext(ctx);
    if (rt.withIds(ctx, (p) => rt.M._wlw_forward(this.ptr, p, this.logitsPtr)) < 0) rt.fail('forward');
    return rt.M.HEAPF32.slice(this.logitsPtr >> 2, (this.logitsPtr >> 2) + this.V);
  }

  // forward_details of ctx [T]: {logits [V], weights [H*T*T] or null}.
  details(ctx) {
    const rt = this.rt, M = rt.M, T = rt.T;
    this.checkContext(ctx);
    const d = rt.withIds(ctx, (p) => M._wlw_details(this.ptr, p));
    if (!d) rt.fail('forward_details');
    try {
      const lp = M._wlw_details_logits(d) >> 2, wp = M._wlw_details_weights(d) >> 2;
      return {
        logits: M.HEAPF32.slice(lp, lp + this.V),
        weights: wp ? M.HEAPF32.slice(wp, wp + this.heads * T * T) : null,
      };
    } finally {
      M._wlw_details_free(d);
    }
  }

  // A generation from prompt ids: {maxNewTokens, greedy, temperature, seed}.
  start(promptIds, { maxNewTokens, greedy = true, temperature = 1, seed = 1 }) {
    const rt = this.rt;
    const g = rt.withIds(promptIds, (p) =>
      rt.M._wlw_gen_start(this.ptr, p, promptIds.length, maxNewTokens, greedy ? 1 : 0, temperature, seed));
    if (!g) rt.fail('generate');
    return new Generation(rt, g);
  }

  free() {
    this.rt.M._free(this.logitsPtr);
    super.free();
  }
}

export class Generation extends Handle {
  constructor(rt, ptr) {
    super(rt, ptr, '_wlw_gen_free');
  }

  get finished() { return this.rt.M._wlw_gen_finished(this.ptr) !== 0; }
  get count() { return this.rt.M._wlw_gen_count(this.ptr); }
  get calls() { return this.rt.M._wlw_gen_calls(this.ptr); }
  get seconds() { return this.rt.M._wlw_gen_seconds(this.ptr); }
  get msPerCall() { return this.calls ? (1000 * this.seconds) / this.calls : 0; }
  get stop() { return this.rt.M.UTF8ToString(this.rt.M._wlw_gen_stop(this.ptr)); }

  // Int32Array [T]: the context that the next model call feeds.
  context() {
    const p = this.rt.M._wlw_gen_context(this.ptr) >> 2;
    return this.rt.M.HEAP32.slice(p, p + this.rt.T);
  }

  ids() {
    const p = this.rt.M._wlw_gen_ids(this.ptr) >> 2;
    return Array.from(this.rt.M.HEAP32.subarray(p, p + this.count));
  }

  // One model call; returns the new id, or null when this call ended generation (EOS).
  step() {
    const before = this.count;
    if (this.rt.M._wlw_gen_step(this.ptr) < 0) this.rt.fail('generate');
    return this.count > before ? this.ids()[before] : null;
  }

  interrupt() { this.rt.M._wlw_gen_interrupt(this.ptr); }
}
