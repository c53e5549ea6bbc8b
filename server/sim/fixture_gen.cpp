#include "sim/fixture_gen.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/money.hpp"

namespace emsim::sim {

namespace {

constexpr const char* kFirstNames[] = {"Ava",   "Ben",   "Chloe", "Dev",  "Emma", "Finn", "Grace",
                                       "Hugo",  "Iris",  "Jonas", "Kira", "Liam", "Maya", "Noah",
                                       "Olive", "Priya", "Quinn", "Ravi", "Sara", "Theo"};
constexpr const char* kLastNames[] = {"Adams",  "Berg",  "Cole",  "Diaz",  "Evans", "Flores", "Garcia",
                                      "Hughes", "Ito",   "Jones", "Khan",  "Lopez", "Moreau", "Nakamura",
                                      "Olsen",  "Patel", "Quinn", "Reyes", "Shah",  "Turner"};
constexpr const char* kSubjects[] = {"Quick question about your Q1 pipeline", "Re: Intro call next week",
                                     "Following up on my last note", "Team offsite ideas",
                                     "Delivery Status Notification (Failure)"};
constexpr size_t kNames = sizeof kFirstNames / sizeof kFirstNames[0];
constexpr size_t kSubjectCount = sizeof kSubjects / sizeof kSubjects[0];

constexpr model::Millis kBase = 1748736000000;  // 2025-06-01T00:00:00.000Z: records predate the clock start
constexpr const char* kClockStart = "2026-01-01T09:00:00.000Z";
constexpr const char* kPlansYaml =
    "plans:\n  - { key: \"enterprise_monthly\", plan: ENTERPRISE, price: 199, totalMailboxQuantity: 150, "
    "placementCredits: 100 }\n";

// prefix + n in at least `width` digits, zero-padded ("dom_gen_", 42, 7 -> "dom_gen_0000042"). By
// hand rather than snprintf: it makes every id of a generated fixture (~8% of a 100k load).
std::string Pad(std::string_view prefix, std::int64_t n, int width) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  const auto count = static_cast<int>(end - digits);
  std::string out;
  out.reserve(prefix.size() + static_cast<size_t>(std::max(count, width)));
  out.append(prefix);
  if (count < width) out.append(static_cast<size_t>(width - count), '0');
  out.append(digits, end);
  return out;
}

std::string Quote(const std::string& s) { return json(s).dump(); }  // a JSON string is a YAML scalar

// True when `id` is one of Pad(prefix, 1..count, 7): an id the generator is about to hand out.
bool IsGeneratedId(const std::string& id, const char* prefix, std::int64_t count) {
  const std::string_view p(prefix);
  if (id.size() < p.size() + 7 || id.compare(0, p.size(), p) != 0) return false;
  const std::string_view digits = std::string_view(id).substr(p.size());
  if (digits.size() > 7 && digits[0] == '0') return false;  // Pad adds zeros only up to 7 digits
  std::int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || n > count) return false;
    n = n * 10 + (c - '0');
  }
  return n >= 1 && n <= count;
}

// Throws when a record of the file already has an id of the generated ones: checked once up front
// rather than per generated record (a hash lookup each: ~20% of a 100k-mailbox load).
template <class Table>
void CheckIdsFree(const Table& table, const char* what, const char* prefix, std::int64_t count) {
  for (const auto& row : table)
    if (IsGeneratedId(row.id, prefix, count)) throw std::invalid_argument(std::string(what) + " id " + row.id + " is taken");
}

}  // namespace

std::string GeneratedApiKey(std::int64_t n) { return Pad("emsim_gen_", n, 5); }

