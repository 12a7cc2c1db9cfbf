#include <gtest/gtest.h>

#include <string>

#include "runtime/version.h"

TEST(Version, MatchesProjectVersion) { EXPECT_EQ(std::string(simt::version()), "0.1.0"); }
