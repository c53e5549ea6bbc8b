// End-to-end tests of the checkout page and the /_sim/ui dashboard in a real browser: headless
// Chromium (Debian's /usr/bin/chromium) driven by playwright-core. Run by
// scripts/test.d/70-browser.sh against a fresh emsim:
//   node tests/browser/e2e.mjs BASE_URL [SCREENSHOT_DIR] [ADMIN_TOKEN]
// The setup a client's code would do (a purchase, a webhook endpoint) goes through the public API
// with fetch; what a person does (pay, decline, advance the clock, read the attempts) goes
// through the pages. Prints one line per check and ends with "browser: N passed, N failed".
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const [base, shots, adminToken] = process.argv.slice(2);
const ALICE = 'emsim_test_alice_3f9c2a7b';
const chromiumPath = process.env.EMSIM_CHROMIUM || '/usr/bin/chromium';
let passed = 0, failed = 0;

async function api(method, path, body, headers = {}) {
  const h = { 'x-auth-service': ALICE, ...headers };
  if (adminToken && path.startsWith('/_sim/')) h.authorization = 'Bearer ' + adminToken;
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const doc = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(doc)}`);
  return doc;
}

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log('ok: ' + name);
  } catch (e) {
    failed++;
    console.log('FAIL: ' + name + '\n  ' + String(e.stack || e).split('\n').slice(0, 4).join('\n  '));
  }
}

// A ONE_TIME placement purchase Alice's $5 wallet cannot pay: its checkout link.
async function openPlacementCheckout(name) {
  await api('PUT', '/_sim/wallet', { balance: 5 });
  const r = await api('POST', '/v2/placement-tests/purchase',
    { placementType: 'ONE_TIME', testName: name, mailboxIds: ['mbx_nw_01_01', 'mbx_nw_01_02', 'mbx_nw_01_03'] });
  assert.equal(r.data.checkoutSession, true);
  return r.data.checkoutUrl;
}

const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
const viewport = { width: 1200, height: 860 };
// The dashboard's tab: no credentials of its own; with an admin token, the page asks for it and
// keeps it in the tab's sessionStorage.
const page = await (await browser.newContext({ viewport })).newPage();
// The payment links' tab, with JavaScript off: the checkout page works with plain forms. Payment
// links are control-plane links, so with an admin token the browser sends it like any client.
const pay = await (await browser.newContext({
  viewport, javaScriptEnabled: false,
  extraHTTPHeaders: adminToken ? { authorization: 'Bearer ' + adminToken } : {} })).newPage();
for (const p of [page, pay]) p.on('pageerror', (e) => { failed++; console.log('FAIL: a script error on the page: ' + e.message); });

// The dashboard, opened (or reloaded) and given the token when it asks for it.
async function dashboard() {
  await page.goto(base + '/_sim/ui');
  await page.waitForFunction(() => !document.getElementById('content').hidden || !document.getElementById('token-form').hidden);
  if (await page.isVisible('#token-form')) {
    await page.fill('#token', adminToken || '');
    await page.click('#token-form button');
  }
  await page.waitForSelector('#content:not([hidden])');
}
// Clicks a dashboard button and waits until its action finished and the page was redrawn.
async function dashboardAction(click, doneText) {
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await click();
  await page.waitForFunction((t) => {
    const s = document.getElementById('status');
    return s.textContent.includes(t) || s.className === 'error';
  }, doneText);
  assert.notEqual(await page.getAttribute('#status', 'class'), 'error', await page.textContent('#status'));
}
const eventCountFromApi = async (type) => (await api('GET', '/_sim/events?type=' + type)).events.length;
const walletText = () => page.textContent('tr[data-account="acc_alice"] .wallet');
const eventCount = (type) => page.locator(`.event[data-type="${type}"]`).count();

if (adminToken) await check('a page load of the dashboard without the admin token asks for it and shows no data', async () => {
  const bare = await browser.newPage();
  await bare.goto(base + '/_sim/ui');
  await bare.waitForSelector('#token-form:not([hidden])');
  assert.equal(await bare.isVisible('#content'), false);
  assert.equal(await bare.locator('tr[data-account]').count(), 0);
  assert.match(await bare.textContent('#status'), /admin token/);
  await bare.close();
});

await check('the dashboard shows the accounts, their wallets, domains and mailboxes', async () => {
  await dashboard();
  assert.equal(await walletText(), '$250.00');
  assert.ok(await page.locator('tr[data-domain="northwindreach.com"]').count() === 1);
  assert.ok((await page.locator('#mailboxes tr').count()) > 10);
  assert.match(await page.textContent('#clock'), /^\d{4}-\d\d-\d\dT/);
});

await check('paying a placement checkout on its page starts the tests; the dashboard shows their events', async () => {
  const link = await openPlacementCheckout('Q1 <inbox> check');
  await dashboard();
  const before = await eventCount('placement_test.status_changed');
  await pay.goto(link);
  assert.equal(await pay.textContent('h1'), 'Inbox placement test');
  assert.match(await pay.textContent('main'), /ONE_TIME placement test "Q1 <inbox> check" of 3 mailboxes/);
  assert.equal(await pay.textContent('.amount'), '$6.00 USD');
  if (shots) {  // the card and a margin around it: a small file
    const box = await pay.locator('main').boundingBox();
    await pay.screenshot({ path: shots + '/checkout-page.png',
      clip: { x: box.x - 24, y: Math.max(0, box.y - 24), width: box.width + 48, height: box.height + 48 } });
  }
  await pay.click('#pay');
  await pay.waitForURL(/\?paid=1$/);  // post/redirect/get
  assert.match(await pay.textContent('#notice'), /Payment complete\. The invoice is paid and the 3 test orders started/);
  const cart = await api('GET', new URL(link).pathname);
  assert.equal(cart.status, 'PAID');
  await dashboard();
  assert.equal(await eventCount('placement_test.status_changed'), before + 3);
  assert.equal(await walletText(), '$5.00');  // paid by card at the checkout, not from the wallet
  await pay.reload();                           // a reload must not pay twice
  assert.equal((await api('GET', new URL(link).pathname)).status, 'PAID');
  assert.equal(await eventCountFromApi('placement_test.status_changed'), before + 3);
  await pay.goto(link);
  assert.match(await pay.textContent('#notice'), /already used/);
});

await check('paying a wallet top-up on its page credits the wallet the dashboard shows', async () => {
  const r = await api('POST', '/v2/wallet/balance', { amount: 25 });
  await pay.goto(r.paymentLink);
  assert.equal(await pay.textContent('h1'), 'Wallet top-up');
  await pay.click('#pay');
  await pay.waitForURL(/\?paid=1$/);
  await dashboard();
  assert.equal(await walletText(), '$30.00');
});

await check('declining a checkout changes nothing, in the page and in the dashboard', async () => {
  const link = await openPlacementCheckout('declined test');
  await dashboard();
  const events = await page.locator('.event').count();
  const wallet = await walletText();
  // The world as a dump, less the clock (with the real clock, time passes meanwhile).
  const world = async () => { const d = await api('GET', '/_sim/state?secrets=true'); delete d.clock; return d; };
  const state = await world();
  await pay.goto(link);
  await pay.click('#decline');
  await pay.waitForURL(/declined=1/);
  assert.match(await pay.textContent('#notice'), /You declined this payment\. Nothing was charged/);
  assert.deepEqual(await world(), state);
  assert.equal((await api('GET', new URL(link).pathname)).status, 'AWAITING_PAYMENT');
  await dashboard();
  assert.equal(await page.locator('.event').count(), events);
  assert.equal(await walletText(), wallet);
});

await check('advancing the clock from the dashboard shows a failing endpoint\'s attempts and disables it at the 20th failure', async () => {
  const sink = await api('POST', '/_sim/sinks', { name: 'always-500', status: 500 });
  const ep = (await api('POST', '/v2/webhooks/endpoints', { url: sink.url, enabled_events: ['domain.updated'] })).data;
  await dashboard();
  const row = `#endpoints tr[data-endpoint="${ep.id}"]`;
  assert.equal(await page.textContent(row + ' .endpoint-status'), 'active');
  // Three domain.updated events, made with the dashboard's transition buttons, 10 s apart on the
  // simulated clock: no two attempts fall due at the same time, so they are made one after the
  // other and the count of failures is exact (attempts due together go out in parallel, and one
  // already on the wire when the endpoint is disabled still completes: README "Webhooks").
  for (const status of ['CONNECTED', 'ACTIVE', 'CONNECTED']) {
    const domainRow = page.locator('tr[data-domain="northwindreach.com"]');
    await domainRow.locator('select').selectOption(status);
    await dashboardAction(() => domainRow.locator('button').click(), 'done');
    assert.equal(await domainRow.locator('.domain-status').textContent(), status);
    await page.fill('#advance-duration', '10s');
    await dashboardAction(() => page.click('#advance'), 'Advanced to');
  }
  const attempts = () => page.locator(`.attempt[data-endpoint="${ep.id}"]`);
  const outcomes = (word) => page.$$eval(`.attempt[data-endpoint="${ep.id}"] .outcome`,
    (cells, w) => cells.filter((c) => c.textContent === w).length, word);
  // Part 6: attempts at 0, 1m, 6m, 36m after each event fall within the hour: 4 per event, failed.
  await page.fill('#advance-duration', '1h');
  await dashboardAction(() => page.click('#advance'), 'Advanced to');
  assert.equal(await outcomes('failed'), 12);
  assert.equal(await page.textContent(row + ' .failures'), '12');
  assert.equal(await page.textContent(row + ' .endpoint-status'), 'active');
  assert.equal(await attempts().first().locator('.response').textContent(), '500');
  // Two days more: the retries go on until the 20th consecutive failure (the second event's 7th
  // attempt) disables the endpoint (Part 3); the pending retries are dropped, not sent.
  await page.fill('#advance-duration', '2d');
  await dashboardAction(() => page.click('#advance'), 'Advanced to');
  assert.equal(await outcomes('failed'), 20);
  assert.equal(await page.textContent(row + ' .failures'), '20');
  assert.equal(await page.textContent(row + ' .endpoint-status'), 'disabled');
  assert.equal(await outcomes('dropped'), 2);  // the first event's 8th attempt, the third's 7th
  if (shots) {
    await page.check('#only-delivered');
    assert.equal(await page.locator('.event').count(), 3);  // the three domain.updated
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: shots + '/dashboard.png' });
  }
  // The dashboard's Re-enable button: the public API's PATCH status:active (Part 4.10).
  await dashboardAction(() => page.click(row + ' .re-enable'), 'done');
  assert.equal(await page.textContent(row + ' .endpoint-status'), 'active');
  assert.equal(await page.textContent(row + ' .failures'), '0');
});

await browser.close();
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
