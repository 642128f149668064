/* wl_relaxed.h: WebAssembly's relaxed-SIMD fused multiply-add (a*b + c) by the name the compiler knows: LLVM 14
 * (Debian 12's emscripten) calls it __builtin_wasm_fma_*, LLVM 19 (Debian 13's) __builtin_wasm_relaxed_madd_*. */
#ifndef WL_RELAXED_H
#define WL_RELAXED_H

#if defined(__wasm_relaxed_simd__)
typedef float wl_relaxed_f4 __attribute__((vector_size(16)));    /* [4] */
typedef double wl_relaxed_d2 __attribute__((vector_size(16)));   /* [2] */

static inline wl_relaxed_f4 wl_wasm_madd_f32x4(wl_relaxed_f4 a, wl_relaxed_f4 b, wl_relaxed_f4 c)
{
#if __has_builtin(__builtin_wasm_relaxed_madd_f32x4)
    return __builtin_wasm_relaxed_madd_f32x4(a, b, c);
#else
    return __builtin_wasm_fma_f32x4(a, b, c);
#endif
}

static inline wl_relaxed_d2 wl_wasm_madd_f64x2(wl_relaxed_d2 a, wl_relaxed_d2 b, wl_relaxed_d2 c)
{
#if __has_builtin(__builtin_wasm_relaxed_madd_f64x2)
    return __builtin_wasm_relaxed_madd_f64x2(a, b, c);
#else
    return __builtin_wasm_fma_f64x2(a, b, c);
#endif
}
#endif

#endif
