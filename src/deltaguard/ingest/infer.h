/// \file deltaguard/ingest/infer.h
/// Schema inference over a sample of the source, as Auto Loader does it
/// (docs/ingest.md "Schema inference"): the first cloudFiles.schemaInference.sampleSize
/// files/bytes (Parquet: their footers' schemas merged); JSON fields and CSV columns as
/// STRING unless cloudFiles.inferColumnTypes (then ingest/values.h's rules), names
/// differing only by case folded into the first one seen, partition columns from the path
/// as STRING, and cloudFiles.schemaHints pinning the types of the columns they name.
#pragma once

#include <string>
#include <vector>

#include "deltaguard/ingest/options.h"
#include "deltaguard/ingest/reader.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/schema/data_type.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

/// The data columns of `files` (in listing order; the sample is taken from the
/// front). No file to sample is kInvalidArgument: a first run needs data or a schema.
Result<SchemaRef> InferIngestSchema(const FileSystemRef& fs,
                                    const std::vector<IngestFile>& files,
                                    const IngestOptions& options);

/// The schema the options give (`schema`, with `schemaHints` applied).
/// REQUIRES: !options.schema.empty().
Result<SchemaRef> GivenIngestSchema(const IngestOptions& options);

/// `schema` with the hinted columns' types replaced (case-insensitive; nested
/// "a.b" hints descend structs) and hinted columns it lacks appended.
Result<SchemaRef> ApplySchemaHints(const SchemaRef& schema, const std::string& hints);

/// The schema with `fields` added (new columns, nested ones inside their struct) and,
/// for type-mismatch entries where Delta allows it, types widened. `added` and
/// `widened` say what changed ("a.b", "amount: integer -> long").
SchemaRef EvolveIngestSchema(const SchemaRef& schema,
                             const std::vector<UnknownField>& fields,
                             std::vector<std::string>* added,
                             std::vector<std::string>* widened);

}  // namespace deltaguard
