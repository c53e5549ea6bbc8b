// The catalogue of operations (schemas/operations.json): what it holds, the rules its loader
// enforces, the route table and the scenario language built from it, and emsim refusing to start
// when the catalogue and the handlers disagree. No sockets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "api/control/scenarios.hpp"
#include "api/routes.hpp"
#include "cli/app.hpp"
#include "http/server.hpp"
#include "schema/catalogue.hpp"
#include "schema/registry.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

namespace fs = std::filesystem;

json ReadJson(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

class CatalogueTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { registry_ = new schema::Registry(cli::DefaultSchemasDir()); }
  static void TearDownTestSuite() {
    delete registry_;
    registry_ = nullptr;
  }
  static const schema::Registry& Registry() { return *registry_; }
  static json Document() { return ReadJson(fs::path(cli::DefaultSchemasDir()) / "operations.json"); }

  // The loader's complaint about the project's catalogue after `edit`, or "" when it loads.
  static std::string ProblemAfter(const std::function<void(json&)>& edit) {
    json doc = Document();
    edit(doc["operations"]);
    try {
      schema::Catalogue catalogue(doc, Registry(), "operations.json");
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

 private:
  static schema::Registry* registry_;
};
schema::Registry* CatalogueTest::registry_ = nullptr;

TEST_F(CatalogueTest, HoldsEveryOperationWithItsSchemasEnvelopeAndEffect) {
  const auto& all = Registry().Operations().All();
  ASSERT_EQ(all.size(), Document()["operations"].size());
  size_t public_ops = 0, from_reference = 0;
  std::set<std::string> ids;
  for (const auto& op : all) {
    EXPECT_TRUE(ids.insert(op.id).second) << op.id;
    EXPECT_EQ(op.request, "requests/" + op.id);
    EXPECT_TRUE(Registry().Has(op.request)) << op.id;
    if (op.Public()) {
      ++public_ops;
      EXPECT_EQ(op.response, "responses/" + op.id);
      EXPECT_TRUE(Registry().Has(op.response)) << op.id;
      EXPECT_EQ(op.part.rfind("Part 4.", 0), 0u) << op.id << ": " << op.part;
      // Part 4.11 names operations without paths: each one emsim has says which page of the
      // public reference its shape comes from, and only those carry a source.
      const bool reference = op.part == "Part 4.11 (from the public reference)";
      EXPECT_EQ(reference, !op.source.empty()) << op.id;
      if (reference) {
        ++from_reference;
        EXPECT_EQ(op.source.rfind("public reference: https://docs.zapmail.ai/", 0), 0u) << op.id << ": " << op.source;
      }
    } else {
      EXPECT_EQ(op.path.rfind("/_sim/", 0), 0u) << op.id;
    }
  }
  // Part 4.1 to 4.10: 24 public operations; Part 4.11: 10 from the public reference.
  EXPECT_EQ(public_ops, 34u);
  EXPECT_EQ(from_reference, 10u);
  const schema::Operation* buy = Registry().Operations().Find("domains.buy");
  ASSERT_NE(buy, nullptr);
  EXPECT_EQ(buy->method, "POST");
  EXPECT_EQ(buy->path, "/v1/domain/buy-domain");
  EXPECT_EQ(buy->envelope, schema::Envelope::kNone);  // Part 4.4: {message, paymentLink}
  EXPECT_EQ(buy->effect, schema::Effect::kSpends);
  const schema::Operation* cancel = Registry().Operations().Find("subscriptions.cancel");
  ASSERT_NE(cancel, nullptr);
  EXPECT_EQ(cancel->envelope, schema::Envelope::kMessageData);  // Part 4.6: no status
  EXPECT_EQ(cancel->access, schema::Access::kAccount);
  // A POST that only reads (Part 4.4 availability) says so.
  EXPECT_EQ(Registry().Operations().Find("domains.available")->effect, schema::Effect::kRead);
  EXPECT_EQ(Registry().Operations().Find("sim.scenarios.run")->body, schema::BodyFormat::kYaml);
}

TEST_F(CatalogueTest, TheRouteTableIsTheCatalogueWithItsHandlers) {
  const auto& ops = Registry().Operations().All();
  const auto routes = api::Routes(Registry().Operations());
  ASSERT_EQ(routes.size(), ops.size());
  for (size_t i = 0; i < routes.size(); ++i) {
    EXPECT_EQ(routes[i].operationId, ops[i].id);
    EXPECT_EQ(routes[i].method, ops[i].method);
    EXPECT_EQ(routes[i].pattern, ops[i].path);
    EXPECT_EQ(routes[i].access, ops[i].access);
    EXPECT_EQ(routes[i].body, ops[i].body);
    EXPECT_NE(routes[i].handler, nullptr);
  }
}

TEST_F(CatalogueTest, RefusesEntriesThatBreakItsRules) {
  EXPECT_EQ(ProblemAfter([](json&) {}), "");
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"unknown method", [](json& ops) { ops[0]["method"] = "FETCH"; },
       "operations.json: operations[0] (workspaces.list): method must be one of GET, POST, PUT, PATCH, DELETE"},
      {"missing field", [](json& ops) { ops[1].erase("effect"); },
       "operations[1] (billing.add_or_update): effect is required"},
      {"bad path", [](json& ops) { ops[0]["path"] = "v1/workspace/list"; },
       "operations[0] (workspaces.list): path must be a path like /v2/webhooks/endpoints/:id"},
      {"bad id", [](json& ops) { ops[0]["id"] = "Workspaces"; },
       "operations[0] (Workspaces): id must be resource.verb in lower case, like domains.list"},
      {"unknown field", [](json& ops) { ops[2]["handler"] = "ListMailboxes"; }, "operations[2] (mailboxes.list):"},
      {"no operations", [](json& ops) { ops = json::array(); }, "operations.json: /operations must be an array of 1 to 1000 operations"},
      {"request not named after the id", [](json& ops) { ops[0]["request"] = "requests/domains.list.json"; },
       "operations[0] (workspaces.list): request must be requests/workspaces.list.json"},
      {"response not named after the id", [](json& ops) { ops[0]["response"] = "responses/domains.list.json"; },
       "operations[0] (workspaces.list): response must be responses/workspaces.list.json"},
      {"schema file missing",
       [](json& ops) {
         ops[0]["id"] = "workspaces.nothing";
         ops[0]["request"] = "requests/workspaces.nothing.json";
       },
       "operations[0] (workspaces.nothing): its request schema requests/workspaces.nothing.json does not exist"},
      {"public without response", [](json& ops) { ops[0]["response"] = nullptr; },
       "operations[0] (workspaces.list): a public operation must name its response schema"},
      {"id twice", [](json& ops) { ops.push_back(ops[0]); },
       "(workspaces.list): the id is used by an earlier entry"},
      {"method and path twice (other parameter name)",
       [](json& ops) {
         for (auto& op : ops)
           if (op["id"] == "sim.sinks.update") {
             op["method"] = "GET";
             op["path"] = "/_sim/sinks/:sinkId";
           }
       },
       "(sim.sinks.update): an earlier entry already serves GET /_sim/sinks/:sinkId"},
  };
  for (const auto& c : cases) {
    const std::string problem = ProblemAfter(c.edit);
    EXPECT_NE(problem.find(c.message), std::string::npos) << c.what << ": got \"" << problem << "\"";
  }
}

