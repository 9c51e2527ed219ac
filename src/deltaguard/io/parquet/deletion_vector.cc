#include "deltaguard/io/parquet/deletion_vector.h"

#include <fmt/format.h>
#include <roaring/roaring.h>

#include <array>
#include <cstring>

#include "deltaguard/io/parquet/z85.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

// RoaringBitmapArray magic numbers (little-endian int32 at the start of the payload).
constexpr uint32_t kPortableMagic = 1681511377;
constexpr uint32_t kNativeMagic = 1681511376;
// Version byte at the start of every DV file.
constexpr uint8_t kDvFileVersion = 1;
// Length of the Z85-encoded UUID at the end of a 'u' pathOrInlineDv.
constexpr size_t kZ85UuidLength = 20;
// Delta's own test suites write DV files with this name prefix (a test-only Spark conf,
// not part of the protocol); tables copied from those suites need it to be found.
constexpr std::string_view kDeltaTestDvPrefix = "test%dv%prefix-";

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

uint32_t ReadLe32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // the build targets little-endian x86-64 only
}

uint64_t ReadLe64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint32_t ReadBe32(const char* p) {
  const auto* u = reinterpret_cast<const uint8_t*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

void AppendLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

void AppendBe32(std::string* out, uint32_t value) {
  for (int i = 3; i >= 0; --i)
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// The log holds URI-encoded paths; a malformed escape is a corrupt descriptor.
Result<std::string> DecodeDvPath(std::string_view uri, std::string_view path) {
  auto decoded = PercentDecode(path);
  if (!decoded) {
    return MakeError(ErrorCode::kCorruptLog, "deletion vector path '{}': {}", uri,
                     decoded.error().message);
  }
  return decoded;
}

// "file:/a", "file:///a", "file://localhost/a" -> "/a" (URI-decoded); plain "/a" stays.
Result<std::string> LocalPathFromUri(std::string_view uri) {
  if (uri.starts_with("file:")) {
    std::string_view rest = uri.substr(5);
    if (rest.starts_with("//")) {
      rest.remove_prefix(2);
      size_t slash = rest.find('/');
      std::string_view host = rest.substr(0, slash);
      if (!host.empty() && host != "localhost") {
        return MakeError(ErrorCode::kUnsupportedFeature,
                         "deletion vector path '{}' names remote host '{}'", uri, host);
      }
      if (slash == std::string_view::npos)
        rest = "/";
      else
        rest.remove_prefix(slash);
    }
    return DecodeDvPath(uri, rest);
  }
  if (uri.starts_with("/")) return DecodeDvPath(uri, uri);
  return MakeError(ErrorCode::kUnsupportedFeature,
                   "deletion vector path '{}' is not a local file URI", uri);
}

std::string DescribeDv(const DeletionVectorDescriptor& d, std::string_view data_file) {
  std::string what = d.storage_type == 'i'
                         ? std::string("inline deletion vector")
                         : fmt::format("deletion vector '{}'", d.UniqueId());
  if (!data_file.empty()) what += fmt::format(" of data file '{}'", data_file);
  return what;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// DeletionVector

void DeletionVector::BitmapDeleter::operator()(roaring_bitmap_s* bitmap) const {
  roaring_bitmap_free(bitmap);
}

DeletionVector::DeletionVector() = default;
DeletionVector::~DeletionVector() = default;
DeletionVector::DeletionVector(DeletionVector&&) noexcept = default;
DeletionVector& DeletionVector::operator=(DeletionVector&&) noexcept = default;

void DeletionVector::Add(uint64_t row) {
  auto key = static_cast<uint32_t>(row >> 32);
  auto it = buckets_.find(key);
  if (it == buckets_.end())
    it = buckets_.emplace(key, Bitmap(roaring_bitmap_create())).first;
  roaring_bitmap_add(it->second.get(), static_cast<uint32_t>(row));
}

bool DeletionVector::Contains(uint64_t row) const {
  auto it = buckets_.find(static_cast<uint32_t>(row >> 32));
  return it != buckets_.end() &&
         roaring_bitmap_contains(it->second.get(), static_cast<uint32_t>(row));
}

uint64_t DeletionVector::Cardinality() const {
  uint64_t total = 0;
  for (const auto& [key, bitmap] : buckets_)
    total += roaring_bitmap_get_cardinality(bitmap.get());
  return total;
}

std::vector<uint64_t> DeletionVector::RowsInRange(uint64_t begin, uint64_t end) const {
  std::vector<uint64_t> out;
  if (begin >= end) return out;
  for (auto it = buckets_.lower_bound(static_cast<uint32_t>(begin >> 32));
       it != buckets_.end(); ++it) {
    uint64_t base = uint64_t{it->first} << 32;
    if (base >= end) break;
    roaring_uint32_iterator_t iter;
    roaring_init_iterator(it->second.get(), &iter);
    uint32_t low_begin = begin > base ? static_cast<uint32_t>(begin - base) : 0;
    if (!roaring_move_uint32_iterator_equalorlarger(&iter, low_begin)) continue;
    while (iter.has_value) {
      uint64_t row = base + iter.current_value;
      if (row >= end) break;
      out.push_back(row);
      roaring_advance_uint32_iterator(&iter);
    }
  }
  return out;
}

std::string DeletionVector::Serialize() const {
  std::string out;
  AppendLe(&out, kPortableMagic, 4);
  AppendLe(&out, buckets_.size(), 8);
  for (const auto& [key, bitmap] : buckets_) {
    AppendLe(&out, key, 4);
    size_t size = roaring_bitmap_portable_size_in_bytes(bitmap.get());
    size_t at = out.size();
    out.resize(at + size);
    roaring_bitmap_portable_serialize(bitmap.get(), out.data() + at);
  }
  return out;
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view bytes,
                                                   std::string_view where) {
  auto corrupt = [&](std::string_view why) {
    return MakeError(ErrorCode::kCorruptData, "{}: invalid RoaringBitmapArray: {}", where,
                     why);
  };
  if (bytes.size() < 4) return corrupt("shorter than its 4-byte magic number");
  uint32_t magic = ReadLe32(bytes.data());
  if (magic == kNativeMagic) {
    return MakeError(
        ErrorCode::kUnsupportedFeature,
        "{}: the native RoaringBitmapArray format (magic {}) is not supported", where,
        kNativeMagic);
  }
  if (magic != kPortableMagic) {
    return corrupt(fmt::format("magic number is {}, expected {}", magic, kPortableMagic));
  }
  if (bytes.size() < 12) return corrupt("missing the bitmap count");
  uint64_t count = ReadLe64(bytes.data() + 4);
  size_t pos = 12;
  // Each bucket needs at least a key and an 8-byte empty bitmap header.
  if (count > (bytes.size() - pos) / 4) {
    return corrupt(
        fmt::format("bitmap count {} does not fit in {} bytes", count, bytes.size()));
  }
  DeletionVector dv;
  int64_t last_key = -1;
  for (uint64_t i = 0; i < count; ++i) {
    if (bytes.size() - pos < 4) return corrupt(fmt::format("bitmap {} is truncated", i));
    uint32_t key = ReadLe32(bytes.data() + pos);
    pos += 4;
    if (static_cast<int64_t>(key) <= last_key) {
      return corrupt(
          fmt::format("bitmap keys are not ascending ({} after {})", key, last_key));
    }
    last_key = key;
    const char* buf = bytes.data() + pos;
    size_t avail = bytes.size() - pos;
    // portable_deserialize_size validates the layout against `avail` before we read.
    size_t size = roaring_bitmap_portable_deserialize_size(buf, avail);
    if (size == 0) return corrupt(fmt::format("bitmap {} (key {}) is malformed", i, key));
    roaring_bitmap_t* raw = roaring_bitmap_portable_deserialize_safe(buf, avail);
    if (raw == nullptr) {
      return corrupt(fmt::format("bitmap {} (key {}) is malformed", i, key));
    }
    Bitmap bitmap(raw);
    pos += size;
    if (!roaring_bitmap_is_empty(bitmap.get()))
      dv.buckets_.emplace(key, std::move(bitmap));
  }
  if (pos != bytes.size()) {
    return corrupt(
        fmt::format("{} trailing bytes after the last bitmap", bytes.size() - pos));
  }
  return dv;
}

// ---------------------------------------------------------------------------------------
// Files and descriptors

uint32_t Crc32(std::string_view data) {
  uint32_t c = 0xFFFFFFFFu;
  for (char ch : data) c = kCrcTable[(c ^ static_cast<uint8_t>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string EncodeDeletionVectorFile(std::string_view bitmap) {
  std::string out(1, static_cast<char>(kDvFileVersion));
  AppendBe32(&out, static_cast<uint32_t>(bitmap.size()));
  out.append(bitmap);
  AppendBe32(&out, Crc32(bitmap));
  return out;
}

Result<std::string> DeletionVectorPath(const DeletionVectorDescriptor& d,
                                       const std::string& table_root) {
  switch (d.storage_type) {
    case 'u': {
      const std::string& s = d.path_or_inline_dv;
      if (s.size() < kZ85UuidLength) {
        return MakeError(
            ErrorCode::kCorruptLog,
            "deletion vector '{}': pathOrInlineDv is shorter than a Z85 UUID",
            d.UniqueId());
      }
      std::string_view prefix = std::string_view(s).substr(0, s.size() - kZ85UuidLength);
      auto uuid = Z85DecodeUuid(std::string_view(s).substr(s.size() - kZ85UuidLength));
      if (!uuid)
        return WithContext(uuid.error(),
                           fmt::format("deletion vector '{}'", d.UniqueId()));
      std::string name = fmt::format("deletion_vector_{}.bin", *uuid);
      std::string dir = prefix.empty() ? table_root : JoinPath(table_root, prefix);
      return JoinPath(dir, name);
    }
    case 'p':
      return LocalPathFromUri(d.path_or_inline_dv);
    case 'i':
      return MakeError(ErrorCode::kInvalidArgument,
                       "inline deletion vector '{}' has no file", d.UniqueId());
    default:
      return MakeError(ErrorCode::kCorruptLog,
                       "deletion vector '{}': unknown storageType '{}'", d.UniqueId(),
                       d.storage_type);
  }
}

namespace {

// The payload of an on-disk DV: checks the version byte, size and CRC.
Result<std::string> ReadDvPayload(const FileSystem& fs, const std::string& path,
                                  const DeletionVectorDescriptor& d,
                                  std::string_view what) {
  auto ctx = [&](const Error& e) {
    return WithContext(e, fmt::format("{}: file '{}'", what, path));
  };
  auto version = fs.ReadRange(path, 0, 1);
  if (!version) return ctx(version.error());
  if (static_cast<uint8_t>((*version)[0]) != kDvFileVersion) {
    return MakeError(
        ErrorCode::kCorruptData, "{}: file '{}' has format version {}, expected {}", what,
        path, static_cast<int>(static_cast<uint8_t>((*version)[0])), kDvFileVersion);
  }
  int64_t offset = d.offset.value_or(1);
  if (offset < 1 || d.size_in_bytes < 0) {
    return MakeError(ErrorCode::kCorruptLog, "{}: invalid offset {} / sizeInBytes {}",
                     what, offset, d.size_in_bytes);
  }
  auto block = fs.ReadRange(path, offset, int64_t{d.size_in_bytes} + 8);
  if (!block) {
    Error e = block.error();
    if (e.code != ErrorCode::kNotFound) e.code = ErrorCode::kCorruptData;
    return ctx(e);
  }
  uint32_t stored_size = ReadBe32(block->data());
  if (stored_size != static_cast<uint32_t>(d.size_in_bytes)) {
    return MakeError(
        ErrorCode::kCorruptData,
        "{}: file '{}' stores {} bytes at offset {}, the log says sizeInBytes {}", what,
        path, stored_size, offset, d.size_in_bytes);
  }
  std::string payload = block->substr(4, d.size_in_bytes);
  uint32_t stored_crc = ReadBe32(block->data() + 4 + d.size_in_bytes);
  uint32_t actual_crc = Crc32(payload);
  if (stored_crc != actual_crc) {
    return MakeError(
        ErrorCode::kCorruptData,
        "{}: file '{}' fails its checksum (stored CRC32 {:08x}, computed {:08x})", what,
        path, stored_crc, actual_crc);
  }
  return payload;
}

}  // namespace

Result<DeletionVector> LoadDeletionVector(const FileSystem& fs,
                                          const DeletionVectorDescriptor& d,
                                          const std::string& table_root,
                                          std::string_view data_file) {
  std::string what = DescribeDv(d, data_file);
  std::string payload;
  if (d.storage_type == 'i') {
    auto decoded = Z85Decode(d.path_or_inline_dv);
    if (!decoded) return WithContext(decoded.error(), what);
    if (d.size_in_bytes < 0 || decoded->size() < static_cast<size_t>(d.size_in_bytes)) {
      return MakeError(ErrorCode::kCorruptLog,
                       "{}: decodes to {} bytes, fewer than sizeInBytes {}", what,
                       decoded->size(), d.size_in_bytes);
    }
    // Z85 works on 4-byte groups; the encoder padded the payload (Base85Codec).
    decoded->resize(static_cast<size_t>(d.size_in_bytes));
    payload = std::move(*decoded);
  } else {
    DELTA_ASSIGN_OR_RETURN(std::string path, DeletionVectorPath(d, table_root));
    if (d.storage_type == 'u') {
      DELTA_ASSIGN_OR_RETURN(bool exists, fs.Exists(path));
      if (!exists) {
        size_t slash = path.rfind('/');
        std::string test_named = path.substr(0, slash + 1) +
                                 std::string(kDeltaTestDvPrefix) + path.substr(slash + 1);
        DELTA_ASSIGN_OR_RETURN(bool test_exists, fs.Exists(test_named));
        if (test_exists) path = std::move(test_named);
      }
    }
    DELTA_ASSIGN_OR_RETURN(payload, ReadDvPayload(fs, path, d, what));
  }
  DELTA_ASSIGN_OR_RETURN(DeletionVector dv, DeletionVector::Deserialize(payload, what));
  uint64_t cardinality = dv.Cardinality();
  if (cardinality != static_cast<uint64_t>(d.cardinality)) {
    return MakeError(ErrorCode::kCorruptData,
                     "{}: bitmap holds {} rows, the log says cardinality {}", what,
                     cardinality, d.cardinality);
  }
  return dv;
}

}  // namespace deltaguard
