// Hashing kernels of the function library: md5, sha1 and sha2 as lower-case hex digests
// (OpenSSL's EVP digests) and crc32 as a BIGINT (zlib), over the bytes of the value
// (a STRING is hashed as its UTF-8 bytes, Spark's implicit cast to BINARY).

#include <openssl/evp.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

namespace deltaguard::internal {

using arrow::Datum;

namespace {

using SB = arrow::StringBuilder;

Result<Datum> Digest(const LibraryCall& c, const EVP_MD* md) {
  if (md == nullptr) return MakeError(ErrorCode::kInternal, "{}(): no digest", c.e.name);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(),
                                                         EVP_MD_CTX_free);
  if (ctx == nullptr)
    return MakeError(ErrorCode::kInternal, "{}(): out of memory", c.e.name);
  return MapRows<SB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, SB& b) -> Status {
        std::string_view bytes = r[0].Str(i);
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        if (EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
            EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
            EVP_DigestFinal_ex(ctx.get(), out, &len) != 1) {
          return MakeError(ErrorCode::kInternal, "{}(): the digest failed", c.e.name);
        }
        static constexpr char kHex[] = "0123456789abcdef";
        std::string hex(len * 2, '0');
        for (unsigned int k = 0; k < len; ++k) {
          hex[2 * k] = kHex[out[k] >> 4];
          hex[2 * k + 1] = kHex[out[k] & 15];
        }
        return Appended(b.Append(hex), c);
      });
}

Result<Datum> Sha2(const LibraryCall& c) {
  switch (c.IntLiteral(1)) {
    case 224:
      return Digest(c, EVP_sha224());
    case 384:
      return Digest(c, EVP_sha384());
    case 512:
      return Digest(c, EVP_sha512());
    default:  // 0 and 256 (the binder allows no other length)
      return Digest(c, EVP_sha256());
  }
}

Result<Datum> Crc32(const LibraryCall& c) {
  using LB = arrow::Int64Builder;
  return MapRows<LB>(
      c, true, [&](const std::vector<ArgRows>& r, int64_t i, LB& b) -> Status {
        std::string_view bytes = r[0].Str(i);
        uLong crc = crc32(0L, Z_NULL, 0);
        // zlib takes at most UINT_MAX bytes per call.
        for (size_t at = 0; at < bytes.size(); at += 1u << 30) {
          const size_t n = std::min<size_t>(bytes.size() - at, 1u << 30);
          crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at),
                      static_cast<uInt>(n));
        }
        return Appended(b.Append(static_cast<int64_t>(crc)), c);
      });
}

}  // namespace

std::vector<KernelEntry> HashKernels() {
  return {
      {"md5", [](const LibraryCall& c) { return Digest(c, EVP_md5()); }},
      {"sha1", [](const LibraryCall& c) { return Digest(c, EVP_sha1()); }},
      {"sha2", Sha2},
      {"crc32", Crc32},
  };
}

}  // namespace deltaguard::internal