TEST_F(CatalogueTest, MatchesAMethodAndPathLikeTheRouter) {
  const schema::Catalogue& ops = Registry().Operations();
  for (const auto& op : ops.All()) {
    std::string path;
    for (const auto& seg : op.segments) path += "/" + (seg[0] == ':' ? std::string("x_1") : seg);
    EXPECT_EQ(ops.Match(op.method, path), &op) << op.method << " " << path;
  }
  EXPECT_EQ(ops.Match("GET", "//v1//domain/list/")->id, "domains.list");  // as the router splits
  EXPECT_EQ(ops.Match("DELETE", "/v1/domain/list"), nullptr);
  EXPECT_EQ(ops.Match("GET", "/v1/domain/list/more"), nullptr);
  std::map<std::string, std::string> params;
  EXPECT_TRUE(schema::MatchSegments(schema::SplitPath("/v2/webhooks/endpoints/:id"),
                                    schema::SplitPath("/v2/webhooks/endpoints/we_7"), &params));
  EXPECT_EQ(params.at("id"), "we_7");
  // The scenario language names public operations only: a /_sim answer has no response schema.
  EXPECT_EQ(api::OperationIdOf(ops, "PATCH", "/v2/webhooks/endpoints/we_7"), "webhooks.update");
  EXPECT_EQ(api::OperationIdOf(ops, "GET", "/_sim/sinks/s_1"), "");
  EXPECT_EQ(api::OperationIdOf(ops, "GET", "/v9/nowhere"), "");
}

