# wasm.mk: the wordlab kernel for the browser (wl_lite.c over the kernel core and the runtime), compiled by Debian's
# emscripten into $(OUT)/wordlab-lite.mjs and .wasm, and a second build wordlab-lite-relaxed.mjs and .wasm whose
# matrix products and sequence-lesson exp use relaxed SIMD's fused multiply-add (the sources of RELAXED compiled
# again with -mrelaxed-simd, the instruction given its standard encoding by relaxed-simd.mjs); the worker loads that
# one where the engine fuses it (lite/worker.js). The source lists come from CMake ($(OBJ)/sources.mk): the tree's
# (relative to SRC) and the generated ones (absolute).
# usage: make -f lite/wasm.mk SRC=... DEB=... OBJ=... OUT=...   (lite/build.sh runs it)
include $(OBJ)/sources.mk

CC = emcc
# The runtime's flags of the native build, with the portable CBLAS subset and SHA-256 in place of OpenBLAS and
# OpenSSL, and the library sources that scripts/debian-sources.sh unpacked.
SIMD := $(shell echo 'int main(void){return 0;}' | emcc -msimd128 -x c -c -o /dev/null - 2>/dev/null && echo -msimd128)
OPT = -O3 $(SIMD) -fno-math-errno
INC = -I$(SRC)/runtime/nn/portable -I$(SRC)/lite/portable -I$(DEB)/include -I$(DEB)/cjson -I$(DEB)/utf8proc -I$(DEB)/zlib \
      $(foreach m,core text corpus io nn seq lang,-I$(SRC)/runtime/$(m)) -I$(SRC)/kernel
CFLAGS = $(OPT) -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DUTF8PROC_STATIC $(INC) -MMD -MP
KERNEL_DEFS = -DWL_VERSION='"$(WL_VERSION)"' -DWL_SOURCE_DIR='"$(WL_SOURCE_DIR)"'

LIBS = deb/cjson/cJSON deb/utf8proc/utf8proc $(addprefix deb/zlib/,adler32 crc32 deflate inffast inflate inftrees trees zutil)
OBJS = $(patsubst %.c,$(OBJ)/%.o,$(WL_LITE_SRCS) lite/wl_lite.c lite/portable/wl_sha256.c runtime/nn/portable/wl_cblas.c) \
       $(patsubst %.c,$(OBJ)/generated/%.o,$(notdir $(WL_LITE_GEN))) $(addprefix $(OBJ)/,$(addsuffix .o,$(LIBS)))
vpath %.c $(sort $(dir $(WL_LITE_GEN)))

# The sources whose code differs with relaxed SIMD (wl_gemm.c's kernel, wl_seq_exp.h's fma); any other source is
# the same in both builds.
RELAXED = runtime/nn/wl_gemm.c runtime/seq/wl_seq_train.c runtime/seq/wl_seq_exp.c runtime/seq/wl_seq_measure.c
RELAXED_OBJS = $(filter-out $(patsubst %.c,$(OBJ)/%.o,$(RELAXED)),$(OBJS)) $(patsubst %.c,$(OBJ)/relaxed/%.o,$(RELAXED))
LINK = -sMODULARIZE=1 -sEXPORT_ES6=1 -sENVIRONMENT=worker -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=67108864 \
       -sFORCE_FILESYSTEM=1 -lidbfs.js -sEXPORTED_FUNCTIONS=_malloc,_free \
       -sEXPORTED_RUNTIME_METHODS=FS,IDBFS,ccall,cwrap,UTF8ToString,stringToUTF8,lengthBytesUTF8

all: $(OUT)/wordlab-lite.mjs $(OUT)/wordlab-lite-relaxed.mjs

$(OUT)/wordlab-lite.mjs: $(OBJS) $(SRC)/lite/wasm.mk
	@mkdir -p $(OUT)
	$(CC) $(OPT) $(OBJS) -o $@ $(LINK)
$(OUT)/wordlab-lite-relaxed.mjs: $(RELAXED_OBJS) $(SRC)/lite/wasm.mk $(SRC)/lite/relaxed-simd.mjs
	@mkdir -p $(OUT)
	$(CC) $(OPT) -mrelaxed-simd $(RELAXED_OBJS) -o $@ $(LINK)
	node $(SRC)/lite/relaxed-simd.mjs $(OUT)/wordlab-lite-relaxed.wasm $(OUT)/wordlab-lite-relaxed.wasm

$(OBJ)/relaxed/%.o: $(SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -mrelaxed-simd -c $< -o $@

$(OBJ)/kernel/%.o: $(SRC)/kernel/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KERNEL_DEFS) -c $< -o $@
$(OBJ)/generated/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(OBJ)/%.o: $(SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
# The libraries as their own builds compile them (their warnings are theirs, not errors here).
$(OBJ)/deb/zlib/%.o: $(DEB)/zlib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -I$(DEB)/zlib -DHAVE_UNISTD_H -DHAVE_STDARG_H -c $< -o $@
$(OBJ)/deb/%.o: $(DEB)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -I$(dir $<) -DUTF8PROC_STATIC -c $< -o $@

-include $(OBJS:.o=.d) $(RELAXED_OBJS:.o=.d)
