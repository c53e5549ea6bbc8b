#include "model/payloads.hpp"

#include "model/domains.hpp"

namespace emsim::model {

json DomainDetails(const State& s, const Domain& d) {
  // Part 2: an allow-listed subset; internal relations are omitted.
  return {{"id", d.id},
          {"userId", [&] {
             const auto* a = s.accounts.Find(d.accountId);
             return a ? a->user.id : std::string();
           }()},
          {"workspaceId", d.workspaceId},
          {"domain", d.domain},
          {"status", d.status},
          {"purchaseType", d.purchaseType},
          {"serviceProvider", d.serviceProvider},
          {"registeredOn", FormatIso(d.registeredOn)},
          {"expireOn", FormatIso(d.expireOn)},
          {"isWarmedUp", d.isWarmedUp},
          {"healthScore", d.healthScore},
          {"healthErrorMessage", d.healthErrorMessage},
          {"healthLabel", d.healthLabel},
          {"assignedMailboxesCount", AssignedMailboxes(s, d.id)},
          {"createdAt", FormatIso(d.createdAt)},
          {"updatedAt", FormatIso(d.updatedAt)}};
}

json DomainObservable(const Domain& d) {
  return {{"status", d.status},
          {"forwardTo", d.forwardTo},
          {"forwardToAddedOnReseller", d.forwardToAddedOnReseller},
          {"dmarcEmail", d.dmarcEmail},
          {"dmarcEmailAddedToReseller", d.dmarcEmailAddedToReseller},
          {"forwardingEmail", d.forwardingEmail},
          {"forwardingEmailAdded", d.forwardingEmailAdded},
          {"catchAllEmail", d.catchAllEmail},
          {"catchAllEmailAdded", d.catchAllEmailAdded},
          {"nameServers", d.nameServers},
          {"spfRecord", d.dns.spf},
          {"dmarcRecords", d.dns.dmarc},
          {"dkimRecords", d.dns.dkim},
          {"mxRecords", d.dns.mx}};
}

json PreviousState(const json& before, const json& after) {
  json changed = json::object();
  for (const auto& [key, old_value] : before.items()) {
    if (!after.contains(key) || after[key] != old_value) changed[key] = old_value;
  }
  return changed;
}

}  // namespace emsim::model
