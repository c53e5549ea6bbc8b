// The emsim dashboard: reads the /_sim JSON routes (README, "Control plane") and renders them.
// No framework and nothing from the network but emsim itself; data goes into the page only as
// text (textContent), never as markup.
'use strict';

const TOKEN_KEY = 'emsimAdminToken';
const $ = (id) => document.getElementById(id);

// One /_sim (or public API) call; the admin token, when the user gave one, as the control plane
// expects it (Authorization: Bearer). A 401 asks for the token and shows no data.
async function call(method, path, body, headers = {}) {
  const h = Object.assign({ accept: 'application/json' }, headers);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token && path.startsWith('/_sim/')) h.authorization = 'Bearer ' + token;
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let doc = null;
  try { doc = text ? JSON.parse(text) : null; } catch (e) { doc = null; }
  if (res.status === 401 && path.startsWith('/_sim/')) {
    $('content').hidden = true;
    $('token-form').hidden = false;
    throw new Error(token ? 'the admin token was refused' : 'this emsim needs its admin token');
  }
  if (!res.ok) throw new Error(method + ' ' + path + ': ' + res.status + ' ' + (doc && doc.message ? doc.message : text));
  return doc;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

function badge(word) {
  const w = String(word ?? '');
  const kind = /^(ACTIVE|CONNECTED|active|succeeded|PAID|COMPLETED)$/.test(w) ? 'good'
    : /^(disabled|failed|dropped|DISABLED|FAILED|SUSPENDED)$/.test(w) ? 'bad'
    : /^(PENDING|scheduled|in_flight|AWAITING_PAYMENT|RUNNING)$/.test(w) ? 'wait' : '';
  return el('span', { class: 'badge ' + kind }, w);
}

function fillTable(table, head, rows, empty) {
  table.replaceChildren(el('tr', {}, ...head.map((h) => el('th', {}, h))));
  if (rows.length === 0) table.append(el('tr', {}, el('td', { colspan: head.length, class: 'muted' }, empty)));
  for (const r of rows) table.append(r);
}

const iso = (ms) => (ms === null || ms === undefined ? '' : new Date(ms).toISOString());
const dollars = (cents) => '$' + (cents / 100).toFixed(2);

function say(message, error = false) {
  $('status').textContent = message;
  $('status').className = error ? 'error' : '';
}

// Runs a button's action, then shows the world again.
async function act(label, fn) {
  try {
    say(label + '...');
    const note = await fn();
    await load();
    say(typeof note === 'string' ? note : label + ': done');
  } catch (e) {
    say(label + ': ' + e.message, true);
  }
}

function renderAccounts(state) {
  fillTable($('accounts'), ['Account', 'User', 'Wallet'], state.accounts.map((a) =>
    el('tr', { 'data-account': a.id },
      el('td', { class: 'mono' }, a.id),
      el('td', {}, (a.user.firstName + ' ' + a.user.lastName).trim() + ' <' + a.user.email + '>'),
      el('td', { class: 'wallet', 'data-cents': a.walletCents }, dollars(a.walletCents)))), 'no accounts');
}

function renderEndpoints(state, endpoints) {
  const keyOf = new Map(state.accounts.map((a) => [a.id, a.apiKey]));
  fillTable($('endpoints'), ['Endpoint', 'URL', 'Account', 'Status', 'Consecutive failures', 'Disabled', ''],
    endpoints.map((e) => el('tr', { 'data-endpoint': e.id },
      el('td', { class: 'mono' }, e.id),
      el('td', { class: 'mono' }, e.url),
      el('td', { class: 'mono' }, e.accountId),
      el('td', { class: 'endpoint-status' }, badge(e.status)),
      el('td', { class: 'failures' }, e.consecutiveFailures),
      el('td', {}, e.disabledAt ? e.disabledAt + ' (' + (e.disabledReason || '') + ')' : ''),
      el('td', {}, e.status === 'disabled'
        // Part 4.10: an endpoint is re-enabled through the public API with its account's key.
        ? el('button', { class: 're-enable', onclick: () => act('Re-enable ' + e.id, () =>
            call('PATCH', '/v2/webhooks/endpoints/' + encodeURIComponent(e.id), { status: 'active' },
              { 'x-auth-service': keyOf.get(e.accountId) || '' })) }, 'Re-enable')
        : ''))), 'no webhook endpoints');
}

