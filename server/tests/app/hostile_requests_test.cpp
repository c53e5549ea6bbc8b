// The hostile-request corpus: over a thousand malformed requests, generated deterministically from
// a seed across every route of the route table (api/routes.cpp, from schemas/operations.json), sent to an in-process emsim
// on port 0. Each must be answered with a 4xx in the spec's error shape (Part 7: the 400 validation
// shape {status, message, errors[{msg, param, location}]}, otherwise {status, message, errorId}),
// the server must still answer afterwards, and nothing may change: GET /_sim/state is compared with
// the dump taken before the batch after every request that is not a GET (reads are covered by the
// comparison at the end). The corpus is sent in slices, each to its own emsim, so that a runner
// that runs tests side by side (the sanitizer tier) can spread the ~2,000 dumps over its cores.
//
// What the requests are made of comes from the route table and each operation's request schema
// (schemas/requests/<operationId>.json): a wrong type for every typed body property, a missing
// required field, an extra field where the schema forbids them, values a query pattern or enum
// refuses, plus what every route must refuse whatever its schema says: wrong methods, unknown ids,
// bad or missing API keys and headers, bad content types, malformed JSON (fixed cases and random
// truncations), invalid UTF-8, huge and deeply nested values, numbers out of every range.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "api/routes.hpp"
#include "app/route.hpp"
#include "app/router.hpp"
#include "tests/app/hostile_corpus.hpp"
#include "tests/support/test_server.hpp"


