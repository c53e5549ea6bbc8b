#pragma once
// The checkout page: what a person (or a browser-driven end-to-end test) sees at a payment link
// (model/checkouts.hpp). The links answer JSON as they always did; a client that prefers HTML
// (a browser's Accept) gets a page with the account, the amount and what is bought, and two plain
// HTML forms (no JavaScript):
//   Pay      POST <link>/complete with an empty body, the same completion as the JSON route,
//            answered 303 See Other back to <link>?paid=1 (post/redirect/get);
//   Decline  GET <link>?declined=1: changes nothing. Like a customer leaving a Stripe Checkout
//            page, the checkout stays open (PENDING / AWAITING_PAYMENT) and can still be paid.
// A paid link says it was used; an unknown one (never issued, or gone with a reset or a state
// load) says so with a 404. emsim's checkouts never expire (model/checkouts.hpp), so no page says
// "expired".
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/types.hpp"

namespace emsim::api {

// True when the request's Accept header ranks text/html above application/json (RFC 9110
// 12.5.1: q values, the most specific range deciding). No Accept, `*/*`, or a tie: false, so
// JSON clients keep their answer.
bool PrefersHtml(std::string_view accept);

// The five characters that matter in HTML text and attribute values, as entities.
std::string HtmlEscape(std::string_view text);

// One checkout as the page shows it; every string is plain text (the page escapes it).
struct CheckoutView {
  std::string title;                                     // "Domain purchase", "Wallet top-up", ...
  std::vector<std::pair<std::string, std::string>> rows;  // label, value
  std::string amount;                                    // "$6.00 USD"
  bool open = true;                                      // still waiting for payment
  std::string paidNote;                                  // when paid: when and how
  std::string deliveredNote;                             // when paid: what paying delivered
  std::string pagePath;                                  // "/_sim/checkout/<id>"
};

// The page for `view`; `notice` is what happened ("declined", "paid", an error's message).
enum class CheckoutNotice { kNone, kDeclined, kPaid, kError };
http::Response CheckoutPage(const CheckoutView& view, CheckoutNotice notice, const std::string& error = "",
                            int status = 200);
// An unknown link (404).
http::Response UnknownCheckoutPage(const std::string& message);
// 303 See Other to `location` (post/redirect/get).
http::Response SeeOther(const std::string& location);

}  // namespace emsim::api
