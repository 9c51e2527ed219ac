// Hashing kernels of the function library: md5, sha1 and sha2 as lower-case hex digests
// (OpenSSL's EVP digests) and crc32 as a BIGINT (zlib), over the bytes of the value
// (a STRING is hashed as its UTF-8 bytes, Spark's implicit cast to BINARY); Spark's
// hash() and xxhash64() over values of any type (XXH64 from xxHash, as contract/).

#include <arrow/util/decimal.h>
#include <openssl/evp.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "deltaguard/exec/expr_eval_library_internal.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

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

// Spark's hash() (Murmur3 x86_32, seed 42) and xxhash64() (XXH64, seed 42) over the
// values of any column types: each non-NULL argument folds into the running hash, as
// Spark's HashExpression does, so the results equal Spark's bit for bit. Values are
// hashed by their Spark representation: integral types up to INT and DATE as a 4-byte
// int, BIGINT and TIMESTAMP as an 8-byte long, floating point by its bits (-0.0 as
// 0), DECIMAL by its unscaled long (precision <= 18) or the unscaled value's minimal
// big-endian two's-complement bytes, strings and binaries by their bytes, arrays
// element by element, structs field by field.

uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t MixK1(uint32_t k1) {
  k1 *= 0xcc9e2d51u;
  k1 = Rotl32(k1, 15);
  return k1 * 0x1b873593u;
}

uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = Rotl32(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}

uint32_t Fmix32(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  return h1 ^ (h1 >> 16);
}

// Spark's Murmur3_x86_32: whole 4-byte words little-endian, then each remaining byte
// (sign-extended) as a word of its own, which is not the reference tail handling.
struct Murmur3 {
  using Hash = int32_t;
  static constexpr Hash kSeed = 42;
  static Hash Int(int32_t v, Hash seed) {
    return static_cast<Hash>(
        Fmix32(MixH1(static_cast<uint32_t>(seed), MixK1(static_cast<uint32_t>(v))), 4));
  }
  static Hash Long(int64_t v, Hash seed) {
    const auto u = static_cast<uint64_t>(v);
    uint32_t h1 = MixH1(static_cast<uint32_t>(seed), MixK1(static_cast<uint32_t>(u)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(u >> 32)));
    return static_cast<Hash>(Fmix32(h1, 8));
  }
  static Hash Bytes(std::string_view b, Hash seed) {
    uint32_t h1 = static_cast<uint32_t>(seed);
    const size_t aligned = b.size() - b.size() % 4;
    for (size_t i = 0; i < aligned; i += 4) {
      uint32_t word;
      std::memcpy(&word, b.data() + i, 4);  // little-endian, as Spark on x86 and ARM
      h1 = MixH1(h1, MixK1(word));
    }
    for (size_t i = aligned; i < b.size(); ++i) {
      const auto byte = static_cast<int32_t>(static_cast<signed char>(b[i]));
      h1 = MixH1(h1, MixK1(static_cast<uint32_t>(byte)));
    }
    return static_cast<Hash>(Fmix32(h1, static_cast<uint32_t>(b.size())));
  }
};

// Spark's XXH64 is the reference XXH64; ints and longs are their 4 or 8
// little-endian bytes.
struct XxHash64 {
  using Hash = int64_t;
  static constexpr Hash kSeed = 42;
  static Hash Int(int32_t v, Hash seed) {
    return static_cast<Hash>(XXH64(&v, 4, static_cast<uint64_t>(seed)));
  }
  static Hash Long(int64_t v, Hash seed) {
    return static_cast<Hash>(XXH64(&v, 8, static_cast<uint64_t>(seed)));
  }
  static Hash Bytes(std::string_view b, Hash seed) {
    return static_cast<Hash>(XXH64(b.data(), b.size(), static_cast<uint64_t>(seed)));
  }
};

// The unscaled value of a DECIMAL wider than 18 digits as Java's
// BigInteger.toByteArray(): big-endian two's complement in the fewest bytes.
std::string BigIntegerBytes(const arrow::Decimal128& d) {
  unsigned char be[16];
  const uint64_t hi = static_cast<uint64_t>(d.high_bits()), lo = d.low_bits();
  for (int k = 0; k < 8; ++k) {
    be[k] = static_cast<unsigned char>(hi >> (56 - 8 * k));
    be[8 + k] = static_cast<unsigned char>(lo >> (56 - 8 * k));
  }
  int start = 0;
  // Drop a leading byte while the next one still carries the sign.
  while (start < 15 && ((be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                        (be[start] == 0xff && (be[start + 1] & 0x80) != 0))) {
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be + start), 16 - start);
}

