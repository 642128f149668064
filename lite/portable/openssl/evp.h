/* evp.h: the subset of OpenSSL's EVP digests that the runtime uses (SHA-256 only), for the WebAssembly build. */
#ifndef WL_PORTABLE_EVP_H
#define WL_PORTABLE_EVP_H

#include <stddef.h>

typedef struct evp_md_st EVP_MD;              /* only SHA-256 exists */
typedef struct evp_md_ctx_st EVP_MD_CTX;
typedef struct engine_st ENGINE;

const EVP_MD *EVP_sha256(void);
EVP_MD_CTX *EVP_MD_CTX_new(void);
void EVP_MD_CTX_free(EVP_MD_CTX *ctx);
/* Each returns 1 on success, 0 on failure (as OpenSSL's). */
int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *data, size_t len);
int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *len);

#endif
