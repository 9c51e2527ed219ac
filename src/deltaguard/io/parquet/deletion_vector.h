/// \file deltaguard/io/parquet/deletion_vector.h
/// Deletion vectors (PROTOCOL.md "Deletion Vectors"): locating them from a descriptor,
/// reading and verifying the on-disk/inline bytes, and the RoaringBitmapArray set of
/// deleted row indexes they decode to.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/log/actions.h"
#include "deltaguard/util/result.h"

struct roaring_bitmap_s;

namespace deltaguard {

/// The set of deleted row indexes of one data file: a RoaringBitmapArray, i.e. one
/// 32-bit Roaring bitmap per value of the high 32 bits of the 64-bit row index.
/// Invariant: no bucket is empty after Deserialize() (empty ones are dropped).
class DeletionVector {
 public:
  DeletionVector();
  ~DeletionVector();
  DeletionVector(DeletionVector&&) noexcept;
  DeletionVector& operator=(DeletionVector&&) noexcept;
  DeletionVector(const DeletionVector&) = delete;
  DeletionVector& operator=(const DeletionVector&) = delete;

  void Add(uint64_t row);
  bool Contains(uint64_t row) const;
  uint64_t Cardinality() const;
  bool empty() const { return Cardinality() == 0; }

  /// Deleted rows in [begin, end), ascending.
  std::vector<uint64_t> RowsInRange(uint64_t begin, uint64_t end) const;

  /// The "portable" RoaringBitmapArray serialization: magic 1681511377 (int32 LE), bucket
  /// count (int64 LE), then per bucket its key (int32 LE) and a portable 32-bit Roaring
  /// bitmap. This is the `sizeInBytes` payload of a DV file or inline DV.
  std::string Serialize() const;

  /// Parse Serialize()'s format. Errors are kCorruptData naming `where`; the "native"
  /// format (magic 1681511376) is kUnsupportedFeature.
  static Result<DeletionVector> Deserialize(std::string_view bytes,
                                            std::string_view where);

 private:
  struct BitmapDeleter {
    void operator()(roaring_bitmap_s* bitmap) const;
  };
  using Bitmap = std::unique_ptr<roaring_bitmap_s, BitmapDeleter>;
  std::map<uint32_t, Bitmap> buckets_;  // key = high 32 bits of the row index
};

/// CRC-32 (IEEE 802.3, as zlib's crc32) of `data`; DV files store it after each bitmap.
uint32_t Crc32(std::string_view data);

/// The bytes of a DV file holding one bitmap at offset 1: version byte 1, size
/// (int32 BE), `bitmap`, CRC-32 of `bitmap` (int32 BE). For tests and writers.
std::string EncodeDeletionVectorFile(std::string_view bitmap);

/// The absolute path of the file of an on-disk DV ('u' or 'p'). For 'u' the file is
/// `<table_root>/<prefix>/deletion_vector_<uuid>.bin`, where pathOrInlineDv is the prefix
/// followed by the 20-character Z85 UUID. For 'p' it is the URI-decoded absolute path.
/// kInvalidArgument for 'i'; kCorruptLog for a malformed descriptor; kUnsupportedFeature
/// for a non-file URI scheme.
Result<std::string> DeletionVectorPath(const DeletionVectorDescriptor& descriptor,
                                       const std::string& table_root);

/// Read, verify and decode the DV of `descriptor` (any storage type). Checks: file
/// version byte, stored size == sizeInBytes, CRC-32, decoded cardinality ==
/// descriptor cardinality. Errors name the DV file (or "inline deletion vector") and
/// `data_file` (kCorruptData for bad bytes; the FileSystem's code, e.g. kNotFound, when
/// the file cannot be read).
Result<DeletionVector> LoadDeletionVector(const FileSystem& fs,
                                          const DeletionVectorDescriptor& descriptor,
                                          const std::string& table_root,
                                          std::string_view data_file = {});

}  // namespace deltaguard
