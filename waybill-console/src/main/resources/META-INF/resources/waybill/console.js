// Waybill console: plain JavaScript over the Actuator endpoint 'waybill'. Every value from the
// server is put into the page as text (textContent), never as HTML.
(function () {
  'use strict';

  const params = new URLSearchParams(location.search);
  // The page lives at <context>/waybill/index.html; the endpoint path is relative to the context.
  const context = location.pathname.replace(/\/waybill\/[^/]*$/, '');
  const endpointParam = params.get('endpoint') || '/actuator/waybill';
  const endpoint = /^https?:/.test(endpointParam) ? endpointParam : context + endpointParam;
  // The store whose scopes and inbox the page shows and changes ('' for the default store); ?store= opens another.
  let store = params.get('store') || '';
  let writeEnabled = false;
  let timer = null;
  let openScope = null;

  document.getElementById('endpoint-url').textContent = endpoint;

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function row(cells) {
    const tr = document.createElement('tr');
    cells.forEach((cell) => tr.appendChild(cell instanceof Node ? cell : el('td', cell)));
    return tr;
  }

  function emptyRow(tbody, columns, text) {
    const td = el('td', text);
    td.colSpan = columns;
    const tr = document.createElement('tr');
    tr.className = 'empty';
    tr.appendChild(td);
    tbody.appendChild(tr);
  }

  function age(millis) {
    if (millis === null || millis === undefined || isNaN(millis)) return '–';
    if (millis < 0) millis = 0;
    const s = Math.floor(millis / 1000);
    if (s < 60) return s + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' min ' + (s % 60) + ' s';
    const h = Math.floor(m / 60);
    if (h < 48) return h + ' h ' + (m % 60) + ' min';
    return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }

  function since(now, instant) {
    return instant ? age(Date.parse(now) - Date.parse(instant)) : '–';
  }

  function destination(list) {
    return (list || []).map((d) => (d === '' ? '(default exchange)' : d)).join(', ');
  }

  // What the endpoint says is wrong with a request: its {"error": "..."}, else the status.
  async function failure(method, path, response) {
    const text = await response.text();
    let reason = text;
    try {
      const body = JSON.parse(text);
      if (body && typeof body.error === 'string') reason = body.error;
    } catch (e) {
      // not JSON: the text as it is
    }
    if (!reason) reason = response.statusText;
    return new Error(response.status === 400 ? reason : method + ' ' + path + ': HTTP ' + response.status + ' ' + reason);
  }

  // A path of the overview, of scopes or of a message's inbox entries, in the chosen store.
  function inStore(path) {
    return store ? path + (path.includes('?') ? '&' : '?') + 'store=' + encodeURIComponent(store) : path;
  }

  function storeBody(body) {
    return store ? Object.assign({ store }, body) : body;
  }

  async function get(path) {
    const response = await fetch(endpoint + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (response.status === 404) return null;
    if (!response.ok) throw await failure('GET', path, response);
    return response.json();
  }

  async function post(path, body) {
    const response = await fetch(endpoint + path, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body)
    });
    if (!response.ok) throw await failure('POST', path, response);
    return response.json();
  }

  function setStatus(text, error) {
    const status = document.getElementById('status');
    status.textContent = text;
    status.className = 'status' + (error ? ' error' : '');
  }

  // The outcome of the operator's last action: it stays until the next action (the refreshes
  // every 5 s write to the status line only), so what an action did, or did not do, is seen.
  function showResult(text, level) {
    const result = document.getElementById('result');
    result.replaceChildren(el('span', text));
    const close = el('button', 'Dismiss', 'dismiss');
    close.type = 'button';
    close.addEventListener('click', () => { result.hidden = true; });
    result.appendChild(close);
    result.className = 'result ' + level;
    result.dataset.level = level;
    result.hidden = false;
  }

  function plural(count, noun) {
    return count + ' ' + noun + (count === 1 ? '' : 's');
  }

  // Describes an action's answer; fewer done than asked is a warning that says why that happens.
  function outcome(label, result) {
    if (result === 'cancelled') return { text: label + ': cancelled.', level: 'ok' };
    if (result && result.section === 'scopes') {
      const done = result.affected;
      const asked = result.requested;
      const verb = result.action === 'delete' ? 'deleted' : 'redriven';
      if (typeof asked === 'number' && done < asked) {
        return { level: 'warning', text: label + ': only ' + done + ' of ' + plural(asked, 'dead scope') + ' ' + verb
          + '. The others were already gone (redriven or deleted by someone else, or no longer dead); '
          + 'the lists below show the current state.' };
      }
      return { level: 'ok', text: label + ': ' + plural(done, 'dead scope') + ' ' + verb + '.' };
    }
    if (result && result.section === 'error-queues') {
      const done = (result.messages || []).length;
      const verb = result.action === 'discard' ? 'discarded' : 'moved back to their queue';
      const notFound = result.notFound || [];
      if (notFound.length > 0) {
        return { level: 'warning', text: label + ': only ' + done + ' of ' + plural(result.requested, 'message') + ' '
          + verb + '; not found: ' + notFound.join(', ') + '. Such a message is already gone (redriven or discarded '
          + 'by someone else), or was held by another reader of the error queue at that moment (another open '
          + 'console reads it every 5 s): try again.' };
      }
      if (result.requested === undefined && done === 0) {
        return { level: 'warning', text: label + ': no message ' + verb + '. The error queue was empty, or its '
          + 'messages were held by another reader at that moment (another open console reads it every 5 s): try again.' };
      }
      return { level: 'ok', text: label + ': ' + plural(done, 'message') + ' ' + verb + '.' };
    }
    return { level: 'ok', text: label + ': ' + JSON.stringify(result) };
  }

  function button(text, className, action, reports) {
    const b = el('button', text, className);
    b.type = 'button';
    b.addEventListener('click', async () => {
      b.disabled = true;
      const report = reports !== false;
      if (report) showResult(text + ': working…', 'ok');
      try {
        const result = await action();
        if (report) {
          const o = outcome(text, result);
          showResult(o.text, o.level);
        }
      } catch (e) {
        showResult(text + ' failed: ' + String(e.message || e), 'error');
      }
      await refresh();
    });
    return b;
  }

  // The store choice, shown when the application has stores besides the default one.
  function renderStores(overview) {
    const stores = Array.isArray(overview.stores) ? overview.stores : [];
    const choice = document.getElementById('store-choice');
    choice.hidden = stores.length <= 1;
    const select = document.getElementById('store');
    if (select.options.length !== stores.length || stores.some((name, i) => select.options[i].value !== name)) {
      select.replaceChildren(...stores.map((name) => {
        const option = el('option', name);
        option.value = name;
        return option;
      }));
    }
    select.value = overview.store;
  }

  function renderOverview(overview) {
    writeEnabled = !!overview.writeEnabled;
    document.body.classList.toggle('read-only', !writeEnabled);
    const mode = document.getElementById('mode');
    mode.textContent = writeEnabled ? 'writes enabled' : 'read-only';
    mode.className = 'badge' + (writeEnabled ? ' write' : '');
    renderStores(overview);
    const o = overview.outbox;
    document.getElementById('pending-scopes').textContent = o.pendingScopes;
    document.getElementById('pending-messages').textContent = o.pendingMessages;
    document.getElementById('due-scopes').textContent = o.dueScopes;
    // how long the oldest due scope has waited: not the age of the oldest pending one, which counts
    // messages published for later (scheduled) and scopes waiting out a retry backoff
    document.getElementById('due-for').textContent = o.dueScopes > 0 ? age(o.oldestDueForMillis) : '0 s';
    const dead = document.getElementById('dead-count');
    dead.textContent = o.deadScopes;
    dead.classList.toggle('bad', o.deadScopes > 0);
    const queues = Array.isArray(overview.errorQueues) ? overview.errorQueues : [];
    const inError = queues.reduce((sum, q) => sum + Math.max(0, q.depth), 0);
    const errors = document.getElementById('error-count');
    errors.textContent = Array.isArray(overview.errorQueues) ? inError : '?';
    errors.classList.toggle('bad', inError > 0);
  }

  function scopeRow(scope, now, withActions) {
    const link = el('a', scope.id.substring(0, 8) + '…', 'scope-link');
    link.title = scope.id;
    link.addEventListener('click', () => showScope(scope.id).catch((e) => showResult(String(e.message || e), 'error')));
    const idCell = el('td', null, 'mono');
    idCell.appendChild(link);
    const cells = [idCell, el('td', destination(scope.destinations)), el('td', (scope.messageTypes || []).join(', ')),
      el('td', scope.messageCount), el('td', scope.attempts), el('td', since(now, scope.createdAt))];
    if (withActions) {
      cells.push(el('td', scope.lastError, 'error'));
      const actions = el('td', null, 'write');
      actions.appendChild(button('Redrive', 'redrive', () => post('/scopes/redrive', storeBody({ ids: scope.id }))));
      actions.appendChild(button('Delete', 'danger delete', () => {
        if (!confirm('Delete dead scope ' + scope.id + ' and its messages for good?')) return Promise.resolve('cancelled');
        return post('/scopes/delete', storeBody({ ids: scope.id }));
      }));
      cells.push(actions);
    } else {
      const wait = Date.parse(scope.nextAttemptAt) - Date.parse(now);
      cells.push(el('td', wait > 0 ? 'in ' + age(wait) : 'due'));
      cells.push(el('td', scope.lastError, 'error'));
    }
    const tr = row(cells);
    tr.dataset.scopeId = scope.id;
    return tr;
  }

  async function showScope(id) {
    openScope = id;
    const box = document.getElementById('scope-details');
    const details = await get(inStore('/scopes/' + encodeURIComponent(id) + '?max=20&previewBytes=2048'));
    box.replaceChildren();
    box.hidden = false;
    const close = button('Close', '', async () => { openScope = null; box.hidden = true; return 'closed'; }, false);
    box.appendChild(close);
    if (!details) {
      box.appendChild(el('p', 'Scope ' + id + ' is no longer pending or dead.'));
      return;
    }
    box.appendChild(el('h3', 'Scope ' + id + ' (' + details.scope.status.toLowerCase() + ')'));
    if (details.scope.lastError) box.appendChild(el('pre', details.scope.lastError));
    details.messages.forEach((m) => {
      box.appendChild(el('h4', m.messageType + ' → ' + (m.destination === '' ? '(default exchange)' : m.destination)
        + (m.routingKey ? ' / ' + m.routingKey : '') + '  [' + m.messageId + ']'));
      box.appendChild(el('pre', JSON.stringify(m.headers, null, 2)));
      box.appendChild(el('pre', m.bodyPreview + (m.bodyTruncated ? '\n… (' + m.bodySize + ' bytes in all)' : '')));
    });
  }

  async function renderDead(now) {
    const page = await get(inStore('/scopes?status=dead&limit=50'));
    const tbody = document.querySelector('#dead-scopes tbody');
    tbody.replaceChildren();
    if (!page || page.scopes.length === 0) {
      emptyRow(tbody, 8, 'No dead scopes.');
      return;
    }
    page.scopes.forEach((scope) => tbody.appendChild(scopeRow(scope, now, true)));
    if (page.total > page.scopes.length) emptyRow(tbody, 8, (page.total - page.scopes.length) + ' more not shown.');
  }

  async function renderPending(now) {
    const page = await get(inStore('/scopes?status=pending&limit=20'));
    const tbody = document.querySelector('#pending-scopes-list tbody');
    tbody.replaceChildren();
    if (!page || page.scopes.length === 0) {
      emptyRow(tbody, 8, 'Nothing pending: the relay is up to date.');
      return;
    }
    page.scopes.forEach((scope) => tbody.appendChild(scopeRow(scope, now, false)));
    if (page.total > page.scopes.length) emptyRow(tbody, 8, (page.total - page.scopes.length) + ' more not shown.');
  }

  async function renderErrorQueues(overview) {
    const list = document.querySelector('#error-queue-list tbody');
    const messages = document.querySelector('#error-messages tbody');
    list.replaceChildren();
    const fresh = [];
    if (!Array.isArray(overview.errorQueues)) {
      emptyRow(list, 4, 'Error queues unavailable: ' + (overview.errorQueues && overview.errorQueues.problem));
      messages.replaceChildren();
      return;
    }
    if (overview.errorQueues.length === 0) {
      emptyRow(list, 4, overview.consumerSide ? 'No consumer endpoints.' : 'This application consumes no messages.');
    }
    for (const q of overview.errorQueues) {
      const actions = el('td', null, 'write');
      if (q.depth > 0) {
        actions.appendChild(button('Redrive all', 'redrive-all', () => {
          if (!confirm('Move every message of ' + q.errorQueue + ' back to ' + q.queue + '?')) return Promise.resolve('cancelled');
          return post('/error-queues/redrive', { queue: q.queue });
        }));
      }
      const tr = row([el('td', q.queue, 'mono'), el('td', q.errorQueue, 'mono'),
        el('td', q.depth >= 0 ? q.depth : (q.problem || 'unknown'), q.depth > 0 || q.depth < 0 ? 'error' : ''), actions]);
      tr.dataset.queue = q.queue;
      list.appendChild(tr);
      if (q.depth > 0) {
        const peeked = (await get('/error-queues/' + encodeURIComponent(q.queue) + '?max=20&previewBytes=512')) || [];
        peeked.forEach((m) => fresh.push({ queue: q.queue, message: m }));
        // the page shows 20 per queue; the depth says how many more the queue holds
        if (q.depth > peeked.length) fresh.push({ queue: q.queue, more: q.depth - peeked.length });
      }
    }
    messages.replaceChildren();
    if (fresh.length === 0) {
      emptyRow(messages, 8, 'No messages in error queues.');
      return;
    }
    for (const { queue, message, more } of fresh) {
      if (more) {
        emptyRow(messages, 8, more + ' more in ' + queue + ' not shown.');
        messages.lastChild.dataset.more = queue;
        continue;
      }
      const fault = (message.faultExceptionType ? message.faultExceptionType + ': ' : '') + (message.faultMessage || '');
      const actions = el('td', null, 'write');
      actions.appendChild(button('Redrive', 'redrive', () => post('/error-queues/redrive', { queue, ids: message.messageId })));
      actions.appendChild(button('Discard', 'danger discard', () => {
        if (!confirm('Discard message ' + message.messageId + ' for good?')) return Promise.resolve('cancelled');
        return post('/error-queues/discard', { queue, ids: message.messageId });
      }));
      const tr = row([el('td', queue, 'mono'), el('td', message.messageId, 'mono'), el('td', message.messageType),
        el('td', fault, 'error'), el('td', message.faultAttempts), el('td', since(overview.now, message.sentAt)),
        el('td', message.bodyPreview + (message.bodyTruncated ? '…' : ''), 'body'), actions]);
      tr.dataset.messageId = message.messageId;
      messages.appendChild(tr);
    }
  }

  async function refresh() {
    try {
      const overview = await get(inStore(''));
      renderOverview(overview);
      await Promise.all([renderDead(overview.now), renderPending(overview.now), renderErrorQueues(overview)]);
      document.body.dataset.refreshed = String(Date.now());
      setStatus('Updated ' + new Date().toLocaleTimeString());
    } catch (e) {
      setStatus(String(e.message || e), true);
    }
  }

  async function lookup(event) {
    event.preventDefault();
    const id = document.getElementById('lookup-id').value.trim();
    const table = document.getElementById('lookup-result');
    const empty = document.getElementById('lookup-empty');
    const tbody = table.querySelector('tbody');
    tbody.replaceChildren();
    try {
      const entries = await get(inStore('/messages/' + encodeURIComponent(id)));
      const now = new Date().toISOString();
      if (!entries || entries.length === 0) {
        table.hidden = true;
        empty.hidden = false;
        empty.textContent = 'No consumer of this application received message ' + id + (store ? ' in store ' + store : '') + ' (or its rows were purged).';
        return;
      }
      empty.hidden = true;
      table.hidden = false;
      entries.forEach((e) => {
        const tr = row([el('td', e.consumerId, 'mono'), el('td', e.state), el('td', since(now, e.receivedAt) + ' ago'),
          el('td', e.receiveCount), el('td', e.attempts), el('td', e.processedAt || '–'), el('td', e.faultedAt || '–'),
          el('td', e.lastError, 'error')]);
        tr.dataset.consumer = e.consumerId;
        tr.dataset.state = e.state;
        tbody.appendChild(tr);
      });
    } catch (e) {
      table.hidden = true;
      empty.hidden = false;
      empty.textContent = String(e.message || e);
    }
  }

  function schedule() {
    clearInterval(timer);
    if (document.getElementById('auto-refresh').checked) timer = setInterval(refresh, 5000);
  }

  document.getElementById('store').addEventListener('change', (event) => {
    store = event.target.value === 'default' ? '' : event.target.value;
    openScope = null;
    document.getElementById('scope-details').hidden = true;
    refresh();
  });
  document.getElementById('lookup-form').addEventListener('submit', lookup);
  document.getElementById('auto-refresh').addEventListener('change', schedule);
  refresh();
  schedule();
})();
