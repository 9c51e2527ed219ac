// Shared driver of the CSV and JSON input fuzz targets: the first byte of the input
// picks the options, the rest is the file. The file goes through InspectInput and
// OpenInput (the way a write reads it) and every batch is read. Beyond "no crash, no
// sanitizer report" it checks what the input readers promise:
//  1. every STRING value read is valid UTF-8 (docs/behaviour.md "CSV and JSON input");
//  2. an error message holds no control character but '\n' and stays bounded, so input
//     bytes cannot reach a terminal raw;
//  3. reading the same file twice gives the same rows (or fails both times).
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/input_source.h"
#include "deltaguard/schema/ddl.h"
#include "deltaguard/util/string_util.h"

namespace input_fuzz {

inline void Check(bool ok, const char* what, const std::string& detail = "") {
  if (!ok) {
    std::fprintf(stderr, "input fuzz invariant failed: %s\n%s\n", what, detail.c_str());
    std::abort();
  }
}

// One temporary file per process, rewritten for every input.
inline const std::string& TempPath(const char* extension) {
  static const std::string path = [&] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp != nullptr ? tmp : "/tmp") + "/deltaguard_input_fuzz_" +
           std::to_string(::getpid()) + extension;
  }();
  return path;
}

inline void CheckMessage(const deltaguard::Error& e) {
  for (char c : e.message) {
    const auto u = static_cast<unsigned char>(c);
    Check(u >= 0x20 || c == '\n', "control character in an error message", e.message);
    Check(u != 0x7F, "DEL in an error message", e.message);
  }
  Check(e.message.size() < 8192, "unbounded error message", e.message);
}

inline void CheckStrings(const arrow::Array& array) {
  if (array.type_id() == arrow::Type::STRING) {
    const auto& s = static_cast<const arrow::StringArray&>(array);
    for (int64_t i = 0; i < s.length(); ++i) {
      if (s.IsValid(i)) {
        Check(deltaguard::IsValidUtf8(s.GetView(i)), "a STRING value is not UTF-8");
      }
    }
  } else if (array.type_id() == arrow::Type::STRUCT) {
    const auto& st = static_cast<const arrow::StructArray&>(array);
    for (int f = 0; f < st.num_fields(); ++f) CheckStrings(*st.field(f));
  } else if (array.type_id() == arrow::Type::LIST) {
    CheckStrings(*static_cast<const arrow::ListArray&>(array).values());
  }
}

// Rows read, or -1 with `*error` set.
inline int64_t ReadAll(const std::string& path, const deltaguard::InputOptions& options,
                       std::string* error) {
  auto file = deltaguard::InspectInput(path, options);
  if (!file) {
    CheckMessage(file.error());
    *error = file.error().message;
    return -1;
  }
  for (const auto& f : file->schema->fields()) {
    Check(deltaguard::IsValidUtf8(f->name()), "a column name is not UTF-8");
  }
  auto reader = deltaguard::OpenInput(*file, options);
  if (!reader) {
    CheckMessage(reader.error());
    *error = reader.error().message;
    return -1;
  }
  int64_t rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = (*reader)->ReadNext(&batch);
    if (!st.ok()) {
      auto e = deltaguard::internal::FromArrowStatus(st, deltaguard::ErrorCode::kInternal,
                                                     "read");
      CheckMessage(e);
      *error = e.message;
      return -1;
    }
    if (batch == nullptr) return rows;
    Check(batch->num_rows() <= options.batch_rows, "batch longer than batch_rows");
    for (const auto& column : batch->columns()) CheckStrings(*column);
    rows += batch->num_rows();
  }
}

inline void Run(const uint8_t* data, size_t size, deltaguard::InputFormat format,
                const char* extension) {
  if (size == 0) return;
  const uint8_t flags = data[0];
  const std::string& path = TempPath(extension);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1),
              static_cast<std::streamsize>(size - 1));
  }
  deltaguard::InputOptions options;
  options.format = format;
  options.batch_rows = 1 + (flags >> 5);  // 1..8: exercises re-chunking
  options.csv_multi_line = (flags & 1) != 0;
  options.csv_header = (flags & 2) == 0;
  if ((flags & 4) != 0)
    options.invalid_utf8 = deltaguard::InputOptions::InvalidUtf8::kReplace;
  options.json_block_size = (flags & 16) != 0 ? 1024 : 4096;
  if ((flags & 8) != 0) {
    static const auto hint = deltaguard::ParseDdlSchema(
        "a BIGINT, b STRING, c DOUBLE, d DATE, e TIMESTAMP, f DECIMAL(10,2), g BOOLEAN, "
        "h STRUCT<x: INT, y: STRING>, i ARRAY<STRING>");
    Check(hint.has_value(), "hint schema");
    options.type_hint = *hint;
  }
  std::string first_error, second_error;
  const int64_t first = ReadAll(path, options, &first_error);
  const int64_t second = ReadAll(path, options, &second_error);
  // Which error comes first may differ (Arrow's JSON reader reads ahead on an I/O
  // thread, so a parse error and a check of the next block race); that a read fails,
  // and the rows of a read that succeeds, may not.
  Check(first == second, "two reads disagree", first_error + " / " + second_error);
}

}  // namespace input_fuzz
