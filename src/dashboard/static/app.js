// Usage dashboard: plain script, no build step. The API key lives in this closure only (never in the
// address, cookies or storage); every figure comes from the service's own REST routes.
(() => {
  'use strict';
  let key = null;
  const $ = (id) => document.getElementById(id);
  const fmt = new Intl.NumberFormat('en-US');
  const charts = {};

  async function api(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const data = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const detail = data && data.detail ? (typeof data.detail === 'string' ? data.detail : JSON.stringify(data.detail)) : res.statusText;
      throw Object.assign(new Error(`${res.status}: ${detail}`), { status: res.status });
    }
    return data;
  }

  const el = (tag, attrs = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  };

  function table(id, columns, rows) {
    const t = $(id);
    t.replaceChildren(
      el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', c.numeric ? { class: 'n' } : {}, c.label)))),
      el('tbody', {}, ...rows.map((r) => el('tr', {}, ...columns.map((c) => {
        const v = c.value(r);
        return el('td', c.numeric ? { class: 'n' } : {}, v instanceof Node ? v : c.numeric ? fmt.format(v) : v ?? '');
      })))),
    );
    if (rows.length === 0) t.append(el('tbody', {}, el('tr', {}, el('td', { colspan: String(columns.length) }, 'No calls in this period.'))));
  }

  /**
   * A y axis as wide as its widest label (uPlot's fixed sizes clipped "200,000"): tick length, gap and
   * the measured text. Records both on the chart element for the browser test.
   */
  const yAxisSize = (target) => (u, values, axisIdx, cycleNum) => {
    const axis = u.axes[axisIdx];
    if (cycleNum > 1) return axis._size;
    u.ctx.font = axis.font[0];
    // measureText is in canvas pixels (the font is scaled by devicePixelRatio); sizes are CSS pixels.
    const widest = Math.max(0, ...(values ?? []).map((v) => u.ctx.measureText(String(v)).width / devicePixelRatio));
    const needed = Math.ceil(axis.ticks.size + axis.gap + widest);
    const size = needed + 4;
    target.dataset.yLabelWidth = String(needed);
    target.dataset.yAxisSize = String(size);
    return size;
  };

  /** The legend shows the latest point's values, not "--", while the cursor is off the chart. */
  const latestInLegend = (u) => {
    if (u.cursor.idx == null && u.data[0].length > 0) u.setLegend({ idx: u.data[0].length - 1 });
  };

  const widthOf = (target) => Math.max(200, target.clientWidth);

  function chart(id, opts, data) {
    charts[id]?.destroy();
    const target = $(id);
    target.replaceChildren();
    const hooks = { ...opts.hooks, setCursor: [latestInLegend], ready: [latestInLegend] };
    charts[id] = new uPlot({ width: widthOf(target), height: 220, ...opts, hooks }, data, target);
    target.dataset.points = String(data[0].length);
  }

  // Charts follow their container: a window resized from 1280 to 390 px redraws them at the new width.
  let resizing = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(() => {
      for (const [id, u] of Object.entries(charts)) u.setSize({ width: widthOf($(id)), height: 220 });
      document.body.dataset.resized = String(window.innerWidth);
    });
  });

  function barChart(id, labels, values, label) {
    chart(
      id,
      {
        // Bars start at zero, or their heights would mislead.
        scales: { x: { time: false, range: [-0.5, Math.max(labels.length - 0.5, 0.5)] }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
        axes: [{ values: (_u, ticks) => ticks.map((t) => labels[t] ?? ''), splits: () => labels.map((_l, i) => i) }, { size: yAxisSize($(id)) }],
        series: [{}, { label, fill: 'rgba(31, 111, 235, 0.35)', stroke: '#1f6feb', paths: uPlot.paths.bars({ size: [0.6, 80] }), points: { show: false } }],
        legend: { show: false },
      },
      [labels.map((_l, i) => i), values],
    );
  }

  async function loadUsage() {
    const days = Number($('days').value);
    const [month, history, byFidelity, byModel, byClient, events] = await Promise.all([
      api('GET', '/v1/usage'),
      api('GET', `/v1/usage/history?days=${days}`),
      api('GET', `/v1/usage/by-fidelity?days=${days}`),
      api('GET', `/v1/usage/by-model?days=${days}`),
      api('GET', `/v1/usage/by-client?days=${days}`),
      api('GET', '/v1/usage/events?page_size=20'),
    ]);
    const figure = (name, value, label) => el('div', { class: 'figure', 'data-figure': name, 'data-value': String(value) }, el('b', {}, fmt.format(value)), el('span', {}, label));
    $('totals').replaceChildren(
      figure('compressions', month.monthly_compressions, 'compressions this month'),
      figure('original_tokens', month.original_tokens, 'tokens sent'),
      figure('tokens_saved', month.tokens_saved, 'tokens saved'),
      el('div', { class: 'figure' }, el('b', {}, month.plan), el('span', {}, 'plan')),
    );
    chart(
      'chart-history',
      {
        series: [{}, { label: 'Tokens saved', stroke: '#1a7f37', fill: 'rgba(26, 127, 55, 0.15)' }, { label: 'Tokens sent', stroke: '#1f6feb' }],
        axes: [{}, { size: yAxisSize($('chart-history')) }],
      },
      [history.data.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), history.data.map((d) => d.tokens_saved), history.data.map((d) => d.original_tokens)],
    );
    barChart('chart-fidelity', byFidelity.data.map((d) => d.fidelity), byFidelity.data.map((d) => d.tokens_saved), 'Tokens saved');
    table('table-fidelity', [
      { label: 'Fidelity', value: (r) => r.fidelity },
      { label: 'Calls', value: (r) => r.compressions, numeric: true },
      { label: 'Tokens saved', value: (r) => r.tokens_saved, numeric: true },
      { label: 'Avg savings %', value: (r) => r.avg_savings_percent, numeric: true },
    ], byFidelity.data);
    barChart('chart-model', byModel.data.map((d) => d.model), byModel.data.map((d) => d.tokens_saved), 'Tokens saved');
    table('table-model', [
      { label: 'Model', value: (r) => r.model },
      { label: 'Calls', value: (r) => r.compressions, numeric: true },
      { label: 'Tokens saved', value: (r) => r.tokens_saved, numeric: true },
    ], byModel.data);
    // Calls here are compressions, as in the fidelity and model tables, so the three total the same;
    // every call (failed and advisory ones too) is the last column (docs/dashboard.md).
    barChart('chart-client', byClient.data.map((d) => d.client), byClient.data.map((d) => d.tokens_saved), 'Tokens saved');
    table('table-client', [
      { label: 'Client', value: (r) => r.client },
      { label: 'Calls', value: (r) => r.compressions, numeric: true },
      { label: 'Tokens saved', value: (r) => r.tokens_saved, numeric: true },
      { label: 'All calls', value: (r) => r.calls, numeric: true },
    ], byClient.data);
    table('table-events', [
      { label: 'When (UTC)', value: (r) => r.created_at.replace('T', ' ').slice(0, 19) },
      { label: 'Method', value: (r) => r.method },
      { label: 'Tool', value: (r) => r.tool_name ?? '' },
      { label: 'Fidelity', value: (r) => r.fidelity ?? '' },
      { label: 'Status', value: (r) => r.status },
      { label: 'Tokens in', value: (r) => r.input_tokens, numeric: true },
      { label: 'Tokens out', value: (r) => r.output_tokens, numeric: true },
    ], events.items);
  }

  async function loadKeys() {
    const keys = await api('GET', '/v1/keys');
    const list = keys.keys;
    table('table-keys', [
      { label: 'Name', value: (k) => k.name ?? '' },
      { label: 'Prefix', value: (k) => k.key_prefix },
      { label: 'Plan', value: (k) => k.plan ?? '' },
      { label: 'Created', value: (k) => k.created_at.slice(0, 10) },
      { label: 'Last used', value: (k) => (k.last_used_at ?? '—').slice(0, 16).replace('T', ' ') },
      { label: 'Status', value: (k) => k.status },
      {
        label: '',
        value: (k) =>
          k.status !== 'active'
            ? ''
            : el('span', {},
                el('button', { 'data-action': 'rotate', 'data-key': k.key_id, onclick: () => act(() => api('POST', `/v1/keys/${k.key_id}/rotate`, {}), 'Rotated: the new key is') }, 'Rotate'), ' ',
                el('button', { 'data-action': 'revoke', 'data-key': k.key_id, onclick: () => confirm(`Revoke ${k.name ?? k.key_id}?`) && act(() => api('DELETE', `/v1/keys/${k.key_id}`), null) }, 'Revoke')),
      },
    ], list);
  }

  /** Runs a key operation; a new key is shown once, here, and never stored. */
  async function act(op, shownAs) {
    const out = $('new-key');
    out.className = '';
    try {
      const r = await op();
      const secret = r && r.key;
      out.replaceChildren(...(secret && shownAs ? [`${shownAs} `, el('code', {}, secret), ' (copy it now: it is not shown again).'] : ['Done.']));
      await loadKeys();
    } catch (err) {
      out.className = 'error';
      out.textContent = err.message;
    }
  }

  async function signIn(candidate) {
    key = candidate;
    try {
      await api('GET', '/v1/usage');
    } catch (err) {
      key = null;
      $('sign-in-error').textContent = err.status === 401 ? 'That key was not accepted.' : err.message;
      return;
    }
    $('key').value = '';
    $('sign-in').hidden = true;
    $('app').hidden = false;
    $('sign-out').hidden = false;
    $('who').textContent = `${candidate.slice(0, 7)}…`;
    await Promise.all([loadUsage(), loadKeys()]).catch((err) => ($('new-key').textContent = err.message));
    document.body.dataset.ready = 'true';
  }

  $('sign-in').addEventListener('submit', (e) => {
    e.preventDefault();
    $('sign-in-error').textContent = '';
    signIn($('key').value.trim());
  });
  $('sign-out').addEventListener('click', () => {
    key = null;
    location.reload();
  });
  $('days').addEventListener('change', () => loadUsage());
  $('create-key').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('new-key-name').value.trim();
    act(() => api('POST', '/v1/keys', name ? { name } : {}), 'New key:');
  });
})();
