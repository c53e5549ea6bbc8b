#include <cctype>
#include <cstdio>
#include <locale>

#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

TEST(HttpSmoke, HealthAnswersOkWithVersionAndNow) {
  TestServer server;
  auto r = server.Get("/_sim/health", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body["status"], "ok");
  EXPECT_EQ(r.body["now"], "2026-01-01T09:00:00.000Z");
  EXPECT_FALSE(r.Header("x-request-id").empty());
}

// emsim's own tolower (http/connection.cpp: cpp-httplib's header lookups call it) answers as the
// "C" locale's does, for every byte and for EOF.
TEST(HttpSmoke, TolowerIsTheClassicLocales) {
  const auto& classic = std::use_facet<std::ctype<char>>(std::locale::classic());
  for (int c = 0; c < 256; ++c)
    EXPECT_EQ(::tolower(c), static_cast<unsigned char>(classic.tolower(static_cast<char>(c)))) << c;
  EXPECT_EQ(::tolower(EOF), EOF);
  EXPECT_EQ(::tolower('Q'), 'q');
}

}  // namespace
}  // namespace emsim::testing
