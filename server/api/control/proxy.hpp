#pragma once
// The shadow proxy (`emsim proxy`, README "Shadow proxy"): how far is emsim from a real
// deployment? Every /v1 and /v2 request goes to the target and its answer back to the client
// unchanged; beside it the request is replayed on a shadow emsim (an in-process pipeline), and
// what differs is reported: per operation, per rule (schema/answer_check.hpp and below), with the
// field and what each side had. One line per difference on stderr (runtime::Log), and the report
// at GET /_sim/proxy/report (JSON, or ?format=text), cleared by DELETE.
//
// The proxy is an http::RequestHandler: the transport serves it like the router, and every other
// /_sim path goes to the shadow's own control plane (its state, journal, clock).
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "app/services.hpp"
#include "http/server.hpp"
#include "schema/answer_check.hpp"
#include "scenario/client.hpp"

namespace emsim::api {

// Rules the proxy adds to those of schema/answer_check.hpp.
inline constexpr const char* kRuleStatusCode = "status-code";        // real and shadow statuses differ
inline constexpr const char* kRuleRequestSchema = "request-schema";  // the client's request breaks its schema
inline constexpr const char* kRuleStateChange = "state-change";      // a write one side did and the other refused
inline constexpr const char* kRuleUnknownToShadow = "unknown-to-shadow";  // about a record only the real one has
inline constexpr const char* kRuleMutationRefused = "mutation-refused";   // not forwarded: no --allow-mutations
inline constexpr const char* kRuleTargetUnreachable = "target-unreachable";  // 502 to the client

struct ProxyOptions {
  std::string target;  // base URL of the real deployment, e.g. https://real.example/api
  // Real API key -> the shadow's fixture key it stands for; a key not listed is sent as it is.
  std::map<std::string, std::string> apiKeyMap;
  // Without it, an operation whose catalogue `effect` is mutates or spends is not forwarded.
  bool allowMutations = false;
  size_t examplesPerRule = 5;  // examples the report keeps per operation and rule
};

// "REAL=SHADOW,REAL2=SHADOW2" -> map; throws std::invalid_argument naming the bad entry.
std::map<std::string, std::string> ParseApiKeyMap(const std::string& text);

class ShadowProxy : public http::RequestHandler {
 public:
  // `shadow` and `shadow_pipeline`: the in-process emsim requests are replayed on (its Services
  // and its app::Router); `target`: the client of the real deployment.
  ShadowProxy(ProxyOptions options, app::Services& shadow, http::RequestHandler& shadow_pipeline,
              std::unique_ptr<scenario::Client> target);

  // The shadow's limits: the same body limits as `emsim serve`.
  size_t BodyLimit(const std::string& method, const std::string& path) const override;
  // Never throws: an exception on the way is a 500 in Part 7's shape.
  http::Response Handle(http::RawRequest raw) override;
  http::Response Refuse(const http::Refusal& refusal, const std::string& method, const std::string& path,
                        bool record) override;

  // The report (GET /_sim/proxy/report): {target, allowMutations, requests, forwarded, refused,
  // differences, operations: {<op>: {requests, differences, rules: {<rule>: {count, examples}}}}}.
  json Report() const;
  std::string ReportText() const;
  void ClearReport();

 private:
  struct Difference {
    std::string rule, field, message, real, shadow;
  };
  struct RuleTally {
    size_t count = 0;
    std::vector<json> examples;
  };
  struct OperationTally {
    size_t requests = 0;
    size_t differences = 0;
    std::map<std::string, RuleTally> rules;
  };

  http::Response Forward(const schema::Operation* op, http::RawRequest raw);
  http::Response ServeReport(const http::RawRequest& raw);
  // Part 7's {status, message, errorId} for the proxy's own answers (403, 502, 500).
  http::Response ErrorAnswer(int status, const std::string& message);
  // The request-schema findings of a client's request (the router's check: Registry::CheckRequest).
  std::vector<Difference> RequestProblems(const schema::Operation& op, const http::RawRequest& raw) const;
  // Ids (values of "id" and "...Id" members) in an answer.
  static void CollectIds(const json& body, std::set<std::string>& out);
  // The first id of the request only the real deployment knows ("" = none).
  std::string UnpredictableIdIn(const http::RawRequest& raw) const;
  void Record(const std::string& op, const std::string& method, const std::string& path,
              const std::vector<Difference>& found, bool forwarded, bool refused);

  ProxyOptions options_;
  app::Services& shadow_;
  http::RequestHandler& shadow_pipeline_;
  std::unique_ptr<scenario::Client> target_;

  mutable std::mutex mu_;  // the report and the learnt ids
  size_t requests_ = 0, forwarded_ = 0, refused_ = 0, differences_ = 0;
  std::map<std::string, OperationTally> operations_;
  // Ids seen in the real answers and not in the shadow's: records the shadow cannot predict.
  std::set<std::string> unpredictable_;
};

}  // namespace emsim::api