namespace emsim::testing {
namespace {

using namespace hostile;

// What is wrong with a response to a hostile request ("" when it is a 4xx in the spec's shape).
std::string ShapeProblems(const HttpResult& r) {
  if (r.status < 400 || r.status > 499) return "status " + std::to_string(r.status) + ", want a 4xx";
  if (!r.body.is_object()) return "body is not a JSON object";
  if (r.body.value("status", 0) != r.status) return "body.status differs from the HTTP status";
  if (!r.body.contains("message") || !r.body["message"].is_string() || r.body["message"].get<std::string>().empty())
    return "no message";
  if (Lower(r.Header("Content-Type")).rfind("application/json", 0) != 0) return "Content-Type " + r.Header("Content-Type");
  if (r.status == 400) {
    // Part 7: the validation shape.
    if (!r.body.contains("errors") || !r.body["errors"].is_array()) return "a 400 without errors[]";
    for (const auto& e : r.body["errors"])
      if (!e.is_object() || !e.value("msg", json()).is_string() || !e.value("param", json()).is_string() ||
          !e.value("location", json()).is_string())
        return "an errors[] entry without msg, param and location strings";
    return "";
  }
  // Part 7: {status, message, errorId} with a UUID v4 (and 404/405/413/415 alike: README gap table).
  if (!r.body.contains("errorId") || !r.body["errorId"].is_string() ||
      !IsUuid4(r.body["errorId"].get<std::string>()))
    return "no UUID v4 errorId";
  return "";
}

std::string Excerpt(const std::string& s, size_t n = 300) {
  std::string out = s.size() > n ? s.substr(0, n) + "..." : s;
  for (auto& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return out;
}

// Where two dumps first differ, for a readable failure.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const size_t from = i > 80 ? i - 80 : 0;
  return "at byte " + std::to_string(i) + ": before ..." + Excerpt(a.substr(from, 200), 200) + "\n after ..." +
         Excerpt(b.substr(from, 200), 200);
}

constexpr int kSlices = 4;
constexpr std::uint64_t kSeed = 18;

// Every case of the corpus, in order: those from the route table and schemas, then those built
// from the state dump the server starts with (the same for every slice: one fixture, manual clock).
std::vector<Case> Corpus(Generator& gen, const json& dump) {
  std::vector<Case> cases = gen.All();
  gen.StateDocuments(dump);
  for (auto& c : gen.Take()) cases.push_back(std::move(c));
  return cases;
}

TEST(HostileRequests, TheCorpusHasOverAThousandRequestsAimedAtEveryRoute) {
  TestServer server;
  const HttpResult before = server.Get("/_sim/state", "");
  ASSERT_EQ(before.status, 200) << before.raw;
  Generator gen(server.svc().schemas, kSeed);
  const std::vector<Case> cases = Corpus(gen, before.body);
  std::map<std::string, int> per_route;
  for (const auto& r : gen.Routes()) per_route[r.operationId] = 0;
  std::set<std::string> names;
  for (const auto& c : cases) {
    ++per_route[c.op];
    EXPECT_TRUE(names.insert(c.name).second) << "two cases named " << c.name;
  }
  std::cout << "hostile requests: " << cases.size() << " cases (seed " << kSeed << ")\n";
  for (const auto& [op, n] : per_route) std::cout << "  " << op << ": " << n << "\n";
  EXPECT_GE(cases.size(), 1000u);
  for (const auto& [op, n] : per_route) EXPECT_GT(n, 0) << op << " got no hostile request";
}

class HostileRequestSlice : public ::testing::TestWithParam<int> {};

// Slice k sends the cases whose index is k modulo kSlices.
TEST_P(HostileRequestSlice, RefusesMalformedInputWithoutCrashingOrChangingState) {
  const int slice = GetParam();
  TestServer server;
  const HttpResult before = server.Get("/_sim/state", "");
  ASSERT_EQ(before.status, 200) << before.raw;
  Generator gen(server.svc().schemas, kSeed);
  const std::vector<Case> cases = Corpus(gen, before.body);

  // The dump after each request is compared as text, not parsed (it is ~170 KB).
  httplib::Client state_client("127.0.0.1", server.port());
  int sent = 0, failed = 0;
  const bool trace = std::getenv("EMSIM_HOSTILE_TRACE") != nullptr;
  for (size_t i = slice; i < cases.size(); i += kSlices) {
    const Case& c = cases[i];
    ++sent;
    // EMSIM_HOSTILE_TRACE=1 names each case before it is sent: the last name printed is the one
    // that brought the process down, when one does.
    if (trace) std::cerr << "hostile: " << Excerpt(c.name, 160) << std::endl;
    const HttpResult r = server.Send(c.method, c.path, c.body, c.apiKey, c.headers, c.contentType);
    const std::string shape = ShapeProblems(r);
    bool ok = shape.empty();
    EXPECT_TRUE(ok) << c.name << " (" << c.method << " " << Excerpt(c.path, 120) << "): " << shape
                    << "\n  answer: " << Excerpt(r.raw);
    // The server is alive after every request.
    const HttpResult health = server.Get("/_sim/health", "");
    ASSERT_EQ(health.status, 200) << "emsim stopped answering after " << c.name;
    // A refused request changes nothing (Part 7 errors are answers, not partial work).
    if (c.method != "GET") {
      const auto now = state_client.Get("/_sim/state");
      ASSERT_TRUE(now) << "GET /_sim/state after " << c.name;
      if (now->body != before.raw) {
        ok = false;
        ADD_FAILURE() << c.name << " changed the state " << FirstDifference(before.raw, now->body);
        // Back to the dump taken before, so one failure does not fail every later case.
        server.Put("/_sim/state", before.body);
      }
    }
    if (!ok) ++failed;
    // The journal keeps every hostile request; reading it must keep working (deep or cut bodies).
    if (sent % 50 == 0) {
      const HttpResult journal = server.Get("/_sim/requests", "");
      if (journal.status != 200) {
        ADD_FAILURE() << "GET /_sim/requests answered " << journal.status << " after " << c.name << ": " << Excerpt(journal.raw);
        // A reset empties the journal (and gives back the fixture's state, the one compared with),
        // so one poisoned entry does not fail every later check.
        server.Post("/_sim/reset", json::object(), "");
      }
    }
  }
  const HttpResult journal = server.Get("/_sim/requests", "");
  EXPECT_EQ(journal.status, 200) << Excerpt(journal.raw);
  const HttpResult after = server.Get("/_sim/state", "");
  EXPECT_EQ(after.raw, before.raw) << FirstDifference(before.raw, after.raw);
  std::cout << "hostile requests, slice " << slice << " of " << kSlices << ": " << sent << " sent, " << failed
            << " answered wrongly\n";
  EXPECT_GE(sent, static_cast<int>(cases.size() / kSlices));
}

INSTANTIATE_TEST_SUITE_P(HostileRequests, HostileRequestSlice, ::testing::Range(0, kSlices));

}  // namespace
}  // namespace emsim::testing
