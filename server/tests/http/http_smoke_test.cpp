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

}  // namespace
}  // namespace emsim::testing