function renderEvents(events, deliveries) {
  const byEvent = new Map();
  for (const d of deliveries) {
    if (!byEvent.has(d.eventId)) byEvent.set(d.eventId, []);
    byEvent.get(d.eventId).push(d);
  }
  const box = $('events');
  box.replaceChildren();
  if (events.length === 0) box.append(el('p', { class: 'muted' }, 'no events yet'));
  const onlyDelivered = $('only-delivered').checked;
  for (const ev of events.slice().reverse()) {
    const attempts = byEvent.get(ev.id) || [];
    if (onlyDelivered && attempts.length === 0) continue;
    const table = el('table', { class: 'attempts' });
    fillTable(table, ['Attempt', 'Endpoint', 'Outcome', 'Response', 'Duration', 'Sent (simulated)', 'Next attempt', 'Request'],
      attempts.map((d) => el('tr', { class: 'attempt', 'data-endpoint': d.endpointId },
        el('td', {}, '#' + d.attempt),
        el('td', { class: 'mono', title: d.endpointId }, d.endpointId.slice(0, 8) + '\u2026'),
        el('td', { class: 'outcome' }, badge(d.status)),
        el('td', { class: 'response' }, d.responseStatus ? String(d.responseStatus) : (d.error || '')),
        el('td', {}, d.durationMs !== null && d.durationMs !== undefined ? d.durationMs + ' ms' : ''),
        el('td', { class: 'time' }, d.sentAt || d.scheduledAt),
        el('td', { class: 'time' }, d.nextAttemptAt || ''),
        el('td', {}, el('details', {}, el('summary', {}, 'POST'),
          el('pre', {}, 'POST ' + d.url + '\nX-Service-Signature: t=' + (d.signatureTimestamp ?? '') + ',v1=...\n\n' +
            JSON.stringify({ id: ev.id, type: ev.type, created: ev.created, api_version: ev.api_version, data: ev.data }, null, 2) +
            (d.responseBody ? '\n\nresponse body:\n' + d.responseBody : '')))))),
      'no delivery attempts (no subscribed endpoint)');
    box.append(el('div', { class: 'event', 'data-event': ev.id, 'data-type': ev.type },
      el('div', {}, el('strong', {}, ev.type), el('span', { class: 'mono' }, ev.id),
        el('span', { class: 'muted' }, iso(ev.created * 1000)), el('span', { class: 'mono muted' }, ev.accountId),
        el('span', { class: 'attempt-count' + (attempts.length ? '' : ' muted') },
          attempts.length ? attempts.length + (attempts.length === 1 ? ' attempt' : ' attempts')
            : 'no delivery attempt (no endpoint subscribed)')),
      attempts.length ? table : null));
  }
}

function renderJobs(state) {
  const jobs = (state.jobs || []).slice().sort((a, b) => a.dueMs - b.dueMs || a.seq - b.seq);
  fillTable($('jobs'), ['Due', 'Kind', 'Arguments'], jobs.map((j) => el('tr', { class: 'job' },
    el('td', { class: 'time' }, iso(j.dueMs)), el('td', { class: 'mono' }, j.kind), el('td', { class: 'mono' }, JSON.stringify(j.args)))),
  'nothing scheduled');
}

function renderDomains(state) {
  fillTable($('domains'), ['Domain', 'Account', 'Status', 'Transition'], state.domains.map((d) => {
    const pick = el('select', { 'aria-label': 'new status of ' + d.domain },
      ...['ACTIVE', 'CONNECTED', 'PENDING'].map((s) => el('option', { value: s }, s)));
    return el('tr', { 'data-domain': d.domain },
      el('td', {}, d.domain), el('td', { class: 'mono' }, d.accountId), el('td', { class: 'domain-status' }, badge(d.status)),
      el('td', {}, pick, ' ', el('button', { onclick: () => act('Transition ' + d.domain, () =>
        call('POST', '/_sim/domains/' + encodeURIComponent(d.id) + '/transition', { status: pick.value })) }, 'Apply')));
  }), 'no domains');
}

function renderMailboxes(state) {
  const domainOf = new Map(state.domains.map((d) => [d.id, d.domain]));
  const shown = state.mailboxes.slice(0, 300);
  fillTable($('mailboxes'), ['Mailbox', 'Name', 'Account', 'Status'], shown.map((m) => el('tr', {},
    el('td', { class: 'mono' }, m.username + '@' + (domainOf.get(m.domainId) || '?')),
    el('td', {}, (m.firstName + ' ' + m.lastName).trim()),
    el('td', { class: 'mono' }, m.accountId), el('td', {}, badge(m.status)))), 'no mailboxes');
  if (state.mailboxes.length > shown.length)
    $('mailboxes').append(el('tr', {}, el('td', { colspan: 4, class: 'muted' },
      (state.mailboxes.length - shown.length) + ' more (GET /_sim/state)')));
}

let lastEvents = [[], []];  // what the events list was drawn from, to redraw it when filtered

async function load() {
  // Secrets on: the re-enable button needs the endpoint's account key (the page is the admin's).
  const [clock, state, events, deliveries] = await Promise.all([
    call('GET', '/_sim/clock'), call('GET', '/_sim/state?secrets=true'),
    call('GET', '/_sim/events'), call('GET', '/_sim/deliveries')]);
  $('token-form').hidden = true;
  $('clock').textContent = clock.now;
  $('clock-mode').textContent = '(' + clock.mode + ' clock)';
  renderAccounts(state);
  renderEndpoints(state, deliveries.endpoints);
  lastEvents = [events.events, deliveries.deliveries];
  renderEvents(...lastEvents);
  renderJobs(state);
  renderDomains(state);
  renderMailboxes(state);
  $('content').hidden = false;
}

$('advance-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const duration = $('advance-duration').value.trim();
  act('Advance ' + duration, async () => {
    const r = await call('POST', '/_sim/clock/advance', { duration });
    return 'Advanced to ' + r.now + ': ' + r.jobsRun + (r.jobsRun === 1 ? ' job' : ' jobs') + ' run';
  });
});
$('only-delivered').addEventListener('change', () => renderEvents(...lastEvents));
$('refresh').addEventListener('click', () => act('Refresh', () => Promise.resolve('Refreshed')));
$('reset').addEventListener('click', () => {
  if (confirm('Reset emsim to its fixtures? Every change, event and delivery is lost.'))
    act('Reset', () => call('POST', '/_sim/reset', {}));
});
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value);
  $('token').value = '';
  act('Sign in', () => Promise.resolve('Token accepted'));
});
act('Load', () => Promise.resolve('Loaded'));
