#include "deltaguard/exec/take_rows.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/bit_util.h>

#include <cstring>
#include <limits>

#include "deltaguard/arrow/status.h"

namespace deltaguard {
namespace {

using ArrayRef = std::shared_ptr<arrow::Array>;

// What one pass over the positions found.
struct RowsShape {
  bool in_bounds = true;  // every position is -1 or a row of the array
  bool any_null = false;  // some position is -1
  bool run = true;        // positions are first, first + 1, ... (no -1)
};

RowsShape Inspect(std::span<const int64_t> rows, int64_t length) {
  RowsShape s;
  const int64_t first = rows.empty() ? 0 : rows[0];
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t r = rows[i];
    if (r < 0) {
      s.any_null = true;
      s.in_bounds = s.in_bounds && r == -1;
    } else {
      s.in_bounds = s.in_bounds && r < length;
    }
    s.run = s.run && r == first + static_cast<int64_t>(i);
  }
  s.run = s.run && !s.any_null;
  return s;
}

Result<ArrayRef> ArrowTake(const ArrayRef& values, std::span<const int64_t> rows) {
  arrow::Int64Builder b;
  DELTA_ARROW_RETURN_NOT_OK(b.Reserve(static_cast<int64_t>(rows.size())),
                            ErrorCode::kInternal, "row positions");
  for (const int64_t r : rows) {
    if (r < 0) {
      b.UnsafeAppendNull();
    } else {
      b.UnsafeAppend(r);
    }
  }
  std::shared_ptr<arrow::Array> idx;
  DELTA_ARROW_RETURN_NOT_OK(b.Finish(&idx), ErrorCode::kInternal, "row positions");
  DELTA_ARROW_ASSIGN_OR_RETURN(arrow::Datum d, arrow::compute::Take(values, idx),
                               ErrorCode::kInternal, "taking rows");
  return d.make_array();
}

// The output's validity: NULL where the position is -1 or the input row is NULL;
// nullptr when no row is NULL.
Result<std::shared_ptr<arrow::Buffer>> Validity(const arrow::ArrayData& in,
                                                std::span<const int64_t> rows,
                                                bool any_null, int64_t* null_count) {
  *null_count = 0;
  const bool input_nulls = in.GetNullCount() > 0 && in.buffers[0] != nullptr;
  if (!any_null && !input_nulls) return std::shared_ptr<arrow::Buffer>();
  const auto n = static_cast<int64_t>(rows.size());
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> bits,
                               arrow::AllocateEmptyBitmap(n), ErrorCode::kInternal,
                               "taking rows");
  uint8_t* out = bits->mutable_data();
  const uint8_t* src = input_nulls ? in.buffers[0]->data() : nullptr;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    const bool valid =
        r >= 0 && (src == nullptr || arrow::bit_util::GetBit(src, in.offset + r));
    if (valid) {
      arrow::bit_util::SetBit(out, i);
    } else {
      ++nulls;
    }
  }
  *null_count = nulls;
  if (nulls == 0) return std::shared_ptr<arrow::Buffer>();
  return bits;
}

// Fixed-width values of `Width` bytes: one copy of a compile-time size per row.
template <int Width>
void GatherFixed(const uint8_t* src, std::span<const int64_t> rows, uint8_t* dst) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t r = rows[i];
    if (r >= 0) {
      std::memcpy(dst + i * Width, src + r * Width, Width);
    } else {
      std::memset(dst + i * Width, 0, Width);
    }
  }
}

void GatherFixedAny(const uint8_t* src, int width, std::span<const int64_t> rows,
                    uint8_t* dst) {
  switch (width) {
    case 1:
      return GatherFixed<1>(src, rows, dst);
    case 2:
      return GatherFixed<2>(src, rows, dst);
    case 4:
      return GatherFixed<4>(src, rows, dst);
    case 8:
      return GatherFixed<8>(src, rows, dst);
    case 16:
      return GatherFixed<16>(src, rows, dst);
    default:
      for (size_t i = 0; i < rows.size(); ++i) {
        const size_t w = static_cast<size_t>(width);
        if (rows[i] >= 0) {
          std::memcpy(dst + i * w, src + static_cast<size_t>(rows[i]) * w, w);
        } else {
          std::memset(dst + i * w, 0, w);
        }
      }
  }
}

// The byte width of a fixed-width type gathered directly; 0 for the others.
int DirectWidth(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:  // bit-packed
    case arrow::Type::NA:
    case arrow::Type::DICTIONARY:
    case arrow::Type::EXTENSION:
      return 0;
    default:
      break;
  }
  if (!arrow::is_fixed_width(type.id())) return 0;
  const int bits = static_cast<const arrow::FixedWidthType&>(type).bit_width();
  return bits > 0 && bits % 8 == 0 ? bits / 8 : 0;
}

