#include "deltaguard/protocol/table_feature.h"

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

const FeatureInfo* FindTableFeature(std::string_view name) {
  for (const FeatureInfo& f : kTableFeatures) {
    if (EqualsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

}  // namespace deltaguard
