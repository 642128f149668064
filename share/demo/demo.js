// demo.js: the browser demo: loads the WebAssembly runtime, the bundled vocabulary and checkpoints as they are, and
// generates one model call at a time, showing each token, the numbers of the run and the attention heads' weights.
import { loadRuntime } from './wordlab.mjs';

const $ = (id) => document.getElementById(id);
const WARMUP_CALLS = 3;
const state = { rt: null, vocab: null, data: null, models: new Map(), downloaded: 0, running: null };

// Fetches a file of the page as bytes, counting them.
async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot download ${url}: HTTP ${r.status}`);
  const bytes = new Uint8Array(await r.arrayBuffer());
  state.downloaded += bytes.length;
  return bytes;
}

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
function status(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

function tokenSpan(text, cls, title) {
  const s = document.createElement('span');
  s.className = `tok ${cls}`;
  s.textContent = text;
  if (title) s.title = title;
  return s;
}

// The chosen model, downloaded and warmed up on first use (neither counts in the run's numbers).
async function currentModel() {
  const entry = state.data.models[Number($('model').value)];
  if (!state.models.has(entry.file)) {
    status(`downloading ${entry.file} (${mb(entry.bytes)})…`);
    const bytes = await fetchBytes(`artifacts/${entry.file}`);
    const model = state.rt.model(bytes, entry.file, state.vocab);
    const ctx = new Int32Array(state.rt.T);
    ctx[state.rt.T - 1] = 1;   // <BOS>
    for (let i = 0; i < WARMUP_CALLS; i++) model.forward(ctx);
    if (model.heads) model.details(ctx);
    state.models.set(entry.file, model);
  }
  return state.models.get(entry.file);
}

// A story prompt, with how the story itself goes on (its first words after the prompt).
function chooseStory(kind, i) {
  const p = state.data.prompts[kind][i];
  $('prompt').value = p.prompt;
  const rest = p.story.replace(/\s+/g, ' ').trim().slice(p.prompt.length).trim().split(' ').slice(0, 40).join(' ');
  $('story-rest').textContent = `the ${kind === 'train' ? 'training' : 'held-out'} story goes on: ${rest} …`;
  $('story-rest').hidden = false;
}

function fillStories() {
  const kind = document.querySelector('input[name=kind]:checked').value;
  const sel = $('story');
  sel.replaceChildren();
  sel.hidden = kind === 'outside';
  if (kind === 'outside') {
    $('prompt').value = state.outside;
    $('story-rest').hidden = true;
  } else {
    for (const [i, p] of state.data.prompts[kind].entries()) sel.add(new Option(`${p.label}: ${p.prompt}`, String(i)));
    chooseStory(kind, 0);
  }
  showPromptTokens();
}

// The prompt as the model sees it: its tokens, unknown words as <UNK>.
function showPromptTokens() {
  const box = $('prompt-tokens');
  box.replaceChildren();
  let enc;
  try {
    enc = state.vocab.encode($('prompt').value);
  } catch (e) {
    box.append(tokenSpan(e.message, 'unk'));
    return null;
  }
  enc.tokens.forEach((t, i) => box.append(enc.ids[i] === 3 ? tokenSpan('<UNK>', 'unk', `"${t}" is not in the vocabulary`)
                                                           : tokenSpan(t, '')));
  return enc;
}

function showNumbers(g) {
  $('n-new').textContent = String(g.count);
  $('n-calls').textContent = String(g.calls);
  $('stop-reason').textContent = g.finished ? g.stop : 'running…';
  $('seconds').textContent = g.seconds.toFixed(4);
  $('ms-per-call').textContent = g.msPerCall.toFixed(3);
}

// The head table: one row per head, the final query's weights over the real (non-PAD) keys of ctx.
function showHeads(model, ctx, weights) {
  const T = state.rt.T, table = $('heads');
  const keys = [];
  for (let k = 0; k < T; k++) if (ctx[k] !== 0) keys.push(k);
  const head = document.createElement('tr');
  head.append(Object.assign(document.createElement('th'), { textContent: 'Head', className: 'head' }));
  for (const k of keys) head.append(Object.assign(document.createElement('th'), { textContent: state.vocab.token(ctx[k]) }));
  const rows = [head];
  for (let h = 0; h < model.heads; h++) {
    const tr = document.createElement('tr');
    tr.append(Object.assign(document.createElement('th'), { textContent: `head ${h + 1}`, className: 'head' }));
    for (const k of keys) {
      const w = weights[(h * T + T - 1) * T + k];
      const td = document.createElement('td');
      td.textContent = w.toFixed(2);
      td.style.background = `rgba(40, 100, 200, ${Math.min(1, Math.sqrt(w)).toFixed(3)})`;
      if (w > 0.35) td.style.color = '#fff';
      tr.append(td);
    }
    rows.push(tr);
  }
  table.replaceChildren(...rows);
  table.parentElement.scrollLeft = table.parentElement.scrollWidth;   // the newest keys in view
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function generate(ev) {
  ev.preventDefault();
  if (state.running) return;
  const run = { stop: false };
  state.running = run;
  $('generate').disabled = true;
  $('stop').disabled = false;
  try {
    const model = await currentModel();
    const enc = showPromptTokens();
    if (!enc) throw new Error('the prompt cannot be tokenized');
    const greedy = document.querySelector('input[name=decode]:checked').value === 'greedy';
    const g = model.start(enc.ids, {
      maxNewTokens: Number($('limit').value), greedy,
      temperature: Number($('temperature').value), seed: Number($('seed').value),
    });
    status(`${model.kind}: generating…`);
    $('output').replaceChildren();
    $('text').textContent = '';
    $('heads-box').hidden = !model.heads;
    $('heads').replaceChildren();
    try {
      showNumbers(g);
      while (!g.finished) {
        if (run.stop) {
          g.interrupt();
          break;
        }
        const ctx = g.context();   // what this step's model call reads
        const weights = model.heads ? model.details(ctx).weights : null;
        const id = g.step();
        if (id !== null) $('output').append(tokenSpan(state.vocab.token(id), 'new'));
        if (weights) showHeads(model, ctx, weights);
        showNumbers(g);
        await nextTask();   // lets the page draw this token
      }
      showNumbers(g);
      const prompt = $('prompt').value.trim();
      $('text').textContent = `${prompt} ⟶ ${state.vocab.detokenize(g.ids(), enc.ids)}`;
      status(`${model.kind}: done, ${g.count} new token${g.count === 1 ? "" : "s"}; downloaded so far ${mb(state.downloaded)}`);
      document.body.dataset.runs = String(Number(document.body.dataset.runs || 0) + 1);
    } finally {
      g.free();
    }
  } catch (e) {
    status(e.message, true);
    document.body.dataset.error = e.message;
  } finally {
    state.running = null;
    $('generate').disabled = false;
    $('stop').disabled = true;
  }
}

async function main() {
  const t0 = performance.now();
  const [wasm, data, vocab] = await Promise.all([
    fetchBytes('wordlab-wasm.wasm'), fetchBytes('demo-data.json'), fetchBytes('artifacts/vocab.json')]);
  state.rt = await loadRuntime(wasm);
  state.data = JSON.parse(new TextDecoder().decode(data));
  state.vocab = state.rt.vocab(vocab, 'vocab.json');
  state.outside = state.data.prompts.outside;
  for (const [i, m] of state.data.models.entries()) {
    const what = m.kind === 'mlp' ? 'mlp' : m.heads === 1 ? 'one head' : `${m.heads} heads`;
    $('model').add(new Option(`${m.kind} (${what}, ${m.parameters.toLocaleString('en')} parameters) — ${m.file}`, String(i)));
  }
  $('model').value = String(state.data.models.findIndex((m) => m.kind !== 'mlp') >= 0
    ? state.data.models.findIndex((m) => m.kind !== 'mlp') : 0);
  const showInfo = () => {
    const m = state.data.models[Number($('model').value)];
    $('model-info').textContent = `${mb(m.bytes)} to download`;
  };
  showInfo();
  $('model').addEventListener('change', showInfo);
  for (const r of document.querySelectorAll('input[name=kind]')) r.addEventListener('change', fillStories);
  $('story').addEventListener('change', () => {
    chooseStory(document.querySelector('input[name=kind]:checked').value, Number($('story').value));
    showPromptTokens();
  });
  $('prompt').addEventListener('input', () => {
    if (document.querySelector('input[name=kind]:checked').value === 'outside') state.outside = $('prompt').value;
    showPromptTokens();
  });
  $('controls').addEventListener('submit', generate);
  $('stop').addEventListener('click', () => { if (state.running) state.running.stop = true; });
  fillStories();
  $('generate').disabled = false;
  status(`ready: runtime, vocabulary (${state.vocab.size.toLocaleString('en')} tokens) and page data loaded in ` +
         `${((performance.now() - t0) / 1000).toFixed(2)} s, ${mb(state.downloaded)}; each model downloads when first used`);
  document.body.dataset.ready = '1';
}

main().catch((e) => {
  status(`the demo cannot start: ${e.message}`, true);
  document.body.dataset.error = e.message;
});
