#include "model/domains.hpp"

#include "model/text.hpp"

namespace emsim::model {

DomainListView ListDomains(const State& s, const Caller& caller, const std::string& contains, std::int64_t page) {
  const std::string needle = ToLower(contains);
  std::vector<const Domain*> matching;
  for (const auto& d : s.domains) {
    if (d.workspaceId == caller.workspaceId && ContainsFolded(d.domain, needle)) matching.push_back(&d);
  }
  DomainListView view;
  view.page = Paginate(static_cast<std::int64_t>(matching.size()), page);
  view.domains.assign(matching.begin() + view.page.begin, matching.begin() + view.page.end);
  return view;
}

std::int64_t AssignedMailboxes(const State& s, const std::string& domain_id) {
  auto it = s.mailboxesByDomain.find(domain_id);
  return it == s.mailboxesByDomain.end() ? 0 : static_cast<std::int64_t>(it->second.size());
}

}  // namespace emsim::model
