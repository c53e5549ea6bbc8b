#include "model/invoices.hpp"

#include "core/messages.hpp"
#include "model/checkouts.hpp"

namespace emsim::model {

Invoice& IssueInvoice(State& s, InvoiceInput in, Millis now) {
  Invoice inv;
  inv.id = s.ids.CompactUuid4();
  inv.accountId = std::move(in.accountId);
  inv.description = std::move(in.description);
  inv.amountCents = in.amountCents;
  inv.createdAt = now;
  if (in.paidWith != PaidWith::kUnpaid) MarkPaid(inv, in.paidWith, now);
  return s.invoices.Insert(std::move(inv));
}

Result<const Invoice*> FindInvoice(const State& s, const std::string& id) {
  const Invoice* inv = s.invoices.Find(id);
  if (!inv) return Error::NotFound(std::string(msg::kInvoiceNotFound) + ": " + id);
  return inv;
}

}  // namespace emsim::model
