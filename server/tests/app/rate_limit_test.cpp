// --rate-limit: the real service's published limits per API key (from its public reference), on
// the simulated clock, so the tests move past a window with the manual clock instead of sleeping.
#include "app/rate_limiter.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

app::Options Limited() {
  app::Options o;
  o.rateLimit = true;
  return o;
}

int StatusOfList(TestServer& s, const std::string& key = kAliceKey) { return s.Get("/v1/workspace/list", key).status; }

TEST(RateLimit, FivePerSecondThen429WithRetryAfterUntilTheClockMoves) {
  TestServer s(Limited());
  for (int i = 0; i < 5; ++i) ASSERT_EQ(StatusOfList(s), 200) << i;
  auto r = s.Get("/v1/workspace/list");
  ASSERT_EQ(r.status, 429) << r.raw;
  EXPECT_EQ(r.Header("Retry-After"), "1");
  EXPECT_EQ(r.body["status"], 429);
  EXPECT_TRUE(r.body["errorId"].is_string());
  EXPECT_NE(r.body["message"].get<std::string>().find("5 requests per second"), std::string::npos) << r.raw;
  // Another key has its own count; /_sim is never limited.
  EXPECT_EQ(StatusOfList(s, kBobKey), 200);
  EXPECT_EQ(s.Get("/_sim/health", "").status, 200);
  s.Advance("1s");
  EXPECT_EQ(StatusOfList(s), 200);
  // The refusal is journaled with its operation.
  const json refused = s.Get("/_sim/requests?status=429", "").body["requests"];
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0]["operationId"], "workspaces.list");
}

TEST(RateLimit, TwoHundredPerMinuteSlides) {
  TestServer s(Limited());
  // 5 a second for 40 seconds: 200 requests, each second within the per-second limit.
  for (int second = 0; second < 40; ++second) {
    for (int i = 0; i < 5; ++i) ASSERT_EQ(StatusOfList(s), 200) << second << "/" << i;
    s.Advance("1s");
  }
  auto r = s.Get("/v1/workspace/list");  // at +40 s: the minute holds 200 already
  ASSERT_EQ(r.status, 429) << r.raw;
  EXPECT_EQ(r.Header("Retry-After"), "20");  // the first five leave the window at +60 s
  EXPECT_NE(r.body["message"].get<std::string>().find("200 requests per minute"), std::string::npos);
  s.Advance("19s");
  EXPECT_EQ(StatusOfList(s), 429);
  s.Advance("1s");
  EXPECT_EQ(StatusOfList(s), 200);
}

TEST(RateLimit, DomainAvailabilityHasItsOwnThirtyMinuteLimit) {
  app::Options o = Limited();
  o.rateLimits.perSecond = 1000;
  o.rateLimits.perMinute = 1000;
  o.rateLimits.availabilityPer30Min = 3;
  TestServer s(o);
  const json body = {{"domainName", "fresh-name-example.com"}};
  for (int i = 0; i < 3; ++i) ASSERT_NE(s.Post("/v1/domain/available", body).status, 429) << i;
  auto r = s.Post("/v1/domain/available", body);
  ASSERT_EQ(r.status, 429) << r.raw;
  EXPECT_EQ(r.Header("Retry-After"), "1800");
  EXPECT_EQ(StatusOfList(s), 200);  // other operations are not held back by it
  s.Advance("30m");
  EXPECT_NE(s.Post("/v1/domain/available", body).status, 429);
}

TEST(RateLimit, AWrongKeyCountsAgainstItsOwnValueAndResetForgets) {
  TestServer s(Limited());
  for (int i = 0; i < 5; ++i) ASSERT_EQ(StatusOfList(s, "emsim_wrong_key"), 401);
  EXPECT_EQ(StatusOfList(s, "emsim_wrong_key"), 429);
  EXPECT_EQ(StatusOfList(s), 200);  // the real key is untouched
  ASSERT_EQ(s.Post("/_sim/reset", json::object(), "").status, 200);
  EXPECT_EQ(StatusOfList(s, "emsim_wrong_key"), 401);
}

TEST(RateLimit, OffByDefault) {
  TestServer s;
  for (int i = 0; i < 50; ++i) ASSERT_EQ(StatusOfList(s), 200) << i;
}

TEST(RateLimit, ManyKeysStayBounded) {
  app::RateLimiter limiter({5, 200, 100}, /*max_keys=*/1000);
  for (int i = 0; i < 10000; ++i) limiter.Admit("key-" + std::to_string(i), 1000 + i, false);
  EXPECT_LE(limiter.TrackedKeys(), 1000u);
  // A key still in use is kept: the newest ones survive a sweep.
  EXPECT_TRUE(limiter.Admit("key-9999", 10999, false).allowed);
}

}  // namespace
}  // namespace emsim::testing