// A copy of the project's schemas folder whose catalogue `edit` changed (and whose requests/ has
// the extra schema files `extra` names), for App to start from.
class EditedSchemas {
 public:
  EditedSchemas(const std::string& name, const std::function<void(json&)>& edit, const std::vector<std::string>& extra = {})
      : dir_(fs::temp_directory_path() / ("emsim-catalogue-" + name)) {
    fs::remove_all(dir_);
    fs::copy(cli::DefaultSchemasDir(), dir_, fs::copy_options::recursive);
    json doc = ReadJson(dir_ / "operations.json");
    edit(doc["operations"]);
    std::ofstream(dir_ / "operations.json") << doc.dump(2);
    for (const auto& id : extra) std::ofstream(dir_ / "requests" / (id + ".json")) << R"({"type": "object"})";
  }
  ~EditedSchemas() { fs::remove_all(dir_); }
  std::string Dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

std::string StartupErrorWith(const std::string& schemas_dir) {
  app::Options o;
  o.schemasDir = schemas_dir;
  o.clockMode = runtime::ClockMode::kManual;
  return testing::StartupRefusal(o);
}

TEST(CatalogueStartup, EmsimRefusesToStartWhenTheCatalogueAndTheHandlersDisagree) {
  {
    EditedSchemas entry_without_handler(
        "extra",
        [](json& ops) {
          ops.push_back({{"id", "sim.nothing"}, {"method", "GET"}, {"path", "/_sim/nothing"}, {"part", "control plane"},
                         {"access", "control"}, {"body", "json"}, {"request", "requests/sim.nothing.json"},
                         {"response", nullptr}, {"envelope", "none"}, {"effect", "read"}});
        },
        {"sim.nothing"});
    const std::string e = StartupErrorWith(entry_without_handler.Dir());
    EXPECT_NE(e.find("operation sim.nothing (GET /_sim/nothing) has no handler"), std::string::npos) << e;
  }
  {
    EditedSchemas handler_without_entry("missing", [](json& ops) { ops.erase(ops.begin()); });
    const std::string e = StartupErrorWith(handler_without_entry.Dir());
    EXPECT_NE(e.find("the handler of workspaces.list has no entry in schemas/operations.json"), std::string::npos) << e;
  }
  {
    EditedSchemas broken("broken", [](json& ops) { ops[3]["access"] = "public"; });
    const std::string e = StartupErrorWith(broken.Dir());
    EXPECT_NE(e.find("schemas: "), std::string::npos) << e;
    EXPECT_NE(e.find("operations[3] (mailboxes.details): access must be one of workspace, account, control"),
              std::string::npos)
        << e;
  }
  EXPECT_EQ(StartupErrorWith(cli::DefaultSchemasDir()), "");
}

// The body limit is the catalogue's word: an entry without bodyLimit takes --max-body-bytes, one
// with "large" --max-state-bytes, whatever its id (the router names no operation).
TEST(CatalogueStartup, TheBodyLimitOfARouteComesFromItsCatalogueEntry) {
  EditedSchemas moved("body-limit", [](json& ops) {
    for (auto& op : ops) {
      if (op["id"] == "sim.state.put") op.erase("bodyLimit");
      if (op["id"] == "sim.events.trigger") op["bodyLimit"] = "large";
    }
  });
  app::Options o;
  o.schemasDir = moved.Dir();
  o.clockMode = runtime::ClockMode::kManual;
  o.maxBodyBytes = 1000;
  o.maxStateBytes = 50000;
  cli::App edited(o);
  const http::RequestHandler& router = *edited.services().pipeline;
  EXPECT_EQ(router.BodyLimit("PUT", "/_sim/state"), 1000u);
  EXPECT_EQ(router.BodyLimit("POST", "/_sim/events"), 50000u);
  EXPECT_EQ(router.BodyLimit("GET", "/_sim/events"), 1000u);  // another entry of the same path
  EXPECT_EQ(router.BodyLimit("POST", "/_sim/scenarios/run"), 50000u);  // untouched: still large
  EXPECT_EQ(router.BodyLimit("POST", "/v9/nowhere"), 1000u);

  o.schemasDir = cli::DefaultSchemasDir();
  cli::App stock(o);
  EXPECT_EQ(stock.services().pipeline->BodyLimit("PUT", "/_sim/state"), 50000u);
  EXPECT_EQ(stock.services().pipeline->BodyLimit("POST", "/_sim/events"), 1000u);
  EXPECT_EQ(stock.services().pipeline->BodyLimit("POST", "/v2/placement-tests/purchase"), 1000u);
}

TEST_F(CatalogueTest, BodyLimitIsNormalUnlessAnEntrySaysLarge) {
  const schema::Catalogue& ops = Registry().Operations();
  for (const auto& op : ops.All()) {
    const bool whole_world = op.id == "sim.state.put" || op.id == "sim.scenarios.run";
    EXPECT_EQ(op.bodyLimit, whole_world ? schema::BodySize::kLarge : schema::BodySize::kNormal) << op.id;
  }
  const auto routes = api::Routes(ops);
  for (size_t i = 0; i < routes.size(); ++i) EXPECT_EQ(routes[i].bodyLimit, ops.All()[i].bodyLimit) << ops.All()[i].id;
  const std::string problem = ProblemAfter([](json& ops) { ops[0]["bodyLimit"] = "huge"; });
  EXPECT_NE(problem.find("operations[0] (workspaces.list): bodyLimit must be one of normal, large"), std::string::npos)
      << problem;
}

// Responses and events have oneOf branches (no request schema does): their messages name the
// branches' types, and a document that fails is never reported as conforming.
TEST_F(CatalogueTest, RegistryDescribesFailuresInsideOneOfBranches) {
  const auto issues = Registry().Check("resources/workspace", json{{"billingDetails", 5}}, false);
  bool described = false;
  for (const auto& i : issues)
    if (i.Pointer() == "/billingDetails") {
      described = true;
      EXPECT_EQ(i.message.rfind("must be ", 0), 0u) << i.message;
    }
  EXPECT_TRUE(described) << "no issue at /billingDetails";
}

}  // namespace
}  // namespace emsim