void GenerateRecords(model::State& s, const GenerateOptions& o, model::Millis default_time) {
  const std::int64_t accounts = std::max<std::int64_t>(1, o.accounts);
  const std::int64_t per_domain = std::max<std::int64_t>(1, o.mailboxesPerDomain);
  std::int64_t domain_no = 0, mailbox_no = 0, email_no = 0;
  for (const auto& a : s.accounts)
    if (a.apiKey.rfind("emsim_gen_", 0) == 0) throw std::invalid_argument("API key " + a.apiKey + " is taken");
  for (const auto& d : s.domains)
    if (d.domain.rfind("gen-", 0) == 0) throw std::invalid_argument("domain name " + d.domain + " is taken");
  // Account a's share of the mailboxes, and the domains they take (at least one per account): the
  // totals below and the loop that makes them must agree.
  const auto mailboxes_of = [&](std::int64_t a) { return o.mailboxes / accounts + (a <= o.mailboxes % accounts ? 1 : 0); };
  const auto domains_for = [&](std::int64_t mailboxes) {
    return std::max<std::int64_t>(1, (mailboxes + per_domain - 1) / per_domain);
  };
  // How many of each the loops below make.
  std::int64_t total_domains = 0;
  for (std::int64_t a = 1; a <= accounts; ++a) total_domains += domains_for(mailboxes_of(a));
  const std::int64_t total_emails = o.mailboxes * std::max<std::int64_t>(0, o.emailsPerMailbox);
  CheckIdsFree(s.domains, "domain", "dom_gen_", total_domains);
  CheckIdsFree(s.mailboxes, "mailbox", "mbx_gen_", o.mailboxes);
  CheckIdsFree(s.emails, "email", "eml_gen_", total_emails);
  // Room for everything up front: one allocation per table instead of a copy per doubling.
  const auto more = [](auto& table, std::int64_t n) { table.Reserve(table.size() + static_cast<size_t>(n)); };
  more(s.accounts, accounts);
  more(s.subscriptions, accounts);
  more(s.workspaces, accounts);
  more(s.domains, total_domains);
  more(s.mailboxes, o.mailboxes);
  more(s.emails, total_emails);
  s.mailboxesByDomain.reserve(s.mailboxesByDomain.size() + static_cast<size_t>(total_domains));
  s.domainsByWorkspace.reserve(s.domainsByWorkspace.size() + static_cast<size_t>(accounts));
  s.mailboxesByWorkspace.reserve(s.mailboxesByWorkspace.size() + static_cast<size_t>(accounts));
  for (std::int64_t a = 1; a <= accounts; ++a) {
    const std::int64_t mailboxes = mailboxes_of(a);
    const std::int64_t domains = domains_for(mailboxes);
    const std::string acc = Pad("", a, 5);
    model::Account account;
    account.id = "acc_gen_" + acc;
    account.apiKey = GeneratedApiKey(a);
    account.user = {"usr_gen_" + acc, "owner" + acc + "@gen.example", "Owner", acc};
    account.walletCents = o.walletCents;
    if (s.accounts.Contains(account.id)) throw std::invalid_argument("account id " + account.id + " is taken");
    s.AddAccount(account);

    model::Subscription sub;
    sub.id = "srec_gen_" + acc;
    sub.subscriptionId = "sub_gen_" + acc;
    sub.accountId = account.id;
    sub.subscriptionStatus = "ACTIVE";
    sub.plan = "ENTERPRISE";
    sub.planKey = "enterprise_monthly";
    sub.price = 199;
    sub.totalMailboxQuantity = std::max<std::int64_t>(150, mailboxes);
    sub.subscriptionCreationDate = default_time;
    sub.periodStart = kBase + 194 * model::kDay + 10 * model::kHour + 15 * model::kMinute;  // 2025-12-12T10:15Z
    sub.periodEnd = sub.periodStart + 30 * model::kDay;
    sub.placementCredits = o.placementCredits;
    if (s.subscriptions.Contains(sub.id)) throw std::invalid_argument("subscription id " + sub.id + " is taken");
    s.subscriptions.Insert(std::move(sub));

    model::Workspace ws;
    ws.id = "ws_gen_" + acc;
    ws.accountId = account.id;
    ws.name = "Generated workspace " + acc;
    ws.isDefault = true;
    ws.createdAt = default_time;
    if (s.workspaces.Contains(ws.id)) throw std::invalid_argument("workspace id " + ws.id + " is taken");
    s.workspaces.Insert(ws);

    std::vector<std::pair<std::string, std::string>> addresses;  // (address, name) of each mailbox
    if (o.emailsPerMailbox > 0) addresses.reserve(static_cast<size_t>(mailboxes));
    // The exact room in the account's index lists: no copies as they grow, no spare capacity.
    s.domainsByWorkspace[ws.id].reserve(static_cast<size_t>(domains));
    if (mailboxes > 0) s.mailboxesByWorkspace[ws.id].reserve(static_cast<size_t>(mailboxes));
    std::int64_t left = mailboxes;
    for (std::int64_t d = 0; d < domains; ++d) {
      ++domain_no;
      model::Domain dom;
      dom.id = Pad("dom_gen_", domain_no, 7);
      dom.accountId = account.id;
      dom.workspaceId = ws.id;
      dom.domain = Pad("gen-", domain_no, 7) + ".example.com";
      dom.status = domain_no % 10 == 0 ? "PENDING" : "ACTIVE";
      dom.createdAt = dom.updatedAt = dom.registeredOn = kBase + domain_no * model::kMinute;
      dom.expireOn = dom.registeredOn + 365 * model::kDay;
      dom.nameServers = std::vector<std::string>{"ns1.emsim-dns.net", "ns2.emsim-dns.net"};
      dom.healthScore = 90;
      dom.healthLabel = "Excellent";
      dom.dns = {true, true, true, true};
      const model::Domain& added = s.AddDomain(std::move(dom));
      const std::int64_t here = std::min(left, per_domain);
      left -= here;
      if (here > 0) s.mailboxesByDomain[added.id].reserve(static_cast<size_t>(here));  // (no empty entries)
      for (std::int64_t m = 0; m < here; ++m) {
        ++mailbox_no;
        model::Mailbox mb;
        mb.id = Pad("mbx_gen_", mailbox_no, 7);
        mb.accountId = account.id;
        mb.workspaceId = ws.id;
        mb.domainId = added.id;
        mb.firstName = kFirstNames[static_cast<size_t>(mailbox_no) % kNames];
        mb.lastName = kLastNames[static_cast<size_t>(mailbox_no / kNames) % kNames];
        mb.username = mb.firstName + "." + mb.lastName + std::to_string(mailbox_no);
        for (auto& c : mb.username) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        mb.status = mailbox_no % 7 == 0 ? "INACTIVE" : "ACTIVE";
        mb.createdAt = mb.assignedOn = added.createdAt;
        mb.expireOn = added.expireOn;
        if (o.emailsPerMailbox > 0) addresses.emplace_back(mb.username + "@" + added.domain, mb.firstName + " " + mb.lastName);
        s.AddMailbox(std::move(mb));
      }
    }
    for (const auto& [address, name] : addresses) {
      for (std::int64_t e = 0; e < o.emailsPerMailbox; ++e) {
        ++email_no;
        model::Email em;
        em.id = Pad("eml_gen_", email_no, 7);
        em.accountId = account.id;
        em.workspaceId = ws.id;
        em.account = address;
        em.threadId = Pad("thr_gen_", email_no, 7);
        em.messageId = "<" + em.id + "@gen.example>";
        em.subject = kSubjects[static_cast<size_t>(email_no) % kSubjectCount];
        em.snippet = "Hi, a short note about " + em.subject + ".";
        em.date = kBase + email_no * 37 * model::kSecond;
        const bool sent = email_no % 2 == 0;
        const std::string other = "contact" + std::to_string(email_no % 997) + "@prospect.example";
        // Built in place (an initializer list would copy each address once more).
        em.from.push_back(model::Address{sent ? name : "Prospect", sent ? address : other});
        em.to.push_back(model::Address{sent ? "Prospect" : name, sent ? other : address});
        em.size = 2000 + email_no % 9000;
        em.labels.emplace_back(sent ? "SENT" : "INBOX");
        em.folderPath = sent ? "Sent Items" : "INBOX";
        em.isRead = email_no % 3 != 0;
        s.emails.Insert(std::move(em));
      }
    }
  }
}

