#include "live.hpp"

#include <unistd.h>

#include <chrono>

namespace contract {

std::string Nonce() {
  static int n = 0;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return std::to_string(ms % 100000000) + std::to_string(getpid() % 1000) + std::to_string(++n);
}

json Workspaces() {
  Reply r = Invoke("workspaces.list");
  if (!ExpectOk(r) || !r.body["data"].is_array()) return json::array();
  return r.body["data"];
}

json AllDomains(size_t max_pages) {
  json out = json::array();
  for (size_t page = 1; page <= max_pages; ++page) {
    Args a;
    a.query["page"] = std::to_string(page);
    Reply r = Invoke("domains.list", a);
    if (!ExpectOk(r)) break;
    const json& d = r.body["data"];
    if (!d.is_object() || !d["domains"].is_array()) break;
    for (const auto& x : d["domains"]) out.push_back(x);
    if (d["domains"].empty() || !d["totalPages"].is_number_integer() || static_cast<long>(page) >= d["totalPages"].get<long>()) break;
  }
  return out;
}

std::optional<json> AnyMailbox() {
  Reply r = Invoke("mailboxes.list");
  if (!ExpectOk(r) || !r.body["data"].is_object()) return std::nullopt;
  for (const auto& group : r.body["data"].value("domains", json::array()))
    for (const auto& m : group.value("mailboxes", json::array())) return std::optional<json>(std::in_place, m);
  return std::nullopt;
}

void AdvanceClock(const std::string& duration) {
  // With the suite's key: a tenant's own clock moves (its jobs are due on it), a fixture
  // account's key moves the instance clock, as no key does.
  Call c;
  c.method = "POST";
  c.path = "/_sim/clock/advance";
  c.workspaceKey = "";
  c.body = json{{"duration", duration}};
  Reply r = Send(c);
  if (r.status != 200) ADD_FAILURE() << "POST /_sim/clock/advance: " << r.Brief();
}

long WalletDollars() {
  Call c;
  c.path = "/_sim/wallet";
  c.workspaceKey = "";
  Reply r = Send(c);
  if (r.status != 200 || !r.isJson || !r.body["balance"].is_number()) {
    ADD_FAILURE() << "GET /_sim/wallet: " << r.Brief();
    return -1;
  }
  return r.body["balance"].get<long>();
}

void SetWalletDollars(long dollars) {
  Call c;
  c.method = "PUT";
  c.path = "/_sim/wallet";
  c.workspaceKey = "";
  c.body = json{{"balance", dollars}};
  Reply r = Send(c);
  if (r.status != 200) ADD_FAILURE() << "PUT /_sim/wallet: " << r.Brief();
}

json SimState() {
  Reply r = Sim("GET", "/_sim/state");
  if (r.status != 200 || !r.isJson) ADD_FAILURE() << "GET /_sim/state: " << r.Brief();
  return r.body;
}

FaultGuard::~FaultGuard() {
  for (const auto& id : ids_) Sim("DELETE", "/_sim/faults/" + id);
}

std::string FaultGuard::Add(json fault) {
  if (!fault.contains("apiKey") && fault.value("target", "request") == "request") fault["apiKey"] = Cfg().apiKey;
  Reply r = Sim("POST", "/_sim/faults", fault);
  if (r.status != 201 || !r.isJson) {
    ADD_FAILURE() << "POST /_sim/faults: " << r.Brief();
    return "";
  }
  ids_.push_back(r.body["id"]);
  return r.body["id"];
}

}  // namespace contract
