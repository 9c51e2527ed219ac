// MERGE, UPDATE and DELETE statements (issue 6): executed through dml/.
#include "deltaguard/sql/session_internal.h"

namespace deltaguard::internal {

Result<StatementResult> ExecuteMerge(SessionState&, const MergeStmt&) {
  return MakeError(ErrorCode::kUnsupportedFeature, "MERGE is not supported yet");
}
Result<StatementResult> ExecuteUpdate(SessionState&, const UpdateStmt&) {
  return MakeError(ErrorCode::kUnsupportedFeature, "UPDATE is not supported yet");
}
Result<StatementResult> ExecuteDelete(SessionState&, const DeleteStmt&) {
  return MakeError(ErrorCode::kUnsupportedFeature, "DELETE is not supported yet");
}

}  // namespace deltaguard::internal
