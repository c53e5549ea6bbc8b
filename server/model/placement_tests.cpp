#include "model/placement_tests.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "model/checkouts.hpp"
#include "model/invoices.hpp"
#include "model/mailboxes.hpp"
#include "model/payloads.hpp"
#include "core/text.hpp"

namespace emsim::model {

namespace {

Millis RunningDelay(const State& s) { return s.TimingMs("placementTestRunningSeconds", 60 * kSecond); }
Millis CompletedDelay(const State& s) { return s.TimingMs("placementTestCompletedSeconds", 900 * kSecond); }

void SetStatus(State& s, PlacementTest& t, PlacementTestStatus status, Millis now) {
  json previous = {{"status", t.status}};
  t.status = status;
  t.updatedAt = now;
  s.Emit("placement_test.status_changed", t.accountId,
         {{"placementTestDetails", PlacementTestDetails(s, t)}, {"previousState", std::move(previous)}}, now);
}

// Moves every order of the cart that is in `from` to `to`.
void MoveOrders(State& s, const PlacementCart& cart, PlacementTestStatus from, PlacementTestStatus to, Millis now) {
  for (const auto& id : cart.orderIds) {
    PlacementTest* t = s.placementTests.Edit(id);
    if (t && t->status == from) SetStatus(s, *t, to, now);
  }
}

// A JSON string of `s` as json::dump() writes it. Ids and statuses need no escaping; anything
// else goes through nlohmann. (core::AppendJsonString escapes fully and faster, but lives above
// the model, which links no API code: STYLE.md habit 2.)
void AppendJsonString(std::string& out, std::string_view s) {
  unsigned bad = 0;  // no early exit: the loop vectorizes
  for (unsigned char c : s) bad |= static_cast<unsigned>(c < 0x20 || c >= 0x7f || c == '"' || c == '\\');
  if (bad) {
    out += json(std::string(s)).dump();
    return;
  }
  out.push_back('"');
  out += s;
  out.push_back('"');
}

// The job's arguments {cartOrderId, status}, written as the text json::dump() makes of them (keys
// in its order) without building the object: this runs under the write lock on every purchase
// (model/state.hpp JobArgs).
void ScheduleStep(State& s, const std::string& cart_id, PlacementTestStatus step, Millis due) {
  const std::string_view status = core::NameOf(step);
  std::string args;
  args.reserve(cart_id.size() + status.size() + 32);
  args += "{\"cartOrderId\":";
  AppendJsonString(args, cart_id);
  args += ",\"status\":";
  AppendJsonString(args, status);
  args += '}';
  s.ScheduleArgs(due, kPlacementAdvanceJob, JobArgs::FromText(std::move(args)));
}

// Credits usable now: ACTIVE subscriptions of the account with credits left.
bool HasCredits(const Subscription& sub, const std::string& account_id) {
  return sub.accountId == account_id && sub.subscriptionStatus == SubscriptionStatus::kActive && sub.placementCredits > 0;
}

// The subscription whose credits go first: the period ending first, ties in creation order.
// Found by a scan, not a sorted copy: an account has a handful of subscriptions, and the sorted
// vector (two allocations, one of them stable_sort's buffer) was most of the ~0.9 us this step took
// under the write lock. Scanned (iteration only reads), the one found taken to change by its id
// (Edit): only that row is noted as changed (model/table.hpp).
Subscription* NextCreditSource(State& s, const std::string& account_id) {
  const Subscription* best = nullptr;
  for (const auto& sub : s.subscriptions)
    if (HasCredits(sub, account_id) && (!best || sub.periodEnd < best->periodEnd)) best = &sub;
  return best ? s.subscriptions.Edit(best->id) : nullptr;
}

}  // namespace

Result<PlacementReceipt> PurchasePlacementTests(State& s, const Caller& caller, const PlacementRequest& request,
                                                Millis now) {
  // ---- validate everything first (nothing changes on a 400) ----
  const bool monthly = request.placementType == "MONTHLY";
  if (!monthly && request.placementType != "ONE_TIME")  // Part 7: param placementType
    return Error::Validation("placementType", "placementType must be MONTHLY or ONE_TIME");
  if (request.mailboxIds.empty()) return Error::Validation("mailboxIds", "mailboxIds must name at least one mailbox");
  // Repeats are found by a scan of the ids before it while the list is short (a purchase names one
  // or a few mailboxes: no set, no copies), by a hash set past that.
  constexpr size_t kScanUpTo = 16;
  std::unordered_set<std::string_view> seen;
  if (request.mailboxIds.size() > kScanUpTo) seen.reserve(request.mailboxIds.size());
  std::vector<std::string> unknown, repeated;
  std::vector<const Mailbox*> mailboxes;
  mailboxes.reserve(request.mailboxIds.size());
  const auto& ids = request.mailboxIds;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    const auto before = ids.begin() + static_cast<std::ptrdiff_t>(i);
    const bool again = ids.size() > kScanUpTo ? !seen.insert(id).second : std::find(ids.begin(), before, id) != before;
    if (again) {
      repeated.push_back(id);
      continue;
    }
    const Mailbox* m = s.mailboxes.Find(id);
    if (!m || m->workspaceId != caller.workspaceId) unknown.push_back(id);
    else mailboxes.push_back(m);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!unknown.empty())
    return Error::Validation("mailboxIds", "mailboxIds names no mailbox of this workspace: " + join(unknown));
  if (!repeated.empty()) return Error::Validation("mailboxIds", "mailboxIds names a mailbox twice: " + join(repeated));
  // Read here; changed (Edit) only where the wallet pays, so a MONTHLY purchase does not rewrite it.
  const Account* account = s.accounts.Find(caller.accountId);
  if (!account) return Error::NotFound("Account " + caller.accountId + " not found");
  const auto count = static_cast<std::int64_t>(mailboxes.size());