Result<ArrayRef> TakeFixed(const arrow::ArrayData& in, int width,
                           std::span<const int64_t> rows, bool any_null) {
  const auto n = static_cast<int64_t>(rows.size());
  int64_t nulls = 0;
  DELTA_ASSIGN_OR_RETURN(auto validity, Validity(in, rows, any_null, &nulls));
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> data,
                               arrow::AllocateBuffer(n * width), ErrorCode::kInternal,
                               "taking rows");
  const uint8_t* src = in.buffers[1]->data() + in.offset * width;
  GatherFixedAny(src, width, rows, data->mutable_data());
  return arrow::MakeArray(
      arrow::ArrayData::Make(in.type, n, {std::move(validity), std::move(data)}, nulls));
}

// Strings and binaries with `Offset` (int32 or int64) offsets: the output's offsets in
// one pass, the bytes in a second. A value of at most 16 bytes is copied as 16 (the
// output is allocated 16 bytes longer, and the source read only where its buffer has
// 16 bytes left), so the copy has a constant size.
template <typename Offset>
Result<ArrayRef> TakeBinary(const ArrayRef& values, std::span<const int64_t> rows,
                            bool any_null) {
  const arrow::ArrayData& in = *values->data();
  constexpr int64_t kShort = 16;
  const auto n = static_cast<int64_t>(rows.size());
  const Offset* off = in.GetValues<Offset>(1);
  const uint8_t* bytes = in.buffers[2] == nullptr ? nullptr : in.buffers[2]->data();
  const int64_t byte_size = in.buffers[2] == nullptr ? 0 : in.buffers[2]->size();
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> offsets,
                               arrow::AllocateBuffer((n + 1) * sizeof(Offset)),
                               ErrorCode::kInternal, "taking rows");
  auto* out_off = reinterpret_cast<Offset*>(offsets->mutable_data());
  int64_t total = 0;
  out_off[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    if (r >= 0) total += off[r + 1] - off[r];
    // Past the offsets' range: Arrow's Take reports it (as it did before).
    if (total > std::numeric_limits<Offset>::max()) return ArrowTake(values, rows);
    out_off[i + 1] = static_cast<Offset>(total);
  }
  int64_t nulls = 0;
  DELTA_ASSIGN_OR_RETURN(auto validity, Validity(in, rows, any_null, &nulls));
  DELTA_ARROW_ASSIGN_OR_RETURN(std::shared_ptr<arrow::Buffer> data,
                               arrow::AllocateBuffer(total + kShort),
                               ErrorCode::kInternal, "taking rows");
  uint8_t* dst = data->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    if (r < 0) continue;
    const int64_t start = off[r];
    const int64_t len = off[r + 1] - start;
    if (len <= kShort && start + kShort <= byte_size) {
      std::memcpy(dst + out_off[i], bytes + start, kShort);
    } else if (len > 0) {
      std::memcpy(dst + out_off[i], bytes + start, static_cast<size_t>(len));
    }
  }
  auto sized = arrow::SliceBuffer(std::move(data), 0, total);
  return arrow::MakeArray(arrow::ArrayData::Make(
      in.type, n, {std::move(validity), std::move(offsets), std::move(sized)}, nulls));
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> TakeRows(
    const std::shared_ptr<arrow::Array>& values, std::span<const int64_t> rows) {
  const int64_t length = values->length();
  const RowsShape shape = Inspect(rows, length);
  if (!shape.in_bounds) {
    return MakeError(ErrorCode::kInternal,
                     "taking rows: a position is outside the {} rows of a {} column",
                     length, values->type()->ToString());
  }
  const auto n = static_cast<int64_t>(rows.size());
  if (shape.run && n > 0) {
    if (rows[0] == 0 && n == length) return values;
    return values->Slice(rows[0], n);
  }
  const arrow::ArrayData& in = *values->data();
  const arrow::DataType& type = *values->type();
  if (const int width = DirectWidth(type);
      width > 0 && in.buffers.size() > 1 && in.buffers[1] != nullptr) {
    return TakeFixed(in, width, rows, shape.any_null);
  }
  const bool has_offsets = in.buffers.size() > 1 && in.buffers[1] != nullptr;
  switch (has_offsets ? type.id() : arrow::Type::NA) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return TakeBinary<int32_t>(values, rows, shape.any_null);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return TakeBinary<int64_t>(values, rows, shape.any_null);
    default:
      return ArrowTake(values, rows);
  }
}

}  // namespace deltaguard
