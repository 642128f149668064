/* wl_relaxed.h: WebAssembly's relaxed-SIMD fused multiply-add (a*b + c) by the name the compiler knows: LLVM 14
 * (Debian 12's emscripten) calls it __builtin_wasm_fma_*, LLVM 19 (Debian 13's) __builtin_wasm_relaxed_madd_*.
 * wl_wasm_madd_f32x4(a, b, c) takes float [4] vectors, wl_wasm_madd_f64x2 double [2]. */
#ifndef WL_RELAXED_H
#define WL_RELAXED_H

#if defined(__wasm_relaxed_simd__)
#if __has_builtin(__builtin_wasm_relaxed_madd_f32x4)
#define wl_wasm_madd_f32x4 __builtin_wasm_relaxed_madd_f32x4
#define wl_wasm_madd_f64x2 __builtin_wasm_relaxed_madd_f64x2
#else
#define wl_wasm_madd_f32x4 __builtin_wasm_fma_f32x4
#define wl_wasm_madd_f64x2 __builtin_wasm_fma_f64x2
#endif
#endif

#endif