  PlacementCart cart;
  cart.accountId = caller.accountId;
  cart.workspaceId = caller.workspaceId;
  cart.testName = request.testName;
  cart.placementType = request.placementType;
  cart.createdAt = now;
  PlacementReceipt r;
  r.walletBefore = r.walletAfter = account->walletCents;
  // The invoice's description, in one allocation (this runs under the write lock).
  const std::string count_text = std::to_string(count);
  auto describe = [&](std::string_view how) {
    return Concat({count_text, " placement test(s) \"", request.testName, "\"", how});
  };

  // ---- pay ----
  const Invoice* invoice = nullptr;
  if (monthly) {
    std::int64_t available = 0;
    for (const auto& sub : s.subscriptions)
      if (HasCredits(sub, caller.accountId)) available += sub.placementCredits;
    if (available < count)
      return Error::Validation("placementType", "Not enough MONTHLY placement credits: " + count_text +
                                                    " needed, " + std::to_string(available) +
                                                    " left on active subscriptions (ONE_TIME pays from the wallet)");
    // Each step empties a subscription or covers the rest, so it ends: available >= count.
    for (std::int64_t needed = count; needed > 0;) {
      Subscription* sub = NextCreditSource(s, caller.accountId);
      const std::int64_t take = std::min(needed, sub->placementCredits);
      sub->placementCredits -= take;
      cart.creditsUsed.push_back({sub->id, take});
      needed -= take;
    }
    invoice = &IssueInvoice(s, {caller.accountId, describe(", paid with MONTHLY credits"), 0, PaidWith::kCredits}, now);
  } else {
    cart.totalCostCents = kOneTimePlacementCentsPerMailbox * count;
    const PaidWith paid = PayFromWallet(s, *s.accounts.Edit(caller.accountId), cart.totalCostCents, "placement_tests", now);  // check + debit in one step
    cart.walletUsed = paid == PaidWith::kWallet;
    cart.checkoutSession = !cart.walletUsed;  // too small a wallet: the cart waits at a checkout
    if (!cart.walletUsed) cart.status = CartStatus::kAwaitingPayment;
    r.walletAfter = account->walletCents;
    invoice = &IssueInvoice(s, {caller.accountId, describe(", ONE_TIME"), cart.totalCostCents, paid}, now);
  }
  r.invoiceId = invoice->id;
  r.invoiceStatus = invoice->status;
  r.currency = invoice->currency;
  // Ids are drawn only now: a refused purchase leaves even the id sequence as it was.
  cart.id = s.ids.CompactUuid4();
  if (cart.walletUsed) s.walletMovements.back().reference = cart.id;  // the debit above, now named
  cart.invoiceId = invoice->id;
  const bool paid = cart.status == CartStatus::kPaid;
  if (paid) cart.paidAt = now;

  // ---- orders ----
  const PlacementTestStatus first_status = paid ? PlacementTestStatus::kPending : PlacementTestStatus::kAwaitingPayment;
  r.orders.reserve(mailboxes.size());
  cart.orderIds.reserve(mailboxes.size());
  for (const Mailbox* m : mailboxes) {
    PlacementTest t;
    t.id = s.ids.CompactUuid4();
    t.accountId = cart.accountId;  // copies of the cart's: no lookup of the text in the pool
    t.workspaceId = cart.workspaceId;
    t.cartOrderId = cart.id;
    t.mailboxId = m->id;
    t.mailboxEmail = MailboxAddress(s, *m);
    t.status = first_status;
    t.createdAt = t.updatedAt = now;
    cart.orderIds.push_back(t.id);
    r.orders.push_back({t.id, t.mailboxEmail, t.status});
    s.placementTests.Insert(std::move(t));
  }
  r.cartOrderId = cart.id;
  r.testName = cart.testName;
  r.placementType = cart.placementType;
  r.checkoutSession = cart.checkoutSession;
  r.walletUsed = cart.walletUsed;
  r.totalCostCents = cart.totalCostCents;
  s.placementCarts.Insert(std::move(cart));
  const Millis running = RunningDelay(s);
  if (paid) ScheduleStep(s, r.cartOrderId, PlacementTestStatus::kRunning, now + running);
  // Unpaid carts estimate as if paid now.
  r.estimatedCompletion = now + running + CompletedDelay(s);
  return r;
}

void StartPaidPlacementTests(State& s, const PlacementCart& cart, Millis now) {
  MoveOrders(s, cart, PlacementTestStatus::kAwaitingPayment, PlacementTestStatus::kPending, now);
  ScheduleStep(s, cart.id, PlacementTestStatus::kRunning, now + RunningDelay(s));
}

void AdvancePlacementTests(State& s, const json& args, Millis now) {
  const PlacementCart* cart = s.placementCarts.Find(args.value("cartOrderId", ""));
  if (!cart) return;  // the state was reset or replaced since the job was scheduled
  const auto to = core::ParseEnum<PlacementTestStatus>(args.value("status", ""));
  if (to == PlacementTestStatus::kRunning) {
    MoveOrders(s, *cart, PlacementTestStatus::kPending, PlacementTestStatus::kRunning, now);
    ScheduleStep(s, cart->id, PlacementTestStatus::kCompleted, now + CompletedDelay(s));
  } else if (to == PlacementTestStatus::kCompleted) {
    MoveOrders(s, *cart, PlacementTestStatus::kRunning, PlacementTestStatus::kCompleted, now);
  }
}

}  // namespace emsim::model
