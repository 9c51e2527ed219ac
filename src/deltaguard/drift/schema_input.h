/// \file deltaguard/drift/schema_input.h
/// "Schema text" as users give it to drift and diff: a DDL column list
/// (schema/ddl.h, "id BIGINT NOT NULL, name STRING"), Delta schema JSON
/// (schema/schema_json.h, a metaData.schemaString), or the path of a file holding
/// either. One parser so every front end accepts the same forms with the same errors.
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// A schema file larger than this is refused (a schema is text a person writes or a
/// log holds; reading a data file by mistake must not load it whole).
inline constexpr int64_t kMaxSchemaFileBytes = int64_t{16} << 20;

/// Parse schema text: Delta schema JSON when the first non-blank character is '{',
/// else a DDL column list. Empty text is kInvalidArgument. A parse error is
/// kParseError: "schema text (JSON|DDL) does not parse: <parser message>", and `what`
/// (e.g. the file name) is named when given.
Result<SchemaRef> ParseSchemaText(std::string_view text, std::string_view what = {});

/// Read and parse the schema file at `path`: kNotFound / kIOError from the file
/// system, kInvalidArgument when it is larger than kMaxSchemaFileBytes or not UTF-8,
/// else as ParseSchemaText naming the file.
Result<SchemaRef> ReadSchemaFile(const FileSystem& fs, const std::string& path);

}  // namespace deltaguard
