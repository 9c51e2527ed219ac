/// \file test/testing/matchers.h
/// The gmock matchers the unit tests use, named once for every test in namespace
/// deltaguard instead of a using block at the top of each test file. The shared test
/// helpers do the same for their own names (temp_dir.h, test_util.h and the modules'
/// *_test_util_internal.h). Tests only.
#pragma once

#include <gmock/gmock.h>

namespace deltaguard {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::Pair;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

}  // namespace deltaguard