template <typename H>
Result<typename H::Hash> HashValue(const arrow::Array& a, int64_t i,
                                   typename H::Hash seed, std::string_view name) {
  if (a.IsNull(i)) return seed;
  switch (a.type_id()) {
    case arrow::Type::BOOL:
      return H::Int(static_cast<const arrow::BooleanArray&>(a).Value(i) ? 1 : 0, seed);
    case arrow::Type::INT8:
      return H::Int(static_cast<const arrow::Int8Array&>(a).Value(i), seed);
    case arrow::Type::INT16:
      return H::Int(static_cast<const arrow::Int16Array&>(a).Value(i), seed);
    case arrow::Type::INT32:
      return H::Int(static_cast<const arrow::Int32Array&>(a).Value(i), seed);
    case arrow::Type::DATE32:
      return H::Int(static_cast<const arrow::Date32Array&>(a).Value(i), seed);
    case arrow::Type::INT64:
      return H::Long(static_cast<const arrow::Int64Array&>(a).Value(i), seed);
    case arrow::Type::TIMESTAMP:
      return H::Long(static_cast<const arrow::TimestampArray&>(a).Value(i), seed);
    case arrow::Type::FLOAT: {
      float f = static_cast<const arrow::FloatArray&>(a).Value(i);
      int32_t bits = 0;
      if (std::isnan(f)) {
        bits = 0x7fc00000;  // Java's floatToIntBits: one NaN
      } else if (f != 0.0f) {
        std::memcpy(&bits, &f, 4);
      }
      return H::Int(bits, seed);
    }
    case arrow::Type::DOUBLE: {
      double f = static_cast<const arrow::DoubleArray&>(a).Value(i);
      int64_t bits = 0;
      if (std::isnan(f)) {
        bits = 0x7ff8000000000000LL;
      } else if (f != 0.0) {
        std::memcpy(&bits, &f, 8);
      }
      return H::Long(bits, seed);
    }
    case arrow::Type::DECIMAL128: {
      const auto& dec = static_cast<const arrow::Decimal128Array&>(a);
      arrow::Decimal128 d(dec.GetValue(i));
      const auto& type = static_cast<const arrow::Decimal128Type&>(*a.type());
      if (type.precision() <= 18)
        return H::Long(static_cast<int64_t>(d.low_bits()), seed);
      return H::Bytes(BigIntegerBytes(d), seed);
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return H::Bytes(static_cast<const arrow::BinaryArray&>(a).GetView(i), seed);
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(a);
      const auto& values = *list.values();
      for (int64_t k = list.value_offset(i); k < list.value_offset(i + 1); ++k) {
        DELTA_ASSIGN_OR_RETURN(seed, HashValue<H>(values, k, seed, name));
      }
      return seed;
    }
    case arrow::Type::STRUCT: {
      const auto& st = static_cast<const arrow::StructArray&>(a);
      for (int f = 0; f < st.num_fields(); ++f) {
        // field() is sliced to the struct's rows, so row i is row i of the field.
        DELTA_ASSIGN_OR_RETURN(seed, HashValue<H>(*st.field(f), i, seed, name));
      }
      return seed;
    }
    default:
      break;
  }
  return MakeError(ErrorCode::kInternal, "{}(): cannot hash a value of Arrow type {}",
                   name, a.type()->ToString());
}

template <typename H, typename Builder>
Result<Datum> SparkHash(const LibraryCall& c) {
  const int64_t n = c.all_scalar() ? 1 : c.length;
  DELTA_ASSIGN_OR_RETURN(auto args, ArgArrays(c));
  Builder b;
  DELTA_RETURN_IF_ERROR(Appended(b.Reserve(n), c));
  for (int64_t i = 0; i < n; ++i) {
    typename H::Hash h = H::kSeed;
    for (const auto& a : args) {
      DELTA_ASSIGN_OR_RETURN(h, HashValue<H>(*a, i, h, c.e.name));
    }
    b.UnsafeAppend(h);  // never NULL: a row of NULLs hashes to the seed
  }
  std::shared_ptr<arrow::Array> out;
  DELTA_RETURN_IF_ERROR(Appended(b.Finish(&out), c));
  return Shaped(c, out);
}

}  // namespace

std::vector<KernelEntry> HashKernels() {
  return {
      {"md5", [](const LibraryCall& c) { return Digest(c, EVP_md5()); }},
      {"sha1", [](const LibraryCall& c) { return Digest(c, EVP_sha1()); }},
      {"sha2", Sha2},
      {"crc32", Crc32},
      {"hash", SparkHash<Murmur3, arrow::Int32Builder>},
      {"xxhash64", SparkHash<XxHash64, arrow::Int64Builder>},
  };
}

}  // namespace deltaguard::internal

namespace deltaguard {

Result<std::vector<uint64_t>> HashRows(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t num_rows) {
  using internal::XxHash64;
  std::vector<uint64_t> out(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) {
    XxHash64::Hash h = XxHash64::kSeed;
    for (const auto& a : columns) {
      DELTA_ASSIGN_OR_RETURN(h, internal::HashValue<XxHash64>(*a, i, h, "row hash"));
    }
    out[static_cast<size_t>(i)] = static_cast<uint64_t>(h);
  }
  return out;
}

}  // namespace deltaguard
