// relaxed-simd.mjs: rewrites the fused multiply-adds of a WebAssembly module from the relaxed-SIMD proposal's early
// encoding, which Debian's emscripten (LLVM 14, binaryen 108) writes, to the standard's (what browsers run today):
// f32x4.fma 0xfd 0xaf 0x01 -> f32x4.relaxed_madd 0xfd 0x85 0x02, f32x4.fms 0xb0 -> relaxed_nmadd 0x106, f64x2.fma 0xcf
// -> relaxed_madd 0x107, f64x2.fms 0xd0 -> relaxed_nmadd 0x108. Each is a two-byte opcode in both, so the module's
// layout does not change. A newer emscripten (LLVM 19, Debian 13's) writes the standard opcodes itself: they pass. The code section is walked instruction by instruction (an opcode's immediates are skipped
// by their kind), so only opcodes are rewritten, never bytes inside a constant; an instruction it does not know
// stops it with an error.
// usage: node relaxed-simd.mjs IN.wasm OUT.wasm   (prints how many it rewrote)
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node relaxed-simd.mjs IN.wasm OUT.wasm');
  process.exit(2);
}
const RENAME = new Map([[0xaf, 0x105], [0xb0, 0x106], [0xcf, 0x107], [0xd0, 0x108]]);
const b = fs.readFileSync(input);
let pos = 0;
const fail = (what) => { throw new Error(`relaxed-simd: ${what} at byte ${pos} of ${input}`); };
function uleb() {
  let v = 0, shift = 0, byte;
  do {
    byte = b[pos++];
    v += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return v;
}
const sleb = () => { while (b[pos++] & 0x80); };   // skipped, never read
const memarg = () => { uleb(); uleb(); };

// One instruction's immediates after its opcode op (and, for prefixed ones, its sub-opcode sub).
function skipSimd(sub, at) {
  if (sub <= 11 || sub === 92 || sub === 93) memarg();
  else if (sub === 12 || sub === 13) pos += 16;                    // v128.const, i8x16.shuffle
  else if (sub >= 21 && sub <= 34) pos += 1;                       // extract/replace_lane
  else if (sub >= 84 && sub <= 91) { memarg(); pos += 1; }         // load/store_lane
  else if (RENAME.has(sub)) {
    if (pos - at !== 2) fail('a relaxed opcode not encoded in two bytes');
    const to = RENAME.get(sub);
    b[at] = 0x80 | (to & 0x7f);
    b[at + 1] = to >> 7;
    renamed++;
  } else if (sub > 0x113) fail(`SIMD opcode ${sub}`);              // 0x100-0x113: relaxed SIMD, standard, no immediate
}
function skipMisc(sub) {
  if (sub <= 7) return;                                            // trunc_sat
  if (sub === 8) { uleb(); pos += 1; } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) uleb();
  else if (sub === 10) pos += 2;                                   // memory.copy
  else if (sub === 11) pos += 1;                                   // memory.fill
  else if (sub === 12 || sub === 14) { uleb(); uleb(); } else fail(`0xfc opcode ${sub}`);
}
let renamed = 0;
function instruction() {
  const op = b[pos++];
  if (op === 0x02 || op === 0x03 || op === 0x04) {                 // block, loop, if: a block type
    if (b[pos] === 0x40 || (b[pos] >= 0x6f && b[pos] <= 0x7f)) pos += 1; else sleb();
  } else if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x26) || op === 0xd2) uleb();
  else if (op === 0x0e) { for (let n = uleb(); n >= 0; n--) uleb(); }   // br_table: the labels and the default
  else if (op === 0x11) { uleb(); uleb(); }
  else if (op === 0x1c) { for (let n = uleb(); n > 0; n--) pos += 1; }
  else if (op >= 0x28 && op <= 0x3e) memarg();
  else if (op === 0x3f || op === 0x40 || op === 0xd0) pos += 1;
  else if (op === 0x41 || op === 0x42) sleb();
  else if (op === 0x43) pos += 4;
  else if (op === 0x44) pos += 8;
  else if (op === 0xfc) skipMisc(uleb());
  else if (op === 0xfd) { const at = pos; skipSimd(uleb(), at); }
  else if (op === 0xfe) { if (uleb() === 3) pos += 1; else memarg(); }
  else if (op > 0xd2 || (op >= 0x06 && op <= 0x0a) || (op >= 0x12 && op <= 0x19) || (op >= 0x1d && op <= 0x1f) ||
           op === 0x27) fail(`opcode 0x${op.toString(16)}`);
}

if (b.readUInt32LE(0) !== 0x6d736100) fail('not a WebAssembly module');
pos = 8;
while (pos < b.length) {
  const id = b[pos++], size = uleb(), end = pos + size;
  if (id === 10) {
    for (let n = uleb(); n > 0; n--) {
      const bodySize = uleb(), bodyEnd = pos + bodySize;
      for (let groups = uleb(); groups > 0; groups--) { uleb(); pos += 1; }   // locals: count and type
      while (pos < bodyEnd) instruction();
      if (pos !== bodyEnd) fail('a function body that does not end where its size says');
    }
  }
  pos = end;
}
fs.writeFileSync(output, b);
console.log(`relaxed-simd: ${renamed} fused multiply-adds in ${output}`);
