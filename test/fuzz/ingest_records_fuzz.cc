// libFuzzer target for the ingestion readers (ingest/reader.h, ingest/infer.h): the
// first byte picks the format (JSON lines, whole-file JSON, CSV with or without a
// header), the mode and whether the schema is inferred or given; the rest is the file.
// Beyond "no crash, no sanitizer report" it checks what ingestion promises:
//  1. inference and reading end with rows or an error, never both silently wrong:
//     PERMISSIVE with a rescued column never fails on malformed records;
//  2. every STRING value and column name is valid UTF-8;
//  3. error messages hold no control character but '\n' and stay bounded.

#include <arrow/array.h>
#include <arrow/record_batch.h>

#include <cstdint>
#include <string>

#include "deltaguard/ingest/infer.h"
#include "deltaguard/ingest/reader.h"
#include "deltaguard/schema/ddl.h"
#include "input_fuzz_common.h"

using namespace deltaguard;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  const std::string path = input_fuzz::TempPath(".ingest");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1),
              static_cast<std::streamsize>(size - 1));
  }
  auto fs = MakeLocalFileSystem();
  auto info = fs->Stat(path);
  if (!info) return 0;
  IngestFile file{path, info->size, info->modification_time, {}};

  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.emplace_back("cloudFiles.format", (mode & 1) ? "csv" : "json");
  if (mode & 2) pairs.emplace_back("multiLine", "true");
  if (mode & 4) pairs.emplace_back("cloudFiles.inferColumnTypes", "true");
  if (mode & 8) pairs.emplace_back("header", "false");
  const bool failfast = (mode & 0x30) == 0x10;
  if (failfast) pairs.emplace_back("mode", "FAILFAST");
  if ((mode & 0x30) == 0x20) pairs.emplace_back("mode", "DROPMALFORMED");
  auto options = ParseIngestOptions(pairs);
  input_fuzz::Check(options.has_value(), "fixed options must parse");

  SchemaRef schema;
  if (mode & 0x40) {
    schema = *ParseDdlSchema(
        "a BIGINT, b STRING, c DOUBLE, d STRUCT<x: INT, y: ARRAY<STRING>>, "
        "e DECIMAL(10,2), f TIMESTAMP, g MAP<STRING, BIGINT>, h BOOLEAN, i DATE");
  } else {
    auto inferred = InferIngestSchema(fs, {file}, *options);
    if (!inferred) {
      input_fuzz::CheckMessage(inferred.error());
      return 0;
    }
    schema = *inferred;
  }
  for (const auto& f : schema->fields()) {
    input_fuzz::Check(IsValidUtf8(f.name), "an inferred column name is not UTF-8");
  }
  ReadSpec spec;
  spec.options = *options;
  spec.data_schema = schema;
  spec.batch_rows = 7;
  auto stats = std::make_shared<ReadStats>();
  auto reader = OpenIngestReader(fs, {file}, spec, stats);
  if (!reader) {
    input_fuzz::CheckMessage(reader.error());
    return 0;
  }
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = (*reader)->ReadNext(&batch);
    if (!st.ok()) {
      Error e = internal::FromArrowStatus(st, ErrorCode::kInternal, "reading");
      input_fuzz::CheckMessage(e);
      // Malformed records are kept in the rescued column unless FAILFAST (or a value
      // does not fit and the record is refused for want of a column: not here).
      input_fuzz::Check(failfast || e.code != ErrorCode::kParseError ||
                            e.message.find("longer than") != std::string::npos,
                        "PERMISSIVE with a rescued column refused a record", e.message);
      return 0;
    }
    if (!batch) break;
    input_fuzz::Check(batch->Validate().ok(), "an invalid batch");
    for (const auto& column : batch->columns()) input_fuzz::CheckStrings(*column);
  }
  return 0;
}
