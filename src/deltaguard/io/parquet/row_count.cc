#include "deltaguard/io/parquet/row_count.h"

#include <fmt/format.h>

#include "deltaguard/io/parquet/parquet_file.h"

namespace deltaguard {

Result<RowCountResult> CountRows(const Snapshot& snapshot,
                                 const RowCountOptions& options) {
  RowCountResult result;
  const FileSystemRef& fs = snapshot.fs();
  for (const AddFile& add : snapshot.files()) {
    ++result.num_files;
    std::optional<int64_t> rows = add.NumRecords();
    if (rows.has_value()) {
      ++result.files_from_stats;
      if (options.check_files_exist) {
        DELTA_ASSIGN_OR_RETURN(bool exists,
                               fs->Exists(snapshot.ResolveDataPath(add.path)));
        if (!exists) ++result.missing_files;
      }
    } else {
      std::string path = snapshot.ResolveDataPath(add.path);
      auto footer_rows = ReadParquetFooterRowCount(fs, path);
      if (!footer_rows) {
        return WithContext(footer_rows.error(),
                           fmt::format("cannot count the rows of data file '{}' (it has "
                                       "no numRecords statistic)",
                                       add.path));
      }
      rows = *footer_rows;
      ++result.files_from_footers;
    }
    int64_t deleted = add.deletion_vector ? add.deletion_vector->cardinality : 0;
    result.deleted_rows += deleted;
    result.num_rows += *rows - deleted;
  }
  return result;
}

}  // namespace deltaguard
