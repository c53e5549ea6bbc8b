#!/usr/bin/env python3
"""Generates fixtures/default.yaml, the seed data emsim loads when --fixtures is not given.

    python3 scripts/gen-default-fixture.py > fixtures/default.yaml

Standard library only and deterministic: one fixed random seed, no wall-clock reads, so the
committed default.yaml is byte for byte this script's output. Edit the tables below (or the
generation rules), then regenerate; never edit default.yaml by hand.

Format: fixtures/README.md. Block style for accounts, workspaces and domains; one flow-style
line per catalogue entry, plan, mailbox and email, so the file stays scannable.
"""
import datetime as dt
import json
import random
import sys

SEED = 20260101
CLOCK_START = "2026-01-01T09:00:00.000Z"
# Nothing in the seed happens after this (only expireOn / periodEnd lie in the future).
LAST_EVENT = dt.datetime(2025, 12, 31, 22, 0, 0)
EMAIL_WINDOW_START = dt.datetime(2025, 11, 1, 7, 0, 0)
EMAIL_THREAD_LAST_START = dt.datetime(2025, 12, 28, 18, 0, 0)

rng = random.Random(SEED)


# ---------------------------------------------------------------------------
# YAML emission (a tiny emitter: every string double-quoted, enums bare, null for None)

class Bare(str):
    """A value written without quotes (enum words such as ACTIVE, GOOGLE)."""


def scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Bare):
        return str(v)
    if isinstance(v, str):
        # A JSON string is a valid YAML double-quoted scalar.
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{k}: {scalar(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot emit {v!r}")


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".000Z"


def add_years(t, years):
    return t.replace(year=t.year + years)


def rand_between(a, b):
    """A whole-second instant in [a, b]."""
    span = int((b - a).total_seconds())
    return a + dt.timedelta(seconds=rng.randint(0, max(span, 0)))


# ---------------------------------------------------------------------------
# Static tables

TIMINGS = [
    ("dmarcSeconds", 30),
    ("forwardingSeconds", 60),
    ("catchAllSeconds", 60),
    ("domainPendingToConnectedSeconds", 300),
    ("domainConnectedToActiveSeconds", 3600),
]

TLD_PRICES = {  # (domainPrice, renewPrice) per year
    "com": ("12.99", "14.99"),
    "io": ("39.00", "49.00"),
    "co": ("24.99", "29.99"),
    "net": ("14.49", "16.99"),
    "org": ("12.49", "15.49"),
}
PREMIUM_PRICES = {  # a few names priced above their TLD's list price
    "getbrightreach.com": ("19.99", "19.99"),
    "replypath.io": ("45.00", "49.00"),
    "brightreach.co": ("29.99", "32.99"),
}
CATALOGUE = [
    "brightpostmail.com", "getbrightreach.com", "sendwithharbor.com", "tryoutboundly.com",
    "replyfoundry.com", "meetcadencehq.com", "pipelineforge.com", "inboxbeacon.com",
    "getleadharbor.com", "coldmailcraft.com", "hellomailwise.com", "tryreplyrocket.com",
    "prospectlane.com", "outreachmint.com", "getsendpilot.com", "mailcrestgroup.com",
    "trymailpilot.io", "sendlark.io", "replypath.io", "leadloom.io",
    "getinboxly.io", "cadencebird.io", "outboundnest.io", "mailquarry.io",
    "brightreach.co", "tryleadwave.co", "sendharbor.co", "inboxbloom.co",
    "meetpipeline.co", "replyroute.co",
    "mailpilotpro.net", "leadcompass.net", "outreachgrid.net", "sendsignal.net",
    "inboxsummit.net",
    "outreachguild.org", "coldemailcollective.org", "salesrunway.org", "deliverabilitylab.org",
    "prospectcircle.org",
]

PLANS = [
    ("basic_monthly", "BASIC", 39, 25, 10),
    ("basic_yearly", "BASIC", 390, 25, 120),
    ("growth_monthly", "GROWTH", 99, 60, 30),
    ("growth_yearly", "GROWTH", 990, 60, 360),
    ("enterprise_monthly", "ENTERPRISE", 199, 150, 100),
    ("enterprise_yearly", "ENTERPRISE", 1990, 150, 1200),
]

NS_DEFAULT = ["ns1.emsim-dns.net", "ns2.emsim-dns.net"]
NS_CLOUDFLARE = ["dana.ns.cloudflare.com", "rick.ns.cloudflare.com"]

ALL_DNS = {"spf": True, "dmarc": True, "dkim": True, "mx": True}
NO_DNS = {"spf": False, "dmarc": False, "dkim": False, "mx": False}

# One row per domain:
# (id suffix, name, status, provider, mailboxes, created, score, error, warmed, tags,
#  features, nameServers, dns)
# features: "fwdurl" forwardTo, "fwdmail" forwardingEmail, "dmarc", "catchall"; "regyears:2".
WORKSPACES = [
    {
        "id": "ws_northwind", "name": "Northwind Outreach", "prefix": "nw",
        "sender_company": "Northwind Outreach", "website": "https://northwind-outreach.com",
        "owner_email": "alice@northwind-outreach.com",
        "team": [("Alice", "Martin"), ("Daniel", "Brooks"), ("Priya", "Shah"),
                 ("Marcus", "Lee"), ("Emma", "Novak"), ("Jordan", "Reyes"),
                 ("Sofia", "Alvarez"), ("Liam", "O'Connor")],
        "email_target": 172,
        "domains": [
            ("01", "northwindreach.com", "ACTIVE", "GOOGLE", 8, "2025-06-16T10:12:44", 96, None, True,
             ["tag_priority"], ["fwdurl", "fwdmail", "dmarc", "regyears:2"], NS_DEFAULT, ALL_DNS),
            ("02", "getnorthwind.com", "ACTIVE", "GOOGLE", 7, "2025-06-16T10:31:08", 93, None, True,
             ["tag_priority", "tag_q1"], ["dmarc"], NS_DEFAULT, ALL_DNS),
            ("03", "trynorthwind.io", "ACTIVE", "GOOGLE", 6, "2025-07-02T14:05:51", 88, None, True,
             [], ["fwdurl"], NS_DEFAULT, ALL_DNS),
            ("04", "northwindmail.co", "ACTIVE", "MICROSOFT", 7, "2025-07-21T09:47:13", 91, None, True,
             ["tag_q1"], ["dmarc", "catchall"], NS_DEFAULT, ALL_DNS),
            ("05", "meetnorthwind.com", "ACTIVE", "GOOGLE", 5, "2025-08-05T16:22:37", 79, None, True,
             [], [], NS_CLOUDFLARE, ALL_DNS),
            ("06", "northwindhq.net", "ACTIVE", "GOOGLE", 6, "2025-10-14T11:58:02", 62, None, False,
             ["tag_warmup"], [], NS_DEFAULT, ALL_DNS),
            ("07", "hellonorthwind.co", "ACTIVE", "GOOGLE", 8, "2025-08-19T13:40:26", 84, None, True,
             ["tag_q1"], ["fwdmail"], NS_DEFAULT, ALL_DNS),
            ("08", "northwindpipeline.com", "ACTIVE", "MICROSOFT", 5, "2025-09-03T08:15:49", 48,
             "High bounce rate: 6.8% of sends bounced in the last 7 days", True,
             [], [], NS_DEFAULT, ALL_DNS),
            ("09", "usenorthwind.io", "ACTIVE", "GOOGLE", 6, "2025-09-17T15:03:11", 90, None, True,
             ["tag_priority"], ["dmarc", "catchall"], NS_DEFAULT, ALL_DNS),
            ("10", "northwindsales.net", "ACTIVE", "GOOGLE", 7, "2025-10-22T10:26:45", 71, None, False,
             ["tag_warmup"], [], NS_DEFAULT, ALL_DNS),
            ("11", "joinnorthwind.com", "CONNECTED", "GOOGLE", 5, "2025-12-18T14:11:30", 68, None, False,
             ["tag_q1"], [], NS_CLOUDFLARE, {"spf": True, "dmarc": False, "dkim": True, "mx": True}),
            ("12", "northwindteam.org", "CONNECTED", "GOOGLE", 4, "2025-12-22T09:36:18", 57, None, False,
             [], [], NS_DEFAULT, {"spf": True, "dmarc": False, "dkim": False, "mx": True}),
            ("13", "gonorthwind.com", "PENDING", "GOOGLE", 2, "2025-12-29T16:48:05", 45,
             "DNS records not found: SPF, DKIM, DMARC and MX are missing", False,
             ["tag_q1"], [], NS_DEFAULT, NO_DNS),
            ("14", "northwind-growth.com", "PENDING", "GOOGLE", 0, "2025-12-30T18:20:54", 40,
             "Name servers not connected", False,
             [], [], None, NO_DNS),
        ],
    },
    {
        "id": "ws_labs", "name": "Northwind Labs", "prefix": "lb",
        "sender_company": "Northwind Labs", "website": "https://labs.northwind-outreach.com",
        "owner_email": "alice@northwind-outreach.com",
        "team": [("Alice", "Martin"), ("Noah", "Fischer"), ("Grace", "Kim")],
        "email_target": 14,
        "domains": [
            ("01", "northwindlabs.io", "ACTIVE", "GOOGLE", 5, "2025-08-11T12:04:19", 94, None, True,
             ["tag_priority"], ["dmarc"], NS_DEFAULT, ALL_DNS),
            ("02", "trynwlabs.com", "ACTIVE", "MICROSOFT", 4, "2025-09-08T10:55:40", 77, None, True,
             [], [], NS_DEFAULT, ALL_DNS),
            ("03", "getnwlabs.net", "ACTIVE", "GOOGLE", 3, "2025-10-27T17:19:03", 58, None, False,
             ["tag_warmup"], [], NS_DEFAULT, ALL_DNS),
            ("04", "nwlabs-mail.co", "CONNECTED", "GOOGLE", 3, "2025-12-20T11:42:57", 66, None, False,
             [], ["dmarc"], NS_DEFAULT, {"spf": True, "dmarc": True, "dkim": False, "mx": False}),
            ("05", "nwlabsoutreach.com", "PENDING", "GOOGLE", 1, "2025-12-31T08:05:12", 42,
             "Name servers not connected", False,
             [], [], None, NO_DNS),
        ],
    },
    {
        "id": "ws_lumen", "name": "Lumen Leads", "prefix": "lu",
        "sender_company": "Lumen Leads", "website": "https://lumenleads.io",
        "owner_email": "bob@lumenleads.io",
        "team": [("Bob", "Chen"), ("Chloe", "Evans"), ("Tom", "Walsh"), ("Aisha", "Patel")],
        "email_target": 50,
        "domains": [
            ("01", "lumenleads.co", "ACTIVE", "GOOGLE", 5, "2025-08-21T09:14:22", 92, None, True,
             ["tag_agency"], ["fwdurl", "fwdmail", "dmarc"], NS_DEFAULT, ALL_DNS),
            ("02", "getlumenleads.com", "ACTIVE", "GOOGLE", 4, "2025-08-21T09:26:47", 86, None, True,
             [], ["catchall"], NS_DEFAULT, ALL_DNS),
            ("03", "trylumen.io", "ACTIVE", "MICROSOFT", 4, "2025-09-12T14:37:05", 74, None, True,
             ["tag_retarget"], [], NS_CLOUDFLARE, ALL_DNS),
            ("04", "lumenreach.net", "ACTIVE", "GOOGLE", 4, "2025-10-06T16:51:33", 52,
             "Listed on 1 blocklist (UCEPROTECT Level 1)", True,
             ["tag_retarget"], [], NS_DEFAULT, ALL_DNS),
            ("05", "lumenpipeline.com", "CONNECTED", "GOOGLE", 3, "2025-12-19T10:08:41", 61, None, False,
             ["tag_agency"], [], NS_DEFAULT, {"spf": True, "dmarc": False, "dkim": True, "mx": True}),
            ("06", "hellolumen.co", "PENDING", "GOOGLE", 2, "2025-12-30T13:27:16", 44,
             "DNS records not found: SPF, DKIM, DMARC and MX are missing", False,
             [], [], NS_DEFAULT, NO_DNS),
        ],
    },
]

ROLE_USERNAMES = ["hello", "sales", "team", "growth", "partnerships", "contact"]

# Prospects (fictional companies) and warm-up network peers, used by the email corpus.
PROSPECT_COMPANIES = [  # (name, mail domain, industry)
    ("Harborview Logistics", "harborviewlogistics.com", "logistics"),
    ("Cobalt Ridge Analytics", "cobaltridge.io", "SaaS"),
    ("Pinecrest Dental Group", "pinecrestdental.com", "healthcare"),
    ("Fairmont Payroll", "fairmontpayroll.com", "fintech"),
    ("Bluefin Robotics", "bluefinrobotics.io", "manufacturing"),
    ("Larkspur Insurance", "larkspurins.com", "insurance"),
    ("Granite Peak Capital", "granitepeakcap.com", "fintech"),
    ("Tidewater Health", "tidewaterhealth.org", "healthcare"),
    ("Oakhurst Realty", "oakhurstrealty.com", "real estate"),
    ("Meridian HR Cloud", "meridianhr.cloud", "SaaS"),
    ("Copperleaf Foods", "copperleaffoods.com", "e-commerce"),
    ("Summit Forge Manufacturing", "summitforge.com", "manufacturing"),
    ("Brightwater Labs", "brightwaterlabs.io", "SaaS"),
    ("Velvet Fern Studio", "velvetfern.co", "agency"),
    ("Ironbark Security", "ironbarksec.com", "cybersecurity"),
    ("Northgate Freight", "northgatefreight.com", "logistics"),
    ("Quillfeather Legal", "quillfeatherlegal.com", "professional services"),
    ("Stonebridge Wealth", "stonebridgewealth.com", "fintech"),
    ("Cedarline Software", "cedarline.dev", "SaaS"),
    ("Amberfield Energy", "amberfieldenergy.com", "energy"),
    ("Redwood Clinic Partners", "redwoodclinics.com", "healthcare"),
    ("Silverline Events", "silverlineevents.co", "events"),
    ("Foxglove Marketing", "foxglovemarketing.com", "agency"),
    ("Kestrel Aviation Parts", "kestrelparts.com", "manufacturing"),
    ("Marigold EdTech", "marigoldedu.com", "edtech"),
    ("Windrose Travel", "windrosetravel.com", "travel"),
    ("Hollowtree Coffee", "hollowtreecoffee.com", "e-commerce"),
    ("Trellis Property Management", "trellispm.com", "real estate"),
    ("Basalt Data", "basaltdata.io", "SaaS"),
    ("Lakeshore Accounting", "lakeshorecpa.com", "professional services"),
    ("Everpine Home Care", "everpinecare.com", "healthcare"),
    ("Sparrowhawk Media", "sparrowhawkmedia.com", "agency"),
]
PROSPECT_FIRST = ["Sarah", "Michael", "Jessica", "David", "Laura", "Kevin", "Rachel", "Brian",
                  "Olivia", "Nathan", "Megan", "Chris", "Hannah", "Ethan", "Natalie", "Ryan",
                  "Victoria", "Adam", "Julia", "Sam", "Isabel", "Derek", "Monica", "Felix",
                  "Tanya", "Omar", "Claire", "Lucas", "Maya", "Henry"]
PROSPECT_LAST = ["Thompson", "Garcia", "Nguyen", "Patel", "Robinson", "Walker", "Hughes",
                 "Bennett", "Carter", "Foster", "Murphy", "Kowalski", "Sullivan", "Jensen",
                 "Moreno", "Hayes", "Price", "Fleming", "Dubois", "Okafor", "Lindqvist",
                 "Castillo", "Brennan", "Yamamoto"]
WARMUP_PEERS = [
    ("Hannah Cole", "hannah@brightpeakmedia.co"), ("Ravi Menon", "ravi@tallcedarconsulting.com"),
    ("Ellie Porter", "ellie.porter@sunmeadowcreative.com"), ("Jonas Berg", "jonas@fjordlineops.io"),
    ("Mia Turner", "mia@copperkettlestudio.com"), ("Owen Gallagher", "owen@halcyongrowth.net"),
    ("Lena Vogel", "lena.vogel@stillwaterpartners.co"), ("Caleb Ward", "caleb@ridgelinesales.com"),
    ("Zoe Adams", "zoe@lanternbayagency.com"), ("Marco Rossi", "marco@orchardlaneops.com"),
    ("Nina Park", "nina.park@bluebirdrevenue.io"), ("Theo Grant", "theo@westwindadvisory.com"),
    ("Ivy Chen", "ivy@maplecrestdigital.com"), ("Arjun Rao", "arjun@pebblecovesystems.com"),
]


# ---------------------------------------------------------------------------
# Accounts, subscriptions, DNS shield

def subscription(rec_id, sub_id, status, plan, plan_key, price, qty, start, end, created,
                 cancel_possible, failure, invoice, credits):
    return {
        "id": rec_id, "subscriptionId": sub_id, "subscriptionStatus": Bare(status),
        "plan": Bare(plan), "planKey": plan_key, "price": price, "totalMailboxQuantity": qty,
        "periodStart": start, "periodEnd": end, "subscriptionCreationDate": created,
        "planUpgradeCancelPossible": cancel_possible, "paymentFailureMessage": failure,
        "invoiceDetails": invoice, "placementCredits": credits,
    }


INVOICE_BASE = "https://billing.emsim.example/invoices/"

ACCOUNTS = [
    {
        "id": "acc_alice", "apiKey": "emsim_test_alice_3f9c2a7b",
        "user": {"id": "usr_alice", "email": "alice@northwind-outreach.com",
                 "firstName": "Alice", "lastName": "Martin"},
        "walletBalance": "250.00",
        "subscriptions": [
            subscription("srec_alice_ent", "sub_alice_ent", "ACTIVE", "ENTERPRISE",
                         "enterprise_monthly", 199, 150,
                         "2025-12-12T10:15:00.000Z", "2026-01-12T10:15:00.000Z",
                         "2025-06-12T10:15:00.000Z", True, None,
                         INVOICE_BASE + "inv_alice_ent_2025_12", 20),
            subscription("srec_alice_basic_old", "sub_alice_basic_old", "CANCELLED", "BASIC",
                         "basic_monthly", 39, 25,
                         "2025-05-03T08:40:00.000Z", "2025-06-03T08:40:00.000Z",
                         "2025-03-03T08:40:00.000Z", False, None,
                         INVOICE_BASE + "inv_alice_basic_2025_05", 0),
        ],
        "dnsShield": [
            {"id": "dsr_alice_starter", "subscriptionId": "dss_alice_starter",
             "planType": Bare("STARTER"), "totalSlots": 30, "totalUsedSlots": 12},
            {"id": "dsr_alice_growth", "subscriptionId": "dss_alice_growth",
             "planType": Bare("GROWTH"), "totalSlots": 100, "totalUsedSlots": 37},
        ],
        "workspaces": [
            ("ws_northwind", True, {
                "id": "bill_northwind", "firstName": "Alice", "lastName": "Martin",
                "company": "Northwind Outreach LLC", "addressLineOne": "500 Market Street",
                "addressLineTwo": "Suite 1200", "addressLineThree": None,
                "city": "San Francisco", "state": "CA", "country": "US", "postalCode": "94105",
                "phoneCc": "+1", "phone": "4155550142", "languagePreference": "en",
            }),
            ("ws_labs", False, None),
        ],
    },
    {
        "id": "acc_bob", "apiKey": "emsim_test_bob_8d41e6c0",
        "user": {"id": "usr_bob", "email": "bob@lumenleads.io",
                 "firstName": "Bob", "lastName": "Chen"},
        "walletBalance": "40.00",
        "subscriptions": [
            subscription("srec_bob_basic", "sub_bob_basic", "ACTIVE", "BASIC",
                         "basic_monthly", 39, 25,
                         "2025-12-20T15:02:00.000Z", "2026-01-20T15:02:00.000Z",
                         "2025-08-20T15:02:00.000Z", True, None,
                         INVOICE_BASE + "inv_bob_basic_2025_12", 3),
            subscription("srec_bob_growth_old", "sub_bob_growth_old", "CANCELLED", "GROWTH",
                         "growth_monthly", 99, 60,
                         "2025-07-05T12:30:00.000Z", "2025-08-05T12:30:00.000Z",
                         "2025-05-05T12:30:00.000Z", False, "Your card was declined.",
                         INVOICE_BASE + "inv_bob_growth_2025_07", 0),
        ],
        "dnsShield": [
            {"id": "dsr_bob_starter", "subscriptionId": "dss_bob_starter",
             "planType": Bare("STARTER"), "totalSlots": 30, "totalUsedSlots": 29},
        ],
        "workspaces": [
            ("ws_lumen", True, {
                "id": "bill_lumen", "firstName": "Bob", "lastName": "Chen",
                "company": "Lumen Leads Ltd", "addressLineOne": "14 Clerkenwell Road",
                "addressLineTwo": None, "addressLineThree": None,
                "city": "London", "state": "Greater London", "country": "GB",
                "postalCode": "EC1M 5PQ", "phoneCc": "+44", "phone": "2079460958",
                "languagePreference": "en",
            }),
        ],
    },
]


# ---------------------------------------------------------------------------
# Domains and mailboxes

def health_label(score):
    if score >= 90:
        return "Excellent"
    if score >= 75:
        return "Good"
    if score >= 55:
        return "Fair"
    return "Poor"


def parse(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")


def pick_usernames(team, n, domain):
    """n distinct realistic local parts for one domain: personas plus the odd role address."""
    out = []
    personas = team[:]
    rng.shuffle(personas)
    roles_left = 1 if n < 6 else 2
    i = 0
    while len(out) < n:
        first, last = personas[i % len(personas)]
        i += 1
        f, l = first.lower(), last.lower().replace("'", "")
        if roles_left and rng.random() < 0.2:
            role = rng.choice(ROLE_USERNAMES)
            if role not in [u for u, _, _ in out]:
                out.append((role, first, last))
                roles_left -= 1
                continue
        for candidate in rng.sample([f, f + "." + l, f + l, f[0] + "." + l, f + "." + l[0]], 5):
            if candidate not in [u for u, _, _ in out]:
                out.append((candidate, first, last))
                break
    assert len({u for u, _, _ in out}) == n, domain
    return out


def build_domains(ws):
    domains = []
    owner_first = ws["team"][0][0].lower()
    owner_domain = ws["owner_email"].split("@")[1]
    for (suffix, name, status, provider, n_mbx, created_s, score, error, warmed, tags, feats,
         ns, dns) in ws["domains"]:
        created = parse(created_s)
        years = 2 if "regyears:2" in feats else 1
        if status == "ACTIVE":
            updated = min(created + dt.timedelta(days=rng.randint(2, 60), minutes=rng.randint(0, 900)),
                          LAST_EVENT - dt.timedelta(days=3))
        else:
            updated = created + dt.timedelta(minutes=rng.randint(3, 240))
        assert (health_label(score) == "Poor") == (error is not None), name
        dom_id = f"dom_{ws['prefix']}_{suffix}"
        d = {
            "id": dom_id, "domain": name, "status": Bare(status),
            "createdAt": ts(created), "updatedAt": ts(updated),
            "forwardTo": ws["website"] if "fwdurl" in feats else None,
            "forwardToAddedOnReseller": "fwdurl" in feats,
            "dmarcEmail": f"dmarc@{owner_domain}" if "dmarc" in feats else None,
            "dmarcEmailAddedToReseller": "dmarc" in feats,
            "forwardingEmail": ws["owner_email"] if "fwdmail" in feats else None,
            "forwardingEmailAdded": "fwdmail" in feats,
            "catchAllEmail": f"{owner_first}+catchall@{owner_domain}" if "catchall" in feats else None,
            "catchAllEmailAdded": "catchall" in feats,
            "nameServers": ns,
            "purchaseType": Bare("REGISTERED"), "serviceProvider": Bare(provider),
            "registeredOn": ts(created), "expireOn": ts(add_years(created, years)),
            "isWarmedUp": warmed, "healthScore": score, "healthErrorMessage": error,
            "healthLabel": health_label(score), "tags": tags, "dns": dns,
        }
        mailboxes = []
        names = pick_usernames(ws["team"], n_mbx, name)
        mbx_time = created + dt.timedelta(minutes=rng.randint(20, 90))
        for idx, (username, first, last) in enumerate(names, start=1):
            if status == "ACTIVE":
                r = rng.random()
                if r < 0.07:
                    mstatus = "INACTIVE"
                elif r < 0.11 and idx > 2:
                    mstatus = "IN_PROGRESS"
                else:
                    mstatus = "ACTIVE"
            else:
                mstatus = "IN_PROGRESS"
            if mstatus == "IN_PROGRESS" and status == "ACTIVE":
                # Added to an already-active domain in the last days of December.
                m_created = rand_between(dt.datetime(2025, 12, 27, 9), dt.datetime(2025, 12, 31, 17))
            else:
                mbx_time += dt.timedelta(seconds=rng.randint(5, 240))
                m_created = mbx_time
            assigned = m_created + dt.timedelta(seconds=rng.randint(1, 90))
            mailboxes.append({
                "id": f"mbx_{ws['prefix']}_{suffix}_{idx:02d}", "username": username,
                "firstName": first, "lastName": last, "status": Bare(mstatus),
                "profilePicture": None, "assignedOn": ts(assigned),
                "expireOn": d["expireOn"], "createdAt": ts(m_created),
                # generator-only fields, stripped before emission
                "_created": m_created, "_domain": name, "_provider": provider,
                "_warmed": warmed, "_domain_status": status,
            })
        d["mailboxes"] = mailboxes
        domains.append(d)
    return domains


# ---------------------------------------------------------------------------
# Email corpus

FOLDERS = {
    "GOOGLE": {"inbox": "INBOX", "sent": "[Gmail]/Sent Mail", "spam": "[Gmail]/Spam",
               "important": "[Gmail]/Important"},
    "MICROSOFT": {"inbox": "Inbox", "sent": "Sent Items", "spam": "Junk Email",
                  "important": "Inbox"},
}
LABEL_ORDER = ["INBOX", "IMPORTANT", "SENT", "WARMUP", "SPAM", "STARRED", "UNREAD"]

OUTREACH_SUBJECTS = [
    "Quick question, {first}",
    "{company} + {sender}",
    "Idea for {company_pos} outbound",
    "Booking more demos at {company}",
    "{first}, worth a 15-minute chat?",
    "Cutting SDR ramp time at {company}",
    "Re-engaging closed-lost deals at {company}",
    "Question about {company_pos} Q1 pipeline",
    "Saw {company} is hiring SDRs",
    "Helping {company} reach more buyers in 2026",
]
OUTREACH_SNIPPETS = [
    "Hi {first}, noticed {company} is hiring two SDRs this quarter. Teams at that stage usually hit a deliverability wall once volume passes 500 sends a day.",
    "Hi {first}, we help B2B teams like {company} book 20-30 extra meetings a month without adding headcount. Open to a quick chat next week?",
    "Hi {first}, short one: how is {company} handling outbound to new accounts in Q1? We just helped a similar team lift reply rates from 1.8% to 4.6%.",
    "Hi {first}, I put together a two-line idea for {company_pos} pipeline after reading your post on LinkedIn. Mind if I share it?",
    "Hi {first}, most {industry} teams we talk to lose a third of their replies to spam folders. Happy to run a free inbox placement check for {company}.",
    "Hi {first}, {company} came up while we were mapping fast-growing {industry} companies. Would it make sense to compare notes on outbound for 15 minutes?",
]
FOLLOWUP_SNIPPETS = [
    "Hi {first}, bumping this to the top of your inbox in case it got buried. Is outbound a priority for {company} this quarter?",
    "Hi {first}, following up on my note from last week. Happy to send a two-minute video instead if that's easier.",
    "Hi {first}, last note from me. If the timing is wrong, just reply 'later' and I'll check back in February.",
]
REPLIES = {
    "positive": [
        "Thanks {mfirst}, timing is actually good. Can you send over a couple of slots for next week?",
        "Hey {mfirst}, this is relevant. We're rebuilding our outbound motion in January. Let's talk.",
        "Interesting. What would a pilot look like for a team of {n} reps?",
    ],
    "pricing": [
        "What does pricing look like for a team of {n} reps? We need numbers before our budget review.",
        "Can you share pricing and a case study from a {industry} customer?",
    ],
    "referral": [
        "I'm not the right person for this, but {ref} owns outbound here. Copying them.",
        "Thanks for reaching out. Looping in {ref}, who runs RevOps and makes these calls.",
    ],
    "not_interested": [
        "Not interested, please take me off your list.",
        "We already have a vendor for this and are happy with them. Thanks anyway.",
        "No thanks. Please don't follow up.",
    ],
    "later": [
        "We're heads-down until the end of January. Ping me in February?",
        "Budget is locked for Q1. Reach back out in March and I'll take a look.",
    ],
}
OUR_ANSWERS = {
    "positive": [
        "Great to hear, {first}! How about Tuesday 10:00 or Wednesday 15:00 ET? Happy to work around your calendar.",
        "Perfect. Here's my calendar link; grab any 20-minute slot that works and I'll send an agenda.",
    ],
    "pricing": [
        "Sure, attached is a one-pager with our tiers. For {n} reps most teams land on the Growth package; happy to walk through it live.",
        "Attached: pricing plus a short case study from a {industry} team that doubled booked meetings in 90 days.",
    ],
    "referral": [
        "Thanks {first}! {ref_first}, would it make sense to connect for 15 minutes this week?",
    ],
    "not_interested": [
        "Understood, I've removed you from our list. Sorry for the noise, {first}.",
    ],
    "later": [
        "Will do, {first}. I've set a reminder for February. Good luck with the quarter close.",
        "Makes sense. I'll check back in March with a couple of ideas tailored to {company}.",
    ],
}
CLOSERS = {
    "positive": [
        "Wednesday 15:00 ET works. I've sent you an invite.",
        "Tuesday at 10 is good. Please include our sales director in the invite.",
    ],
    "pricing": [
        "Thanks, this is helpful. I'll review with our CFO and get back to you next week.",
        "Got it. Can we get on a call Thursday to go through the numbers?",
    ],
    "referral": [
        "Hi {mfirst}, happy to chat. Does Friday at 11:00 ET work for you?",
    ],
}
WARMUP_SUBJECTS = [
    "Catching up on the Q1 roadmap", "Notes from Thursday's call", "Quick favour",
    "Lunch next week?", "Updated proposal draft", "Thoughts on the new onboarding flow",
    "Conference recap", "Question about the invoice", "Agenda for Monday",
    "Re: holiday schedule", "Team offsite ideas", "Feedback on the landing page copy",
    "Checking in", "Slides for the board deck", "Year-end planning",
]
WARMUP_SNIPPETS = [
    "Hi {first}, hope your week is going well. Did you get a chance to look at the draft I sent over? No rush at all.",
    "Hey {first}, sharing my notes from the call. Let me know if I missed anything important.",
    "Hi {first}, would you have ten minutes tomorrow to go through the numbers together?",
    "Morning {first}! Attaching the updated version with your comments folded in.",
    "Hi {first}, just confirming we're still on for Monday. I'll bring the agenda.",
    "Hey {first}, great catching up last week. Let's plan something before the holidays.",
]
WARMUP_REPLIES = [
    "Thanks, got it! I'll take a look this afternoon.",
    "Sounds good to me. Talk soon.",
    "Appreciate it. Monday works on my side.",
    "Perfect, thanks for sending this over.",
]
OOO_SNIPPETS = [
    "I'm out of the office until January 5 with limited access to email. For urgent matters please contact {ref_email}.",
    "Thank you for your email. I am on annual leave and will respond when I return on January 7.",
    "I'm travelling this week with limited connectivity and will reply as soon as I can.",
]
SPAM = [
    ("Domain Renewal Center", "notice@domain-renewal-center.net",
     "Final notice: {domain} listing expires soon",
     "Your search engine listing for {domain} expires in 48 hours. Renew now to avoid losing your online visibility."),
    ("Rank Boost Pro", "offers@rankboost-pro.biz",
     "Guaranteed page 1 ranking for {domain}",
     "We can get {domain} to the first page of Google in 30 days or your money back. Reply YES for a free audit."),
    ("Lead List Outlet", "sales@leadlistoutlet.top",
     "2.4M verified B2B emails - 90% off today",
     "Fresh, verified decision-maker contacts for every industry. Instant download, one-time price of $99."),
    ("Crypto Desk", "alerts@cryptodesk-signals.info",
     "{first}, your account has pending rewards",
     "You have 0.42 BTC in unclaimed rewards. Verify your wallet within 24 hours to receive the transfer."),
]


def make_prospect(taken):
    while True:
        company, cdomain, industry = rng.choice(PROSPECT_COMPANIES)
        first, last = rng.choice(PROSPECT_FIRST), rng.choice(PROSPECT_LAST)
        style = rng.randint(0, 2)
        local = [first.lower(), f"{first.lower()}.{last.lower()}", f"{first[0].lower()}{last.lower()}"][style]
        address = f"{local}@{cdomain}"
        if address not in taken:
            taken.append(address)
            return {"first": first, "name": f"{first} {last}", "address": address,
                    "company": company, "cdomain": cdomain, "industry": industry}


def person(name, address):
    return {"name": name, "address": address}


class ThreadBuilder:
    def __init__(self, ws, mbx):
        self.ws, self.mbx = ws, mbx
        self.address = f"{mbx['username']}@{mbx['_domain']}"
        self.me = person(f"{mbx['firstName']} {mbx['lastName']}", self.address)
        self.folders = FOLDERS[mbx["_provider"]]
        self.thread_id = None
        self.messages = []

    def _add(self, when, subject, snippet, frm, to, direction, cc=None, attach=False,
             warmup=False, spam=False, important=False, starred=False, read=None, size=None):
        labels = []
        if direction == "out":
            folder = self.folders["sent"]
            labels.append("SENT")
            is_read = True
        else:
            is_read = read if read is not None else rng.random() < (0.55 if when.month == 12 and when.day > 26 else 0.85)
            if spam:
                folder = self.folders["spam"]
                labels.append("SPAM")
            else:
                folder = self.folders["important"] if important and rng.random() < 0.5 else self.folders["inbox"]
                labels.append("INBOX")
                if important:
                    labels.append("IMPORTANT")
            if not is_read:
                labels.append("UNREAD")
        if warmup:
            labels.append("WARMUP")
        if starred:
            labels.append("STARRED")
        labels.sort(key=LABEL_ORDER.index)
        if size is None:
            size = rng.randint(30000, 90000) if attach else rng.randint(2000, 12000)
        self.messages.append({
            "_when": when, "account": self.address, "subject": subject, "snippet": snippet,
            "from": [frm], "to": to, "cc": cc or [], "size": size, "labels": labels,
            "folderPath": folder, "isRead": is_read, "isStarred": starred,
            "hasAttachments": attach,
        })


def next_time(t, lo_minutes, hi_minutes):
    return t + dt.timedelta(minutes=rng.randint(lo_minutes, hi_minutes), seconds=rng.randint(0, 59))


def reply_subject(subject):
    return subject if subject.startswith("Re: ") else "Re: " + subject


def build_thread(ws, mbx, kind, start, taken):
    """Messages of one thread for mailbox mbx, first one at start (may end early at LAST_EVENT)."""
    tb = ThreadBuilder(ws, mbx)
    p = make_prospect(taken)
    company_pos = p["company"] + ("'" if p["company"].endswith("s") else "'s")
    ctx = {"first": p["first"], "company": p["company"], "company_pos": company_pos,
           "sender": ws["sender_company"],
           "industry": p["industry"], "mfirst": mbx["firstName"], "n": rng.choice([6, 8, 12, 15, 25]),
           "domain": mbx["_domain"]}
    them = person(p["name"], p["address"])
    subject = rng.choice(OUTREACH_SUBJECTS).format(**ctx)
    t = start
    if kind == "warmup":
        peer = person(*rng.choice(WARMUP_PEERS))
        wsubj = rng.choice(WARMUP_SUBJECTS)
        spam = rng.random() < 0.08
        tb._add(t, wsubj, rng.choice(WARMUP_SNIPPETS).format(first=mbx["firstName"]), peer, [tb.me],
                "in", warmup=True, spam=spam, attach=rng.random() < 0.1, read=True,
                starred=rng.random() < 0.1)
        if not spam and rng.random() < 0.6:
            t = next_time(t, 20, 600)
            tb._add(t, reply_subject(wsubj), rng.choice(WARMUP_REPLIES), tb.me, [peer], "out", warmup=True)
            if rng.random() < 0.35:
                t = next_time(t, 30, 900)
                tb._add(t, reply_subject(wsubj), rng.choice(WARMUP_REPLIES), peer, [tb.me], "in", warmup=True, read=True)
    elif kind == "spam":
        name, addr, s, snip = rng.choice(SPAM)
        tb._add(t, s.format(**ctx), snip.format(**ctx), person(name, addr), [tb.me], "in", spam=True,
                read=rng.random() < 0.3)
    elif kind == "bounce":
        gone_first, gone_last = rng.choice(PROSPECT_FIRST), rng.choice(PROSPECT_LAST)
        gone = f"{gone_first.lower()}.{gone_last.lower()}@{p['cdomain']}"
        ctx2 = dict(ctx, first=gone_first)
        tb._add(t, subject, rng.choice(OUTREACH_SNIPPETS).format(**ctx2),
                tb.me, [person(f"{gone_first} {gone_last}", gone)], "out")
        t = next_time(t, 0, 2)
        if mbx["_provider"] == "GOOGLE":
            tb._add(t, "Delivery Status Notification (Failure)",
                    f"Address not found. Your message wasn't delivered to {gone} because the address couldn't be found, or is unable to receive mail.",
                    person("Mail Delivery Subsystem", "mailer-daemon@googlemail.com"), [tb.me], "in",
                    size=rng.randint(6000, 14000))
        else:
            tb._add(t, "Undeliverable: " + subject,
                    f"Delivery has failed to these recipients or groups: {gone}. The email address you entered couldn't be found.",
                    person("Microsoft Outlook", f"postmaster@{mbx['_domain']}"), [tb.me], "in",
                    size=rng.randint(6000, 14000))
    elif kind == "ooo":
        ref_email = f"{rng.choice(PROSPECT_FIRST).lower()}@{p['cdomain']}"
        tb._add(t, subject, rng.choice(OUTREACH_SNIPPETS).format(**ctx), tb.me, [them], "out")
        t = next_time(t, 0, 3)
        prefix = "Automatic reply: " if rng.random() < 0.5 else "Out of Office: "
        tb._add(t, prefix + subject, rng.choice(OOO_SNIPPETS).format(ref_email=ref_email), them, [tb.me], "in")
    elif kind == "meeting":
        # The prospect answers an earlier touch (not in the corpus) asking for a call.
        when_txt = rng.choice(["Thursday at 2pm ET", "Tuesday morning", "Friday at 11:00 GMT", "Monday afternoon"])
        tb._add(t, reply_subject(subject),
                f"Hi {mbx['firstName']}, sorry for the slow reply. Could we do a call {when_txt}? I'd like to understand how you'd approach our {p['industry']} accounts.",
                them, [tb.me], "in", important=True, starred=rng.random() < 0.6)
        t = next_time(t, 15, 300)
        tb._add(t, reply_subject(subject), f"Hi {p['first']}, {when_txt} works. Sending a calendar invite now; talk soon.",
                tb.me, [them], "out")
        if rng.random() < 0.7:
            t = next_time(t, 5, 120)
            day = t + dt.timedelta(days=rng.randint(2, 6))
            tb._add(t, f"Accepted: {ws['sender_company']} / {p['company']} intro @ {day.strftime('%a %b')} {day.day}, {day.year}",
                    f"{p['name']} has accepted this invitation.", them, [tb.me], "in",
                    attach=True, important=True)
    else:  # a reply conversation after outreach
        reply_kind = kind
        tb._add(t, subject, rng.choice(OUTREACH_SNIPPETS).format(**ctx), tb.me, [them], "out")
        if rng.random() < 0.35:
            t = next_time(t, 60 * 24 * 2, 60 * 24 * 4)
            tb._add(t, reply_subject(subject), rng.choice(FOLLOWUP_SNIPPETS).format(**ctx), tb.me, [them], "out")
        t = next_time(t, 45, 60 * 30)
        ref_first = rng.choice(PROSPECT_FIRST)
        ref_addr = f"{ref_first.lower()}@{p['cdomain']}"
        cc = [ref_addr] if reply_kind == "referral" else []
        ctx.update(ref=f"{ref_first} ({ref_addr})", ref_first=ref_first)
        good = reply_kind in ("positive", "pricing", "referral")
        tb._add(t, reply_subject(subject), rng.choice(REPLIES[reply_kind]).format(**ctx), them, [tb.me], "in",
                cc=cc, important=good, starred=good and rng.random() < 0.4)
        if len(tb.messages) < 4 and (good or rng.random() < 0.5):
            t = next_time(t, 10, 60 * 6)
            tb._add(t, reply_subject(subject), rng.choice(OUR_ANSWERS[reply_kind]).format(**ctx), tb.me,
                    [person(f"{ref_first}", ref_addr)] if reply_kind == "referral" else [them], "out",
                    cc=[p["address"]] if reply_kind == "referral" else [],
                    attach=reply_kind == "pricing")
            if len(tb.messages) < 4 and reply_kind in CLOSERS and rng.random() < 0.6:
                t = next_time(t, 30, 60 * 20)
                frm = person(ref_first, ref_addr) if reply_kind == "referral" else them
                tb._add(t, reply_subject(subject), rng.choice(CLOSERS[reply_kind]).format(**ctx), frm, [tb.me], "in",
                        important=True, starred=rng.random() < 0.3)
    # Keep the whole corpus before the clock start.
    return [m for m in tb.messages if m["_when"] <= LAST_EVENT]


THREAD_KINDS_WARMED = [("warmup", 26), ("positive", 12), ("pricing", 6), ("referral", 5),
                       ("not_interested", 9), ("later", 7), ("ooo", 10), ("bounce", 9),
                       ("meeting", 9), ("spam", 7)]
THREAD_KINDS_WARMING = [("warmup", 80), ("ooo", 5), ("bounce", 5), ("spam", 10)]


def weighted(choices):
    total = sum(w for _, w in choices)
    r = rng.uniform(0, total)
    for value, w in choices:
        r -= w
        if r <= 0:
            return value
    return choices[-1][0]


def build_emails(ws, domains, taken):
    senders = [m for d in domains if d["status"] == "ACTIVE" for m in d["mailboxes"]
               if m["status"] == "ACTIVE"]
    assert senders, ws["id"]
    emails = []
    while len(emails) < ws["email_target"]:
        mbx = rng.choice(senders)
        kinds = THREAD_KINDS_WARMED if mbx["_warmed"] else THREAD_KINDS_WARMING
        earliest = max(EMAIL_WINDOW_START, mbx["_created"] + dt.timedelta(days=1))
        start = rand_between(earliest, EMAIL_THREAD_LAST_START)
        start = start.replace(hour=rng.randint(7, 19))
        msgs = build_thread(ws, mbx, weighted(kinds), start, taken)
        if not msgs:
            continue
        thread_id = "thr_%010x" % rng.getrandbits(40)
        for m in msgs:
            m["threadId"] = thread_id
            m["_ws"] = ws["id"]
        emails.extend(msgs)
    return emails


# ---------------------------------------------------------------------------
# Assembly and output

def main():
    ws_by_id = {ws["id"]: ws for ws in WORKSPACES}
    domains_by_ws = {ws["id"]: build_domains(ws) for ws in WORKSPACES}

    owned = [d["domain"] for ds in domains_by_ws.values() for d in ds]
    assert len(set(owned)) == len(owned)
    assert len(set(CATALOGUE)) == len(CATALOGUE) and not set(CATALOGUE) & set(owned)

    taken = []
    all_emails = []
    for ws in WORKSPACES:
        all_emails.extend(build_emails(ws, domains_by_ws[ws["id"]], taken))
    # Ids follow time order across the whole corpus.
    all_emails.sort(key=lambda m: m["_when"])
    thread_ids = []
    for n, m in enumerate(all_emails, start=1):
        m["id"] = f"eml_{n:04d}"
        m["messageId"] = f"<eml_{n:04d}@mail.example>"
        m["date"] = ts(m["_when"])
        if m["threadId"] not in thread_ids:
            thread_ids.append(m["threadId"])

    out = []
    w = out.append
    w("# emsim default fixture: two accounts (Alice: acc_alice, Bob: acc_bob), three workspaces.")
    w("# Generated by scripts/gen-default-fixture.py. Do not edit by hand; change the generator and run")
    w("#   python3 scripts/gen-default-fixture.py > fixtures/default.yaml")
    w("# Format: fixtures/README.md.")
    w("version: 1")
    w("clock:")
    w(f"  start: {scalar(CLOCK_START)}")
    w("timings:")
    for k, v in TIMINGS:
        w(f"  {k}: {v}")
    w("catalogue:")
    for name in CATALOGUE:
        price, renew = PREMIUM_PRICES.get(name, TLD_PRICES[name.rsplit('.', 1)[1]])
        w("  - " + scalar({"domainName": name, "domainPrice": price, "renewPrice": renew}))
    w("plans:")
    for key, plan, price, qty, credits in PLANS:
        w("  - " + scalar({"key": key, "plan": Bare(plan), "price": price,
                           "totalMailboxQuantity": qty, "placementCredits": credits}))
    w("accounts:")
    for acc in ACCOUNTS:
        w(f"  - id: {scalar(acc['id'])}")
        w(f"    apiKey: {scalar(acc['apiKey'])}")
        w(f"    user: {scalar(acc['user'])}")
        w(f"    walletBalance: {scalar(acc['walletBalance'])}")
        w("    subscriptions:")
        for sub in acc["subscriptions"]:
            first = True
            for k, v in sub.items():
                w(("      - " if first else "        ") + f"{k}: {scalar(v)}")
                first = False
        w("    dnsShield:")
        for dss in acc["dnsShield"]:
            w("      - " + scalar(dss))
        w("    workspaces:")
        for ws_id, is_default, billing in acc["workspaces"]:
            ws = ws_by_id[ws_id]
            w(f"      - id: {scalar(ws_id)}")
            w(f"        name: {scalar(ws['name'])}")
            w(f"        default: {scalar(is_default)}")
            if billing:
                w("        billingDetails:")
                for k, v in billing.items():
                    w(f"          {k}: {scalar(v)}")
            w("        domains:")
            for d in domains_by_ws[ws_id]:
                first = True
                for k, v in d.items():
                    if k == "mailboxes":
                        continue
                    w(("          - " if first else "            ") + f"{k}: {scalar(v)}")
                    first = False
                if not d["mailboxes"]:
                    w("            mailboxes: []")
                    continue
                w("            mailboxes:")
                for m in d["mailboxes"]:
                    w("              - " + scalar({k: v for k, v in m.items() if not k.startswith("_")}))
            emails = [m for m in all_emails if m["_ws"] == ws_id]
            w("        emails:" + (" []" if not emails else ""))
            for m in emails:
                rec = {k: m[k] for k in ("id", "account", "threadId", "messageId", "subject", "snippet",
                                          "date", "from", "to", "cc", "size", "labels", "folderPath",
                                          "isRead", "isStarred", "hasAttachments")}
                w("          - " + scalar(rec))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
