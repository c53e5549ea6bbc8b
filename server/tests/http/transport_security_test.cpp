// The transport (http/server.cpp) seen from a raw socket, and the control plane's protection:
// body limits from the headers before the body is read, a POST without a body answered at once,
// the connection cap, the idle and header timeouts, the admin token, masked secrets in
// GET /_sim/state and deliveries refused to non-public addresses under --strict-webhook-urls.
// Servers bind port 0. No test sleeps for time to pass: a socket read waits for the server's
// answer, with a receive timeout only so that a regression fails instead of hanging.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "events/transport.hpp"
#include "http/connection.hpp"
#include "model/state_secrets.hpp"
#include "runtime/log.hpp"
#include "tests/support/raw_client.hpp"
#include "tests/support/webhook_receiver.hpp"

namespace emsim::testing {
namespace {

json BodyOf(const std::string& answer) {
  const auto p = answer.find("\r\n\r\n");
  return p == std::string::npos ? json() : json::parse(answer.substr(p + 4), nullptr, false);
}
bool HasHeader(const std::string& answer, const std::string& line) {
  return answer.substr(0, answer.find("\r\n\r\n")).find(line) != std::string::npos;
}

// Part 7 shapes: a 400 carries field errors; other errors an errorId; status mirrors HTTP.
void ExpectSpecErrorShape(const std::string& answer, int status) {
  EXPECT_EQ(StatusOf(answer), status) << answer;
  const json body = BodyOf(answer);
  ASSERT_TRUE(body.is_object()) << answer;
  EXPECT_EQ(body.value("status", 0), status) << answer;
  EXPECT_TRUE(body["message"].is_string()) << answer;
  if (status == 400) EXPECT_TRUE(body["errors"].is_array()) << answer;
  else EXPECT_TRUE(body["errorId"].is_string()) << answer;
}

app::Options SmallBodies() {
  app::Options o;
  o.maxBodyBytes = 1000;
  o.maxStateBytes = 4 * 1024 * 1024;
  return o;
}

// ---- bodies: framing and limits, decided from the headers -------------------------------------------

TEST(Transport, PostWithoutBodyOrContentLengthIsAnsweredAtOnceAsEmpty) {
  // `curl -X POST .../_sim/reset`: no Content-Length, not chunked. httplib would read until the
  // client closes; the transport treats it as an empty body (RFC 9112 6.3).
  TestServer server;
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  const std::string answer = c.ReadAnswer();
  EXPECT_EQ(StatusOf(answer), 200) << answer;
  EXPECT_EQ(BodyOf(answer).value("status", ""), "ok") << answer;
  // The connection stays usable for the next request.
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(c.ReadAnswer()), 200);
}

TEST(Transport, ContentLengthOverTheLimitIsRefusedBeforeTheBodyIsSent) {
  TestServer server(SmallBodies());
  RawClient c(server.port());
  // Only the headers are sent: an answer proves the body was not waited for.
  ASSERT_TRUE(c.Send("POST /_sim/events HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                     "Content-Length: 500000000\r\n\r\n"));
  const std::string answer = c.ReadAnswer();
  ExpectSpecErrorShape(answer, 413);
  EXPECT_NE(BodyOf(answer).value("message", "").find("limit 1000 bytes"), std::string::npos) << answer;
  EXPECT_TRUE(HasHeader(answer, "Connection: close")) << answer;
  EXPECT_TRUE(c.ClosedByServer());
  // Journaled like any refused request.
  auto journal = server.Get("/_sim/requests?status=413", "");
  ASSERT_EQ(journal.status, 200);
  EXPECT_EQ(journal.body["requests"].size(), 1u) << journal.raw;
}

TEST(Transport, ARequestLineTooLongIs414SayingSoWithARequestIdTheLogAndJournalCarry) {
  TestServer server;
  const std::string before = server.Get("/_sim/state?secrets=true", "").raw;
  runtime::SetLogLevel("info");  // the test server writes warnings only; the request line is info
  RawClient c(server.port());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(c.Send("GET /v1/domain/list?contains=" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  const std::string answer = c.ReadAnswer();
  runtime::FlushLog();  // an info line waits a few milliseconds for others
  const std::string log = ::testing::internal::GetCapturedStderr();
  runtime::SetLogLevel("warn");
  ExpectSpecErrorShape(answer, 414);
  EXPECT_NE(BodyOf(answer).value("message", "").find("over 8192 bytes"), std::string::npos) << answer;
  const auto id_at = answer.find("x-request-id: req_");
  ASSERT_NE(id_at, std::string::npos) << answer.substr(0, 400);
  const std::string request_id = answer.substr(id_at + 14, answer.find("\r\n", id_at) - id_at - 14);
  EXPECT_NE(log.find("requestId=" + request_id), std::string::npos) << log;
  EXPECT_NE(log.find("status=414"), std::string::npos) << log;
  // The method and path, though cpp-httplib refused the line before parsing it: read from what
  // the connection kept of the request's first bytes.
  EXPECT_NE(log.find("method=GET path=/v1/domain/list "), std::string::npos) << log.substr(0, 600);
  auto journal = server.Get("/_sim/requests?status=414", "");
  ASSERT_EQ(journal.status, 200);
  ASSERT_EQ(journal.body["requests"].size(), 1u) << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("method", ""), "GET") << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("path", ""), "/v1/domain/list") << journal.raw;
  // Under the id the answer carried, with its time, as every journaled answer is.
  EXPECT_EQ(journal.body["requests"][0].value("id", ""), request_id) << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("time", ""), "2026-01-01T09:00:00.000Z") << journal.raw;
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").raw, before) << "a refused request changes nothing";

  // A path that is itself too long is journaled cut short, and says so.
  RawClient c2(server.port());
  ASSERT_TRUE(c2.Send("DELETE /v1/" + std::string(9000, 'b') + " HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  ExpectSpecErrorShape(c2.ReadAnswer(), 414);
  journal = server.Get("/_sim/requests?status=414&method=DELETE", "");
  ASSERT_EQ(journal.status, 200);
  ASSERT_EQ(journal.body["requests"].size(), 1u) << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("path", ""), "/v1/" + std::string(http::kPathKept - 4, 'b') + "...");
}

// The kept first bytes of a request that began after another in the same read, and whose line
// goes on past what one read of the connection's 16 KiB buffer holds: the bytes before the
// refill are kept, those of the request before it are not.
TEST(Transport, ARefusedRequestLineAfterAnotherAndAcrossRefillsIsStillNamed) {
  TestServer server;
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"
                     "PUT /v1/domain/list?contains=" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(c.ReadAnswer()), 200);
  ExpectSpecErrorShape(c.ReadAnswer(), 414);
  const auto journal = server.Get("/_sim/requests?status=414", "");
  ASSERT_EQ(journal.body["requests"].size(), 1u) << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("method", ""), "PUT") << journal.raw;
  EXPECT_EQ(journal.body["requests"][0].value("path", ""), "/v1/domain/list") << journal.raw;
}

TEST(Transport, TheMethodAndPathOfARefusedRequestLineAreReadOnlyFromPlainBytes) {
  std::string method, path;
  http::RequestLineParts("GET /v1/domain/list?contains=x HTTP/1.1", method, path);
  EXPECT_EQ(method, "GET");
  EXPECT_EQ(path, "/v1/domain/list");
  // Cut short where the kept bytes end, no query: the path as far as it goes.
  http::RequestLineParts("PATCH /v2/webhooks/endpoints/ab", method, path);
  EXPECT_EQ(method, "PATCH");
  EXPECT_EQ(path, "/v2/webhooks/endpoints/ab");
  // What is not a method followed by a target: nothing (the log and journal keep their empty
  // fields rather than carry a client's bytes they cannot print).
  for (const std::string_view bad : {std::string_view("get /x HTTP/1.1"), std::string_view("GET"),
                                     std::string_view("GET  /x"), std::string_view("\x16\x03\x01 /x"),
                                     std::string_view("VERYVERYLONGMETHODNAME /x"), std::string_view("")}) {
    http::RequestLineParts(bad, method, path);
    EXPECT_EQ(method, "") << bad;
    EXPECT_EQ(path, "") << bad;
  }
  // A target's bytes stop at the first one a log line cannot carry as it is.
  http::RequestLineParts(std::string_view("GET /a\"b\x01\xff" "c HTTP/1.1"), method, path);
  EXPECT_EQ(method, "GET");
  EXPECT_EQ(path, "/a\"b");
}

TEST(Transport, AClientThatSendsAWholeOversizedBodyBeforeReadingStillGetsThe413) {
  // curl and most HTTP libraries write the whole body, then read. The server answers 413 from
  // the headers and must drain all that follows: a close while the client still writes turns
  // into a reset, and the client sees a broken pipe instead of the answer.
  TestServer server(SmallBodies());
  RawClient c(server.port());
  const std::string body(16u << 20, 'x');
  ASSERT_TRUE(c.Send("POST /v2/webhooks/endpoints HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                     "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n"));
  ASSERT_TRUE(c.Send(body)) << "the server reset the connection while the body was being sent";
  ExpectSpecErrorShape(c.ReadAnswer(), 413);
}

TEST(Transport, PublicRoutesUseTheBodyLimitTooAndSmallBodiesPass) {
  TestServer server(SmallBodies());
  auto small = server.Send("PUT", "/_sim/clock", json{{"mode", "manual"}}.dump(), "", {});
  EXPECT_EQ(small.status, 200) << small.raw;
  auto big = server.Send("POST", "/v2/webhooks/endpoints", std::string(2000, ' ') + "{}", kAliceKey, {});
  EXPECT_EQ(big.status, 413) << big.raw;
}

TEST(Transport, StateAndScenarioRoutesHaveTheirOwnLargerLimit) {
  TestServer server(SmallBodies());
  auto dump = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(dump.status, 200);
  ASSERT_GT(dump.raw.size(), 1000u) << "the test needs a dump larger than --max-body-bytes";
  auto put = server.Send("PUT", "/_sim/state", dump.raw, "", {});
  EXPECT_EQ(put.status, 200) << put.raw;

  RawClient c(server.port());
  ASSERT_TRUE(c.Send("PUT /_sim/state HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                     "Content-Length: 5000000\r\n\r\n"));
  const std::string answer = c.ReadAnswer();
  ExpectSpecErrorShape(answer, 413);
  EXPECT_NE(BodyOf(answer).value("message", "").find("limit 4194304 bytes"), std::string::npos) << answer;
}

TEST(Transport, ChunkedBodiesAreDecodedAndCountedAgainstTheLimitWhileRead) {
  TestServer server(SmallBodies());
  {
    RawClient c(server.port());
    const std::string body = json{{"mode", "manual"}}.dump();
    const std::string half1 = body.substr(0, 5), half2 = body.substr(5);
    char size1[16], size2[16];
    std::snprintf(size1, sizeof size1, "%zx", half1.size());
    std::snprintf(size2, sizeof size2, "%zx", half2.size());
    ASSERT_TRUE(c.Send("PUT /_sim/clock HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n" +
                       std::string(size1) + "\r\n" + half1 + "\r\n" + size2 + ";ext=1\r\n" + half2 + "\r\n0\r\n\r\n"));
    const std::string answer = c.ReadAnswer();
    EXPECT_EQ(StatusOf(answer), 200) << answer;
    ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
    EXPECT_EQ(StatusOf(c.ReadAnswer()), 200) << "the connection is still in step after a chunked body";
  }
  {
    RawClient c(server.port());
    // 600 + 600 bytes: the second chunk's size line is enough to refuse, before its data.
    ASSERT_TRUE(c.Send("POST /_sim/events HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n258\r\n" + std::string(600, ' ') + "\r\n258\r\n"));
    const std::string answer = c.ReadAnswer();
    ExpectSpecErrorShape(answer, 413);
    EXPECT_TRUE(c.ClosedByServer());
  }
  {
    RawClient c(server.port());
    ASSERT_TRUE(c.Send("POST /_sim/events HTTP/1.1\r\nHost: emsim\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"));
    ExpectSpecErrorShape(c.ReadAnswer(), 400);
  }
}

TEST(Transport, MalformedFramingIsA4xxInTheSpecShape) {
  TestServer server;
  const std::vector<std::pair<std::string, int>> cases = {
      {"Content-Length: abc\r\n", 400},
      {"Content-Length: -1\r\n", 400},
      {"Content-Length: 99999999999999999999999\r\n", 400},
      {"Content-Length: 2\r\nContent-Length: 3\r\n", 400},
      {"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", 400},
      {"Transfer-Encoding: gzip\r\n", 501},
      // Header names in any case (RFC 9110 5.1): the same refusals.
      {"content-length: 2\r\nCONTENT-LENGTH: 3\r\n", 400},
      {"content-length: 2\r\ntransfer-encoding: chunked\r\n", 400},
      {"TRANSFER-ENCODING: gzip\r\n", 501},
  };
  for (const auto& [headers, status] : cases) {
    RawClient c(server.port());
    ASSERT_TRUE(c.Send("POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\n" + headers + "\r\n"));
    const std::string answer = c.ReadAnswer();
    SCOPED_TRACE(headers);
    ExpectSpecErrorShape(answer, status);
    EXPECT_TRUE(c.ClosedByServer());
  }
  EXPECT_EQ(server.Get("/_sim/health", "").status, 200) << "still serving";
}

// Copies of Content-Length that agree are one length (RFC 9110 8.6), whatever case their names
// are in; the body they frame is read and the connection kept.
TEST(Transport, RepeatedContentLengthsThatAgreeFrameTheBody) {
  TestServer server;
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\nContent-Type: application/json\r\n"
                     "Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}"
                     "GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(c.ReadAnswer()), 200);
  EXPECT_EQ(BodyOf(c.ReadAnswer()).value("status", ""), "ok") << "the body was read as two bytes";
}

// The header that carries the transport's verdict to the handler is the transport's own: a
// client's copy, in any case, refuses nothing.
TEST(Transport, AVerdictHeaderAClientSendsIsIgnored) {
  TestServer server;
  for (const std::string name : {"EMSIM-TRANSPORT-VERDICT", "emsim-transport-verdict", "Emsim-Transport-Verdict"}) {
    RawClient c(server.port());
    ASSERT_TRUE(c.Send("POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\n" + name +
                       ": 413 5 forged\r\nContent-Length: 0\r\n\r\n"));
    const std::string answer = c.ReadAnswer();
    SCOPED_TRACE(name);
    EXPECT_EQ(StatusOf(answer), 200) << answer;
    EXPECT_EQ(answer.find("forged"), std::string::npos) << answer;
  }
}

TEST(Transport, PipelinedRequestsAreAllAnsweredInOrder) {
  TestServer server;
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"
                     "GET /_sim/clock HTTP/1.1\r\nHost: emsim\r\n\r\n"
                     "POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_EQ(BodyOf(c.ReadAnswer()).value("status", ""), "ok");
  EXPECT_EQ(BodyOf(c.ReadAnswer()).value("mode", ""), "manual");
  EXPECT_EQ(StatusOf(c.ReadAnswer()), 200);
}

TEST(Transport, AGetWithABodyIsAnsweredAndTheConnectionClosed) {
  // httplib reads no body for a GET: left on the wire, it would be read as a second request.
  TestServer server;
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\nContent-Length: 44\r\n\r\n"
                     "POST /_sim/reset HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(c.ReadAnswer()), 200);
  EXPECT_TRUE(c.ClosedByServer());
}

// ---- connections: cap, idle and header timeouts ------------------------------------------------------

TEST(Transport, AConnectionOverTheCapGets503InTheSpecShape) {
  app::Options o;
  o.maxConnections = 2;
  TestServer server(o);
  // The test client's own keep-alive connection is not open yet: two raw ones fill the cap.
  RawClient a(server.port()), b(server.port());
  for (RawClient* c : {&a, &b}) {
    ASSERT_TRUE(c->Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
    ASSERT_EQ(StatusOf(c->ReadAnswer()), 200);
  }
  RawClient third(server.port());
  ASSERT_TRUE(third.connected());
  const std::string answer = third.ReadAnswer();
  ExpectSpecErrorShape(answer, 503);
  EXPECT_NE(BodyOf(answer).value("message", "").find("limit 2"), std::string::npos) << answer;
  EXPECT_TRUE(HasHeader(answer, "Connection: close")) << answer;
  // The ones within the cap are still served.
  ASSERT_TRUE(a.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(a.ReadAnswer()), 200);
}

TEST(Transport, AnIncompleteRequestGets408AtTheHeaderTimeout) {
  app::Options o;
  o.headerTimeoutMs = 200;
  TestServer server(o);
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: em"));  // and nothing more
  const std::string answer = c.ReadAnswer();
  ExpectSpecErrorShape(answer, 408);
  EXPECT_TRUE(c.ClosedByServer());
  // A connection that never sends a byte is closed without an answer.
  RawClient silent(server.port());
  EXPECT_TRUE(silent.ClosedByServer());
}

TEST(Transport, AnIdleKeepAliveConnectionIsClosedAtTheIdleTimeout) {
  app::Options o;
  o.idleTimeoutMs = 200;
  TestServer server(o);
  RawClient c(server.port());
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  const std::string answer = c.ReadAnswer();
  EXPECT_EQ(StatusOf(answer), 200);
  EXPECT_FALSE(HasHeader(answer, "Connection: close")) << answer;
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(Transport, AStopEndsAKeepAliveConnectionWaitingForItsNextRequest) {
  // Between requests a plain connection waits in a blocking read, which only the client's bytes,
  // its close or the read's timeout end: a stop shuts the reading side of every such socket down,
  // so the connection ends now and not at its idle timeout (and the stop, which waits for the
  // connections' threads, does not wait two minutes).
  app::Options o;
  o.idleTimeoutMs = 120000;
  TestServer server(o);
  // Connected first, so accepted before the other (which is answered below): waiting for its
  // first request when the stop comes, not still in the listening socket's queue.
  RawClient silent(server.port(), 30000);
  ASSERT_TRUE(silent.connected());
  RawClient c(server.port(), 30000);
  ASSERT_TRUE(c.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  ASSERT_EQ(StatusOf(c.ReadAnswer()), 200);
  server.app().Stop();
  EXPECT_TRUE(c.ClosedByServer());
  EXPECT_TRUE(silent.ClosedByServer());
}

TEST(Transport, AFreshClientIsServedWhileHundredsOfConnectionsIdleOrStall) {
  // The old fixed pool (160 threads, one per connection for its whole life) left this client
  // waiting for a connection to time out; with long timeouts it waited beyond its own 5 s.
  app::Options o;
  o.idleTimeoutMs = 120000;
  o.headerTimeoutMs = 120000;
  TestServer server(o);
  std::vector<RawClient> idle, stalled;
  for (int i = 0; i < 250; ++i) {
    idle.emplace_back(server.port());
    ASSERT_TRUE(idle.back().Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
    ASSERT_EQ(StatusOf(idle.back().ReadAnswer()), 200);
  }
  for (int i = 0; i < 50; ++i) {
    stalled.emplace_back(server.port());
    ASSERT_TRUE(stalled.back().Send("GET /_sim/health HTTP/1.1\r\nX-Slow: "));
  }
  RawClient fresh(server.port(), 5000);
  ASSERT_TRUE(fresh.Send("GET /_sim/health HTTP/1.1\r\nHost: emsim\r\n\r\n"));
  EXPECT_EQ(StatusOf(fresh.ReadAnswer()), 200);
}

// ---- control plane: admin token --------------------------------------------------------------------

TEST(ControlPlane, ABindBeyondLoopbackNeedsAnAdminToken) {
  auto options = [](std::string host, std::string token) {
    app::Options o;
    o.host = std::move(host);
    o.adminToken = std::move(token);
    return o;
  };
  EXPECT_THROW(cli::CheckControlPlaneExposure(options("0.0.0.0", "")), cli::StartupError);
  EXPECT_THROW(cli::CheckControlPlaneExposure(options("::", "")), cli::StartupError);
  EXPECT_THROW(cli::CheckControlPlaneExposure(options("", "")), cli::StartupError);
  EXPECT_NO_THROW(cli::CheckControlPlaneExposure(options("127.0.0.1", "")));
  EXPECT_NO_THROW(cli::CheckControlPlaneExposure(options("127.8.9.10", "")));
  EXPECT_NO_THROW(cli::CheckControlPlaneExposure(options("::1", "")));
  EXPECT_NO_THROW(cli::CheckControlPlaneExposure(options("localhost", "")));
  EXPECT_NO_THROW(cli::CheckControlPlaneExposure(options("0.0.0.0", "s3cret-token")));
  EXPECT_THROW(cli::CheckControlPlaneExposure(options("127.0.0.1", "has space")), cli::StartupError);
  try {
    cli::CheckControlPlaneExposure(options("0.0.0.0", ""));
  } catch (const cli::StartupError& e) {
    EXPECT_NE(std::string(e.what()).find("--admin-token"), std::string::npos) << e.what();
  }
}

TEST(ControlPlane, WithATokenEverySimRequestNeedsTheBearerHeader) {
  app::Options o;
  o.adminToken = "s3cret-token";
  TestServer server(o);
  const httplib::Headers good = {{"Authorization", "Bearer s3cret-token"}};

  for (const auto& [name, headers] : std::vector<std::pair<std::string, httplib::Headers>>{
           {"none", {}},
           {"wrong", {{"Authorization", "Bearer s3cret-tokeN"}}},
           {"prefix", {{"Authorization", "Bearer s3cret"}}},
           {"longer", {{"Authorization", "Bearer s3cret-token2"}}},
           {"other scheme", {{"Authorization", "Basic s3cret-token"}}}}) {
    SCOPED_TRACE(name);
    auto r = server.Get("/_sim/state", "", headers);
    EXPECT_EQ(r.status, 401) << r.raw;
    EXPECT_EQ(r.body.value("status", 0), 401);
    EXPECT_TRUE(r.body["errorId"].is_string()) << r.raw;
    EXPECT_EQ(r.Header("WWW-Authenticate").rfind("Bearer", 0), 0u);
    EXPECT_EQ(r.raw.find(kAliceKey), std::string::npos);
  }
  // A refused write changes nothing.
  auto denied = server.Send("PUT", "/_sim/clock", json{{"now", "2030-01-01T00:00:00.000Z"}}.dump(), "", {});
  EXPECT_EQ(denied.status, 401);
  EXPECT_NE(server.Get("/_sim/clock", "", good).body.value("now", ""), "2030-01-01T00:00:00.000Z");

  EXPECT_EQ(server.Get("/_sim/health", "", good).status, 200);
  EXPECT_EQ(server.Get("/_sim/health", "", {{"Authorization", "bearer s3cret-token"}}).status, 200);
  // The public API is not the control plane: its own API keys, as ever.
  EXPECT_EQ(server.Get("/v1/workspace/list", kAliceKey).status, 200);
  // A sink's receiving address takes emsim's webhook deliveries, which carry no admin token.
  auto sink = server.Post("/_sim/sinks", json{{"name", "s"}}, "", good);
  ASSERT_EQ(sink.status, 201) << sink.raw;
  const std::string sink_id = sink.body.value("id", "");
  auto received = server.Post("/_sim/sinks/" + sink_id + "/receive", json{{"hello", 1}}, "");
  EXPECT_LT(received.status, 300) << received.raw;
}

TEST(ControlPlane, WithoutATokenOnLoopbackSimStaysOpen) {
  TestServer server;
  EXPECT_EQ(server.Get("/_sim/health", "").status, 200);
  EXPECT_EQ(server.Get("/_sim/state", "").status, 200);
}

// ---- control plane: secrets in GET /_sim/state -------------------------------------------------------

TEST(ControlPlane, StateDumpMasksSecretsUnlessAskedFor) {
  TestServer server;
  auto endpoint = CreateEndpoint(server, "http://127.0.0.1:9/hook");
  ASSERT_FALSE(endpoint.secret.empty());

  auto masked = server.Get("/_sim/state", "");
  ASSERT_EQ(masked.status, 200);
  EXPECT_EQ(masked.raw.find(kAliceKey), std::string::npos);
  EXPECT_EQ(masked.raw.find(kBobKey), std::string::npos);
  EXPECT_EQ(masked.raw.find(endpoint.secret), std::string::npos);
  for (const auto& a : masked.body["accounts"]) EXPECT_EQ(a["apiKey"], model::kMaskedSecret);
  for (const auto& e : masked.body["webhookEndpoints"]) EXPECT_EQ(e["secret"], model::kMaskedSecret);

  auto full = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(full.status, 200);
  EXPECT_NE(full.raw.find(kAliceKey), std::string::npos);
  EXPECT_NE(full.raw.find(endpoint.secret), std::string::npos);

  EXPECT_EQ(server.Get("/_sim/state?secrets=yes", "").status, 400);
}

// The same secrets are masked wherever else /_sim shows what it was sent or answered: the journal
// (a state dump PUT with its keys, the answer that created an endpoint with its secret) and the
// fault list (the API key a fault targets).
TEST(ControlPlane, TheJournalAndTheFaultListMaskSecretsUnlessAskedFor) {
  TestServer server;
  auto endpoint = CreateEndpoint(server, "http://127.0.0.1:9/hook");
  ASSERT_FALSE(endpoint.secret.empty());
  auto full = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(server.Send("PUT", "/_sim/state", full.raw, "", {}).status, 200);
  ASSERT_EQ(server.Post("/_sim/faults", {{"path", "/v1/mailbox/list"}, {"apiKey", kBobKey}, {"status", 503}}, "").status, 201);

  auto journal = server.Get("/_sim/requests", "");
  ASSERT_EQ(journal.status, 200);
  EXPECT_EQ(journal.raw.find(kAliceKey), std::string::npos) << "the PUT state body's keys";
  EXPECT_EQ(journal.raw.find(kBobKey), std::string::npos) << "the fault's apiKey";
  EXPECT_EQ(journal.raw.find(endpoint.secret), std::string::npos) << "the endpoint's secret, in a body and an answer";
  EXPECT_NE(journal.raw.find(model::kMaskedSecret), std::string::npos);
  auto journal_full = server.Get("/_sim/requests?secrets=true", "");
  ASSERT_EQ(journal_full.status, 200);
  EXPECT_NE(journal_full.raw.find(kAliceKey), std::string::npos);
  EXPECT_NE(journal_full.raw.find(endpoint.secret), std::string::npos);
  EXPECT_EQ(server.Get("/_sim/requests?secrets=1", "").status, 400);

  auto faults = server.Get("/_sim/faults", "");
  ASSERT_EQ(faults.status, 200);
  EXPECT_EQ(faults.body["faults"][0]["apiKey"], model::kMaskedSecret);
  EXPECT_EQ(server.Get("/_sim/faults?secrets=true", "").body["faults"][0]["apiKey"], kBobKey);
  EXPECT_EQ(server.Get("/_sim/faults?secrets=maybe", "").status, 400);
}

TEST(ControlPlane, AFullDumpLoadsBackExactlyAndAMaskedOneIsRefusedWithoutChange) {
  TestServer server;
  CreateEndpoint(server, "http://127.0.0.1:9/hook");
  auto full = server.Get("/_sim/state?secrets=true", "");
  ASSERT_EQ(full.status, 200);
  auto masked = server.Get("/_sim/state", "");

  // Change the world, then load the full dump back: everything returns, keys and secrets too.
  ASSERT_EQ(server.Post("/_sim/reset", json::object(), "").status, 200);
  auto put = server.Send("PUT", "/_sim/state", full.raw, "", {});
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, full.body);
  EXPECT_EQ(server.Get("/v1/workspace/list", kAliceKey).status, 200) << "the key works after the load";

  // A masked dump names the first masked field and changes nothing.
  auto refused = server.Send("PUT", "/_sim/state", masked.raw, "", {});
  EXPECT_EQ(refused.status, 400) << refused.raw;
  ASSERT_TRUE(refused.body["errors"].is_array());
  EXPECT_EQ(refused.body["errors"][0].value("param", ""), "accounts[0].apiKey") << refused.raw;
  EXPECT_EQ(server.Get("/_sim/state?secrets=true", "").body, full.body);
}

TEST(ControlPlane, MaskSecretsCoversEverySecretField) {
  json dump = {{"accounts", {{{"id", "a"}, {"apiKey", "k1"}}}},
               {"webhookEndpoints", {{{"id", "e"}, {"secret", "whsec"}}}},
               {"thirdPartyAccounts", {{{"id", "t"}, {"passwordFingerprint", "sha256:ab"}}}},
               {"faults", {{{"id", "f"}, {"apiKey", "k1"}}, {{"id", "g"}, {"apiKey", ""}}}}};
  EXPECT_FALSE(model::FindMaskedSecret(dump));
  EXPECT_EQ(model::MaskSecrets(dump), 4u);
  EXPECT_EQ(dump.dump().find("k1"), std::string::npos);
  EXPECT_EQ(dump.dump().find("whsec"), std::string::npos);
  EXPECT_EQ(dump.dump().find("sha256:ab"), std::string::npos);
  EXPECT_EQ(dump["faults"][1]["apiKey"], "") << "an empty field (no key) stays as it is";
  EXPECT_EQ(model::FindMaskedSecret(dump).value_or(""), "accounts[0].apiKey");
}

// ---- --strict-webhook-urls: non-public addresses refused after DNS resolution ------------------------

TEST(StrictWebhookUrls, AddressesAreClassifiedAfterResolution) {
  auto kind = [](const char* text) {
    sockaddr_storage s{};
    if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in*>(&s)->sin_addr) == 1) s.ss_family = AF_INET;
    else if (inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6*>(&s)->sin6_addr) == 1) s.ss_family = AF_INET6;
    else ADD_FAILURE() << text;
    return events::NonPublicKind(reinterpret_cast<sockaddr*>(&s));
  };
  for (const char* a : {"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"}) EXPECT_EQ(kind(a), "loopback") << a;
  for (const char* a : {"10.0.0.1", "172.16.0.1", "172.31.255.254", "192.168.1.1", "fc00::1", "fd12:3456::1",
                        "::ffff:10.1.2.3", "::ffff:192.168.0.1"})
    EXPECT_EQ(kind(a), "private") << a;
  for (const char* a : {"169.254.169.254", "fe80::1", "febf::1", "::ffff:169.254.1.1"}) EXPECT_EQ(kind(a), "link-local") << a;
  for (const char* a : {"0.0.0.0", "::", "0.1.2.3"}) EXPECT_EQ(kind(a), "unspecified") << a;
  for (const char* a : {"8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1", "169.253.0.1", "1.1.1.1",
                        "2001:4860:4860::8888", "fec0::1", "::ffff:8.8.8.8"})
    EXPECT_EQ(kind(a), "") << a;
}

TEST(StrictWebhookUrls, ANameThatResolvesToLoopbackIsRefusedAndNothingIsSent) {
  Receiver receiver;  // a real receiver on 127.0.0.1: reachable, so only the rule keeps it out
  app::Options o;
  o.strictWebhookUrls = true;
  o.webhookTimeoutMs = 2000;
  TestServer server(o);
  // https passes the URL rule (scheme); `localhost` passes any literal-address check.
  std::string url = receiver.Url("/hook", "https");
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  auto endpoint = CreateEndpoint(server, url);
  ASSERT_FALSE(endpoint.id.empty());
  Trigger(server);
  server.Advance("0s");
  const json all = Deliveries(server, "?endpointId=" + endpoint.id);
  ASSERT_FALSE(all["deliveries"].empty()) << all.dump();
  const std::string error = all["deliveries"][0].value("error", "");
  EXPECT_NE(error.find("refused by --strict-webhook-urls"), std::string::npos) << all.dump();
  EXPECT_NE(error.find("loopback"), std::string::npos) << error;
  EXPECT_EQ(receiver.Count(), 0u) << "no connection was made";

  // The transport on its own: a private literal, and the default (not strict) would connect.
  model::UrlParts parts{"http", "10.0.0.1", 80, "/"};
  events::TransportOptions strict;
  strict.publicAddressesOnly = true;
  const auto r = events::PostJson(parts, {}, "{}", strict);
  EXPECT_FALSE(r.status);
  EXPECT_NE(r.error.find("(private)"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace emsim::testing
