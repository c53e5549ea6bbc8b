// An answer handed to a gate (http::Response::gate; with --data-dir, the change's commit): the
// connection's thread goes back to its socket, and the answer goes out only once the gate opens,
// in order with the connection's other answers, whole even when the socket cannot take it at once,
// and as a 500 that closes the connection when the gate refuses it. The gates here are opened by
// the test; nothing sleeps: "not sent yet" is checked once the gate holds the answer's bytes.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "http/server.hpp"
#include "tests/support/raw_client.hpp"

namespace emsim::testing {
namespace {

// A gate the test opens by hand once the connection has handed it its answer.
class HandGate final : public http::Gate {
 public:
  void Then(std::function<void(const std::string*)> done) override {
    std::lock_guard lock(mu_);
    done_ = std::move(done);
    cv_.notify_all();
  }
  void AwaitHanded() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return static_cast<bool>(done_); });
  }
  void Open(bool ok) {
    AwaitHanded();
    std::function<void(const std::string*)> done;
    {
      std::lock_guard lock(mu_);
      done.swap(done_);
    }
    const std::string refusal = R"({"status":500,"message":"refused by the test"})";
    done(ok ? nullptr : &refusal);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void(const std::string*)> done_;
};

// /gated and /big-gated answer behind the next gate of `gates`; anything else at once.
class GatingHandler final : public http::RequestHandler {
 public:
  std::deque<std::shared_ptr<HandGate>> gates;
  std::atomic<bool> saw_cannot_defer{false};

  size_t BodyLimit(const std::string&, const std::string&) const override { return 1024 * 1024; }
  http::Response Handle(http::RawRequest raw) override {
    if (!raw.canDefer) saw_cannot_defer = true;
    http::Response res;
    res.body = {{"path", raw.path}};
    if (raw.path == "/big-gated") res.raw = std::string(8 * 1024 * 1024, 'b');
    if (raw.path == "/gated" || raw.path == "/big-gated") {
      std::lock_guard lock(mu_);
      res.gate = gates.front();
      gates.pop_front();
    }
    return res;
  }
  http::Response Refuse(const http::Refusal& r, const std::string&, const std::string&, bool) override {
    http::Response res;
    res.status = r.status;
    res.body = {{"status", r.status}, {"message", r.detail}};
    return res;
  }

 private:
  std::mutex mu_;
};

class Served {
 public:
  explicit Served(GatingHandler& h) : server_(http::ServerOptions{}, h) {
    port_ = server_.Bind("127.0.0.1", 0);
    thread_ = std::thread([this] { server_.Serve(); });
  }
  ~Served() {
    server_.Stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  http::HttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

std::string BodyText(const std::string& answer) {
  const size_t p = answer.find("\r\n\r\n");
  return p == std::string::npos ? "" : answer.substr(p + 4);
}

// A server whose gated answers wait for `gates`, in turn, and a client connected to it.
struct Conversation {
  explicit Conversation(size_t gate_count, int receive_timeout_ms = 5000) : client(server.port(), receive_timeout_ms) {
    for (size_t i = 0; i < gate_count; ++i) gates.push_back(std::make_shared<HandGate>());
    handler.gates.assign(gates.begin(), gates.end());
  }
  GatingHandler handler;
  Served server{handler};
  std::vector<std::shared_ptr<HandGate>> gates;
  RawClient client;
};

constexpr const char* kGated = "POST /gated HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";
constexpr const char* kPlain = "GET /plain HTTP/1.1\r\nHost: t\r\n\r\n";

TEST(DeferredAnswer, IsSentOnlyOnceItsGateOpensAndTheConnectionGoesOn) {
  Conversation talk(1);
  auto [c, gate] = std::tie(talk.client, talk.gates[0]);
  ASSERT_TRUE(c.Send(kGated));
  gate->AwaitHanded();  // the whole answer is written and with the gate
  EXPECT_TRUE(c.NothingYet()) << "an answer went out before its gate opened";
  gate->Open(true);
  const std::string answer = c.ReadAnswer();
  EXPECT_EQ(StatusOf(answer), 200) << answer;
  EXPECT_EQ(BodyText(answer), R"({"path":"/gated"})");
  // The same connection serves the next request, which waits for nothing.
  ASSERT_TRUE(c.Send(kPlain));
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/plain"})");
  EXPECT_FALSE(talk.handler.saw_cannot_defer) << "a plain HTTP connection can send later";
}

TEST(DeferredAnswer, ARefusedGateAnswers500InItsPlaceAndClosesTheConnection) {
  Conversation talk(1);
  auto [c, gate] = std::tie(talk.client, talk.gates[0]);
  ASSERT_TRUE(c.Send(kGated));
  gate->Open(false);
  const std::string answer = c.ReadAnswer();
  EXPECT_EQ(StatusOf(answer), 500) << answer;
  EXPECT_EQ(BodyText(answer), R"({"status":500,"message":"refused by the test"})") << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("/gated"), std::string::npos) << "the refused answer itself went out: " << answer;
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(DeferredAnswer, PipelinedAnswersGoOutInTheOrderTheRequestsCame) {
  Conversation talk(2);
  auto [c, first, third] = std::tie(talk.client, talk.gates[0], talk.gates[1]);
  // Three requests in one write: the second waits for nothing but must not overtake the first.
  ASSERT_TRUE(c.Send(std::string(kGated) + kPlain + kGated));
  first->AwaitHanded();
  EXPECT_TRUE(c.NothingYet());
  first->Open(true);
  third->Open(true);
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/gated"})");
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/plain"})");
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/gated"})");
}

// The gate's thread (the durable writer) must never block on a client: it sends what the socket
// takes at once, and the rest goes from a thread of its own.
TEST(DeferredAnswer, AnAnswerLargerThanTheSocketTakesAtOnceArrivesWhole) {
  Conversation talk(1, 30000);
  auto [c, gate] = std::tie(talk.client, talk.gates[0]);
  ASSERT_TRUE(c.Send("POST /big-gated HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
  gate->Open(true);  // returns without the client having read anything
  const std::string answer = c.ReadAnswer();
  EXPECT_EQ(StatusOf(answer), 200);
  EXPECT_EQ(BodyText(answer), std::string(8 * 1024 * 1024, 'b'));
  ASSERT_TRUE(c.Send(kPlain));
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/plain"})");
}

// The rest of a large answer goes from a thread of its own while the connection's thread goes on
// reading: an answer the client asked for after it (pipelined) still goes out after it, whole.
TEST(DeferredAnswer, ALargeAnswersRestGoesBeforeTheAnswerAfterIt) {
  Conversation talk(1, 30000);
  auto [c, gate] = std::tie(talk.client, talk.gates[0]);
  ASSERT_TRUE(c.Send(std::string("POST /big-gated HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n") + kPlain));
  gate->Open(true);
  const std::string big = c.ReadAnswer();
  EXPECT_EQ(StatusOf(big), 200);
  EXPECT_EQ(BodyText(big), std::string(8 * 1024 * 1024, 'b'));
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/plain"})");
  ASSERT_TRUE(c.Send(kPlain));
  EXPECT_EQ(BodyText(c.ReadAnswer()), R"({"path":"/plain"})");
}

}  // namespace
}  // namespace emsim::testing
