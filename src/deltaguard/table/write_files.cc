// WriteFiles / SchemaOfInputFile: files on disk as write inputs (write.h).

#include <fmt/format.h>

#include "deltaguard/arrow/schema.h"
#include "deltaguard/evolution/write_schema.h"
#include "deltaguard/table/table.h"
#include "deltaguard/table/write.h"
#include "deltaguard/table/write_routed_internal.h"
#include "deltaguard/write/contract_write.h"
#include "deltaguard/write/table_state.h"

namespace deltaguard {

namespace table_internal {

Result<std::vector<BatchSource>> FileSources(const std::vector<std::string>& files,
                                             const InputOptions& input_options) {
  std::vector<BatchSource> sources;
  for (const auto& file : files) {
    DELTA_ASSIGN_OR_RETURN(InputFile inspected, InspectInput(file, input_options));
    BatchSource source;
    source.name = file;
    source.schema = inspected.schema;
    source.open = [inspected, input_options]() {
      return OpenInput(inspected, input_options);
    };
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace table_internal

Result<WriteResult> WriteFiles(FileSystemRef fs, const std::string& path,
                               const std::vector<std::string>& inputs,
                               InputOptions input_options, const WriteOptions& options,
                               const SessionSettings& session) {
  DELTA_ASSIGN_OR_RETURN(std::string root, NormalizeTablePath(path));
  DELTA_ASSIGN_OR_RETURN(auto files, ExpandInputPaths(inputs, input_options.fs));
  if (!input_options.type_hint && !options.overwrite_schema) {
    DELTA_ASSIGN_OR_RETURN(SnapshotRef snapshot, internal::LoadIfExists(fs, root));
    if (snapshot) input_options.type_hint = snapshot->schema();
    // Under a contract, text is read as the contract declares it (aliases included),
    // so "007" stays a string; with castPolicy try, non-string columns are read as
    // text and the contract's TRY_CAST decides (write/contract_write.h).
    DELTA_ASSIGN_OR_RETURN(auto contract,
                           ContractForWrite(snapshot.get(), options.contract));
    if (contract && contract->layer != MedallionLayer::kBronze) {
      DELTA_ASSIGN_OR_RETURN(const ContractObject* object,
                             contract->Object(options.contract_object));
      input_options.type_hint = ContractTypeHint(*contract, *object);
    }
  }
  DELTA_ASSIGN_OR_RETURN(auto sources, table_internal::FileSources(files, input_options));
  return WriteTable(std::move(fs), path, std::move(sources), options, session);
}

Result<SchemaRef> SchemaOfInputFile(const std::string& file,
                                    const InputOptions& input_options) {
  DELTA_ASSIGN_OR_RETURN(InputFile inspected, InspectInput(file, input_options));
  DELTA_ASSIGN_OR_RETURN(SchemaRef schema, FromArrowSchema(*inspected.schema));
  return SchemaForNewTable(*schema, file);
}

}  // namespace deltaguard