void WriteGeneratedFixture(std::ostream& out, const GenerateOptions& o, bool expand) {
  const std::int64_t accounts = std::max<std::int64_t>(1, o.accounts);
  out << "# Generated by `emsim fixtures generate --mailboxes " << o.mailboxes << " --accounts " << accounts
      << " --mailboxes-per-domain " << o.mailboxesPerDomain << " --emails-per-mailbox " << o.emailsPerMailbox
      << " --placement-credits " << o.placementCredits << " --wallet " << model::FormatDecimal(o.walletCents)
      << (expand ? " --expand" : "") << "`.\n# Format: fixtures/README.md. API keys: " << GeneratedApiKey(1)
      << (accounts > 1 ? " .. " + GeneratedApiKey(accounts) : std::string()) << "\n";
  out << "version: 1\nclock:\n  start: \"" << kClockStart << "\"\n" << kPlansYaml;
  if (!expand) {
    out << "generate:\n  mailboxes: " << o.mailboxes << "\n  accounts: " << accounts
        << "\n  mailboxesPerDomain: " << o.mailboxesPerDomain << "\n  emailsPerMailbox: " << o.emailsPerMailbox
        << "\n  placementCredits: " << o.placementCredits << "\n  walletBalance: \""
        << model::FormatDecimal(o.walletCents) << "\"\n";
    return;
  }
  // Every record as the loader reads it; fields left out take the loader's defaults, which are the
  // values GenerateRecords gives them (a test loads both forms and compares the dumps).
  model::State s;
  GenerateRecords(s, o, *model::ParseIso(kClockStart));
  std::unordered_map<std::string, std::vector<const model::Email*>> emails_of;  // workspace id -> emails
  for (const auto& e : s.emails) emails_of[e.workspaceId].push_back(&e);
  std::unordered_map<std::string, std::vector<const model::Domain*>> domains_of;  // workspace id -> domains
  for (const auto& d : s.domains) domains_of[d.workspaceId].push_back(&d);
  size_t next_sub = 0, next_ws = 0;
  const auto& subs = s.subscriptions.rows();
  const auto& wss = s.workspaces.rows();
  out << "accounts:\n";
  for (const auto& a : s.accounts) {
    out << "  - id: " << Quote(a.id) << "\n    apiKey: " << Quote(a.apiKey) << "\n    user: { id: " << Quote(a.user.id)
        << ", email: " << Quote(a.user.email) << ", firstName: " << Quote(a.user.firstName)
        << ", lastName: " << Quote(a.user.lastName) << " }\n    walletBalance: \""
        << model::FormatDecimal(a.walletCents) << "\"\n    subscriptions:\n";
    for (; next_sub < subs.size() && subs[next_sub].accountId == a.id; ++next_sub) {
      const auto& sub = subs[next_sub];
      out << "      - { id: " << Quote(sub.id) << ", subscriptionId: " << Quote(sub.subscriptionId)
          << ", subscriptionStatus: " << sub.subscriptionStatus << ", plan: " << sub.plan
          << ", planKey: " << Quote(sub.planKey) << ", price: " << sub.price
          << ", totalMailboxQuantity: " << sub.totalMailboxQuantity << ", periodStart: \""
          << model::FormatIso(sub.periodStart) << "\", placementCredits: " << sub.placementCredits << " }\n";
    }
    out << "    workspaces:\n";
    for (; next_ws < wss.size() && wss[next_ws].accountId == a.id; ++next_ws) {
      const auto& w = wss[next_ws];
      out << "      - id: " << Quote(w.id) << "\n        name: " << Quote(w.name)
          << "\n        default: " << (w.isDefault ? "true" : "false") << "\n        domains:\n";
      for (const auto* d : domains_of[w.id]) {
        out << "          - id: " << Quote(d->id) << "\n            domain: " << Quote(d->domain)
            << "\n            status: " << d->status << "\n            createdAt: \"" << model::FormatIso(d->createdAt)
            << "\"\n            nameServers: [\"ns1.emsim-dns.net\", \"ns2.emsim-dns.net\"]\n            healthScore: "
            << d->healthScore << "\n            healthLabel: " << Quote(d->healthLabel)
            << "\n            dns: { spf: true, dmarc: true, dkim: true, mx: true }\n            mailboxes:";
        auto it = s.mailboxesByDomain.find(d->id);
        if (it == s.mailboxesByDomain.end() || it->second.empty()) out << " []";
        out << "\n";
        for (const auto& id : it == s.mailboxesByDomain.end() ? std::vector<std::string>{} : it->second) {
          const model::Mailbox& m = *s.mailboxes.Find(id);
          out << "              - { id: " << Quote(m.id) << ", username: " << Quote(m.username)
              << ", firstName: " << Quote(m.firstName) << ", lastName: " << Quote(m.lastName)
              << ", status: " << m.status << " }\n";
        }
      }
      const auto& emails = emails_of[w.id];
      if (!emails.empty()) out << "        emails:\n";
      for (const auto* e : emails) {
        out << "          - { id: " << Quote(e->id) << ", account: " << Quote(e->account)
            << ", threadId: " << Quote(e->threadId) << ", messageId: " << Quote(e->messageId)
            << ", subject: " << Quote(e->subject) << ", snippet: " << Quote(e->snippet) << ", date: \""
            << model::FormatIso(e->date) << "\", from: [{ name: " << Quote(e->from[0].name)
            << ", address: " << Quote(e->from[0].address) << " }], to: [{ name: " << Quote(e->to[0].name)
            << ", address: " << Quote(e->to[0].address) << " }], cc: [], size: " << e->size << ", labels: ["
            << Quote(e->labels[0]) << "], folderPath: " << Quote(e->folderPath)
            << ", isRead: " << (e->isRead ? "true" : "false") << ", isStarred: false, hasAttachments: false }\n";
      }
    }
  }
}

}  // namespace emsim::sim
