// worker.js: the wordlab kernel's Web Worker: the WebAssembly module of wl_lite.c (the native kernel's protocol core,
// output layer, adapter and runtime), its files, and the messages between it and the page (extension/src/kernel.ts).
//
// From the page: {op: 'start', artifacts: [{name, url}], build: 'auto' | 'portable', interrupt: SharedArrayBuffer |
// null}, then
// {op: 'request', id, type, content: JSON text}, one at a time. To the page: {op: 'started'} or {op: 'failed',
// error}; for each request its messages {op: 'msg', id, kind: 0 (the reply) | 1 (IOPub), type, content: JSON text}
// as they happen, then {op: 'done', id}.
//
// Files: the site's artifacts are lazy files in /artifacts (each fetched from the site, once, when the runtime first
// reads it: `artifact vocab.json`, `model load`); the working directory /home/wordlab lives in the browser's
// IndexedDB (IDBFS), written back after every cell, so `model save`, `compare dir=...` and saved corpora outlast the
// page. Interrupt: with a SharedArrayBuffer (a cross-origin isolated page) the page sets its first int; every time
// the running cell sends a message (each printed line, each live display update of a training run) the worker moves
// that request into the runtime's own interrupt flag, which the runtime reads between steps and in its loops.
// Two builds of the module: wordlab-lite-relaxed computes its matrix products and the sequence lesson's exp with
// relaxed SIMD's fused multiply-add (the native kernel's arithmetic, several times faster than without); it is
// loaded where the engine has that instruction and fuses it (FUSED below), wordlab-lite everywhere else (the same
// numbers for the sequence lesson through an exact emulation; products summed in another order: see README).

// A module whose f() is 1 when f32x4.relaxed_madd(1 + 2^-23, 1 - 2^-23, -1) is -2^-46 (fused), not 0 (rounded twice).
const FUSED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00,
  0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a, 0x46, 0x01, 0x44, 0x00,
  0xfd, 0x0c, ...[0, 1, 2, 3].flatMap(() => [0x01, 0x00, 0x80, 0x3f]),
  0xfd, 0x0c, ...[0, 1, 2, 3].flatMap(() => [0xfe, 0xff, 0x7f, 0x3f]),
  0xfd, 0x0c, ...[0, 1, 2, 3].flatMap(() => [0x00, 0x00, 0x80, 0xbf]),
  0xfd, 0x85, 0x02, 0xfd, 0x1f, 0x00, 0x43, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x0b]);

function fused() {
  try {
    return new WebAssembly.Instance(new WebAssembly.Module(FUSED_PROBE)).exports.f() === 1;
  } catch {
    return false;   // no relaxed SIMD here
  }
}

const ARTIFACTS = '/artifacts';
const HOME = '/home/wordlab';
const CACHE = `${HOME}/.cache/wordlab`;

let mod = null;
let handle = null;
let flag = 0;              // address of the runtime's interrupt flag (an int)
let interrupt = null;      // Int32Array over the page's SharedArrayBuffer, or null
let current = null;        // id of the request that runs

// The page asked for an interrupt: the runtime's flag is set (the request is taken once).
function takeInterrupt() {
  if (interrupt && Atomics.exchange(interrupt, 0, 0)) mod.HEAP32[flag >> 2] = 1;
}

function syncfs(populate) {
  return new Promise((resolve) => {
    mod.FS.syncfs(populate, (err) => {
      if (err) console.warn(`wordlab: the browser storage could not be ${populate ? 'read' : 'written'}:`, err);
      resolve();
    });
  });
}

// A C string that lives as long as the module.
function staticString(s) {
  const n = mod.lengthBytesUTF8(s) + 1;
  const p = mod._malloc(n);
  mod.stringToUTF8(s, p, n);
  return p;
}

async function start(m) {
  interrupt = m.interrupt ? new Int32Array(m.interrupt) : null;
  const build = m.build !== 'portable' && fused() ? 'wordlab-lite-relaxed' : 'wordlab-lite';
  const { default: createModule } = await import(`./${build}.mjs`);
  console.log(`wordlab: ${build}`);
  mod = await createModule({
    locateFile: (file) => new URL(file, import.meta.url).href,
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
    wlkEmit(kind, type, content) {
      takeInterrupt();
      postMessage({ op: 'msg', id: current, kind, type, content });
    },
  });
  const { FS } = mod;
  FS.mkdir(ARTIFACTS);
  for (const a of m.artifacts) FS.createLazyFile(ARTIFACTS, a.name, a.url, true, false);
  FS.mkdirTree(HOME);
  FS.mount(mod.IDBFS, {}, HOME);
  await syncfs(true);
  FS.mkdirTree(CACHE);
  FS.chdir(HOME);
  const startKernel = mod.cwrap('wlk_start', 'number', ['number', 'number']);
  if (startKernel(staticString(ARTIFACTS), staticString(CACHE)) < 0) throw new Error('the interpreter could not be created');
  handle = mod.cwrap('wlk_handle', 'number', ['string', 'string']);
  flag = mod.ccall('wlk_interrupt_flag', 'number', [], []);
}

async function request(m) {
  current = m.id;
  if (handle(m.type, m.content) < 0) throw new Error(`${m.type}: the content is not a JSON object`);
  if (m.type === 'execute_request') await syncfs(false);
  if (interrupt) Atomics.store(interrupt, 0, 0);   // a request that came after the cell ended is not the next one's
  current = null;
  postMessage({ op: 'done', id: m.id });
}

self.onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.op === 'start') {
      await start(m);
      postMessage({ op: 'started' });
    } else if (m.op === 'request') {
      await request(m);
    }
  } catch (err) {
    postMessage({ op: 'failed', id: m.id, error: String(err && err.message ? err.message : err) });
  }
};
