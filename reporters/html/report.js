/* The conformance report's script (inlined into index.html by reporters/html.ts). It builds the page from the
   embedded Summary (reporters/records.ts) with DOM calls and textContent only: no HTML from data, no network,
   no storage. The address's #fragment names what the detail panel shows (#clause=ID, #test=N), so Back works. */
(function () {
  'use strict';
  var s = JSON.parse(document.getElementById('report-data').textContent);
  var app = document.getElementById('app');

  // The verdict's vocabulary, as the run wrote it (harness/record/verdict.ts, embedded in the summary).
  var vocabulary = s.vocabulary;
  var LABELS = vocabulary.labels;
  var STATUSES = Object.keys(LABELS);
  // Clause statuses, worst first, and their colour class.
  var CLAUSE_STATUSES = vocabulary.clauseOrder;
  var CLAUSE_CLASS = vocabulary.clauseClass;
  var MEANING = vocabulary.clauseMeanings;
  var SPEC_KINDS = ['rule', 'flow', 'type', 'observation', 'description'];

  // ---- tiny DOM helpers (text only) ----
  function el(tag, attrs) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(parent, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) {
      child.forEach(function (c) {
        add(parent, c);
      });
      return;
    }
    parent.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  function badge(status) {
    return el('span', { class: 'badge st-' + status, text: LABELS[status] || status });
  }
  function clauseBadge(status) {
    return el('span', { class: 'badge st-' + (CLAUSE_CLASS[status] || 'uncovered'), text: status });
  }
  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }
  function firstLine(text) {
    var l = String(text || '').split('\n')[0];
    return l.length > 240 ? l.slice(0, 239) + '…' : l;
  }
  function when(iso) {
    return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso || '') ? iso.slice(0, 10) + ' ' + iso.slice(11, 19) + ' UTC' : iso;
  }
  function seconds(ms) {
    return (ms / 1000).toFixed(1) + ' s';
  }

  // ---- indexes ----
  var tests = s.tests.map(function (t, i) {
    t.index = i;
    return t;
  });
  var byClause = {};
  tests.forEach(function (t) {
    var ids = t.clauses.concat(
      t.observations.map(function (o) {
        return o.clause;
      }),
      t.failure ? t.failure.clauses : [],
    );
    ids
      .filter(function (id, i) {
        return ids.indexOf(id) === i;
      })
      .forEach(function (id) {
        (byClause[id] = byClause[id] || []).push(t);
      });
  });
  var clauses = s.clauses.slice();
  // Clause ids cited by tests but absent from the catalogue get a status from their tests.
  (s.unknownClauses || []).forEach(function (id) {
    clauses.push({
      id: id,
      section: '',
      kind: '(not in the catalogue)',
      text: 'Cited by tests but absent from spec/clauses.yaml.',
      status: worst(byClause[id] || [], id),
      counts: null,
    });
  });
  var clauseById = {};
  clauses.forEach(function (c) {
    clauseById[c.id] = c;
  });
  var baselineStatus = {};
  var clauseWas = {};
  if (s.comparison) {
    s.comparison.clauseChanges.forEach(function (x) {
      clauseWas[x.id] = x.from;
    });
    ['newFailures', 'fixed', 'stillFailing', 'newlySkipped'].forEach(function (k) {
      s.comparison[k].forEach(function (r) {
        baselineStatus[r.file + '\u0000' + r.name] = r.was;
      });
    });
  }
  // A test's outcome for one clause (records.ts clauseOutcomes): a failed test fails only the clauses its failing
  // check cites; the others it did not judge.
  function outcomeFor(t, id) {
    var f = t.failure;
    if ((t.status === 'fail' || t.status === 'expectedFailure') && f && f.clauses.indexOf(id) < 0) return 'notRun';
    if (
      t.observations.some(function (o) {
        return o.clause === id;
      }) &&
      ['pass', 'warn'].indexOf(t.status) >= 0
    )
      return 'warn';
    return t.status;
  }
  function worst(list, id) {
    // The clause grid's order and what each outcome gives a clause (harness/record/verdict.ts).
    for (var i = 0; i < CLAUSE_STATUSES.length; i++) {
      if (
        list.some(function (t) {
          return vocabulary.clauseStatusOf[outcomeFor(t, id)] === CLAUSE_STATUSES[i];
        })
      )
        return CLAUSE_STATUSES[i];
    }
    return 'not covered';
  }
  function findTest(ref) {
    return tests.filter(function (t) {
      return t.name === ref.name && t.file === ref.file;
    })[0];
  }
  function groupOf(c) {
    return SPEC_KINDS.indexOf(c.kind) >= 0 ? 'sec:' + c.section : 'kind:' + c.kind;
  }
  function sectionKey(sec) {
    return sec
      .split('.')
      .map(function (p) {
        return ('000' + p).slice(-4);
      })
      .join('.');
  }
  // Sections in numeric order (2, 2.1, …, 4.10), then the other kinds by name.
  function byGroup(a, b) {
    function key(g) {
      return g.slice(0, 4) === 'sec:' ? '0' + sectionKey(g.slice(4)) : '1' + g;
    }
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  }

  // ---- state: filters, and what the panel shows (from the #fragment) ----
  var state = { statuses: {}, group: '', endpoint: '', query: '' };
  CLAUSE_STATUSES.forEach(function (st) {
    state.statuses[st] = true;
  });
  function selection() {
    var h;
    try {
      h = decodeURIComponent(location.hash.slice(1));
    } catch (_e) {
      return {};
    }
    var m = /^test=(\d+)(?:&from=(.*))?$/.exec(h);
    if (m && tests[+m[1]]) return { test: tests[+m[1]], from: m[2] };
    m = /^clause=(.*)$/.exec(h);
    if (m && clauseById[m[1]]) return { clause: clauseById[m[1]] };
    return {};
  }
  function go(hash) {
    if (location.hash === '#' + hash) render();
    else location.hash = hash;
  }
  function clauseLink(id) {
    return 'clause=' + encodeURIComponent(id);
  }
  function testLink(t, from) {
    return 'test=' + t.index + (from ? '&from=' + encodeURIComponent(from) : '');
  }

  function testMatches(t) {
    if (state.endpoint && t.endpoint !== state.endpoint) return false;
    if (
      state.group &&
      !t.clauses.some(function (id) {
        return clauseById[id] && groupOf(clauseById[id]) === state.group;
      })
    )
      return false;
    if (!state.query) return true;
    var q = state.query;
    var hay = [t.name, t.file, t.endpoint, t.reason || '', t.clauses.join(' ')].concat(
      t.observations.map(function (o) {
        return o.message;
      }),
    );
    return hay.join('\n').toLowerCase().indexOf(q) >= 0;
  }
  function clauseMatches(c) {
    if (!state.statuses[c.status]) return false;
    if (state.group && groupOf(c) !== state.group) return false;
    var list = byClause[c.id] || [];
    if (
      state.endpoint &&
      !list.some(function (t) {
        return t.endpoint === state.endpoint;
      })
    )
      return false;
    if (!state.query) return true;
    var q = state.query;
    return (
      (c.id + '\n' + c.text).toLowerCase().indexOf(q) >= 0 ||
      list.some(function (t) {
        return t.name.toLowerCase().indexOf(q) >= 0;
      })
    );
  }

  // ---- the page ----
  function header() {
    var r = s.run;
    var meta = [
      ['Target', r.targetUrl],
      ['Target kind', r.targetKind],
      ['Business mode', r.mode],
      ['Date', r.startedAt && when(r.startedAt)],
      ['Duration', seconds(r.durationMs)],
      ['Spec document', r.specVersion],
      ['Suite', r.suiteVersion],
      ['fast-check seed', r.fcSeed],
      ['Shards', r.shards && r.shards.join(', ')],
      ['Stopped', r.abort],
    ];
    var totals = STATUSES.filter(function (st) {
      return s.totals[st] > 0 || ['pass', 'fail', 'warn', 'skip'].indexOf(st) >= 0;
    });
    return el(
      'header',
      {},
      el(
        'div',
        { class: 'head' },
        el('h1', { text: 'Conformance report' }),
        el('span', { class: 'outcome ' + r.outcome, text: r.outcome }),
        el('span', { class: 'muted', text: plural(s.tests.length, 'test') + ' · ' + plural(s.clauses.length, 'clause') }),
      ),
      el(
        'dl',
        { class: 'meta' },
        meta
          .filter(function (m) {
            return m[1] !== undefined && m[1] !== '';
          })
          .map(function (m) {
            return el('div', {}, el('dt', { text: m[0] }), el('dd', { text: String(m[1]) }));
          }),
      ),
      el(
        'div',
        { class: 'totals', id: 'totals' },
        totals.map(function (st) {
          return el('span', { class: 'chip static ' + (s.totals[st] ? 'st-' + st : 'zero') }, el('b', { text: s.totals[st] }), LABELS[st]);
        }),
        el('span', { class: 'ciline', text: s.line.passed + ' passed, ' + s.line.failed + ' failed, ' + s.line.skipped + ' skipped' }),
      ),
      r.notes.length
        ? el(
            'div',
            { class: 'notes' },
            r.notes.map(function (n) {
              return el('div', { text: 'Note: ' + n });
            }),
          )
        : null,
    );
  }

  function testButton(t, from, why) {
    return el(
      'button',
      {
        class: 'testbtn',
        type: 'button',
        'data-test': t.index,
        onclick: function () {
          go(testLink(t, from));
        },
      },
      badge(t.status),
      el(
        'span',
        {},
        el('span', { class: 'name', text: t.name }),
        ' ',
        el('span', { class: 'file', text: t.file }),
        why ? el('span', { class: 'why', text: why }) : null,
      ),
    );
  }

  function comparison() {
    var c = s.comparison;
    if (!c) return null;
    var b = c.baseline;
    var worse = c.newFailures.length > 0;
    var ratchet = null;
    if (c.failOn === 'new') {
      var fails = c.newFailures.length > 0 || s.totals.error > 0;
      ratchet = el('div', {
        class: 'verdict ' + (fails ? 'bad' : 'good'),
        text:
          'FAIL_ON=new: ' +
          plural(c.newFailures.length, 'new failure') +
          (s.totals.error ? ', ' + s.totals.error + ' ERROR' : '') +
          ', ' +
          plural(c.stillFailing.length, 'known failure') +
          ' of the baseline not counted → the run ' +
          (fails ? 'fails' : 'passes'),
      });
    }
    var kinds = [
      ['newFailures', 'new failures'],
      ['fixed', 'fixed'],
      ['newlySkipped', 'newly skipped'],
      ['added', 'tests added'],
      ['removed', 'tests removed'],
      ['stillFailing', 'still failing (known)'],
    ];
    function ref(r) {
      var t = findTest(r);
      var change = (r.was ? LABELS[r.was] : 'new test') + ' → ' + (r.status ? LABELS[r.status] : 'removed');
      if (!t)
        return el(
          'li',
          {},
          el(
            'div',
            { class: 'testbtn' },
            el(
              'span',
              {},
              el('span', { class: 'name', text: r.name }),
              ' ',
              el('span', { class: 'file', text: r.file }),
              el('span', { class: 'why', text: change }),
            ),
          ),
        );
      return el('li', {}, testButton(t, null, change));
    }
    return el(
      'section',
      { class: 'compare' + (worse ? ' worse' : ''), id: 'comparison' },
      el('h2', { text: 'Compared with the baseline' }),
      el('div', {
        class: 'muted',
        text:
          'Baseline ' +
          b.source +
          ': run of ' +
          when(b.startedAt) +
          (b.targetUrl ? ' against ' + b.targetUrl : '') +
          ', suite ' +
          b.suiteVersion +
          ': ' +
          b.line.passed +
          ' passed, ' +
          b.line.failed +
          ' failed, ' +
          b.line.skipped +
          ' skipped',
      }),
      ratchet,
      el(
        'div',
        { class: 'changes' },
        kinds.map(function (k) {
          return el('span', {}, el('b', { text: c[k[0]].length }), ' ' + k[1]);
        }),
        el('span', {}, el('b', { text: c.clauseChanges.length }), ' clauses changed status'),
      ),
      kinds
        .filter(function (k) {
          return c[k[0]].length > 0;
        })
        .map(function (k) {
          return el(
            'details',
            { open: k[0] === 'newFailures' || k[0] === 'fixed' ? '' : null, id: 'cmp-' + k[0] },
            el('summary', { text: k[1] + ': ' + c[k[0]].length }),
            el('ul', { class: 'tests' }, c[k[0]].map(ref)),
          );
        }),
      c.clauseChanges.length
        ? el(
            'details',
            { open: '', id: 'cmp-clauses' },
            el('summary', { text: 'clauses whose status changed: ' + c.clauseChanges.length }),
            el(
              'ul',
              { class: 'tests' },
              c.clauseChanges.map(function (x) {
                return el(
                  'li',
                  {},
                  el(
                    'button',
                    {
                      class: 'testbtn',
                      type: 'button',
                      onclick: function () {
                        if (clauseById[x.id]) go(clauseLink(x.id));
                      },
                    },
                    clauseBadge(x.to),
                    el(
                      'span',
                      {},
                      el('span', { class: 'name mono', text: x.id }),
                      el('span', { class: 'why', text: 'was ' + x.from + ', now ' + x.to }),
                    ),
                  ),
                );
              }),
            ),
          )
        : null,
    );
  }

  var grid, detail, shown, lists;
  function filters() {
    var counts = {};
    clauses.forEach(function (c) {
      counts[c.status] = (counts[c.status] || 0) + 1;
    });
    var search = el('input', {
      type: 'search',
      placeholder: 'Search clauses and tests (id, text, name)…',
      'aria-label': 'Search',
      oninput: function (e) {
        state.query = e.target.value.trim().toLowerCase();
        update();
      },
    });
    var groups = {};
    clauses.forEach(function (c) {
      groups[groupOf(c)] = true;
    });
    var groupSelect = el(
      'select',
      {
        'aria-label': 'Section',
        onchange: function (e) {
          state.group = e.target.value;
          update();
        },
      },
      el('option', { value: '', text: 'All sections' }),
      Object.keys(groups)
        .sort(byGroup)
        .map(function (g) {
          return el('option', { value: g, text: g.slice(0, 4) === 'sec:' ? 'Section ' + g.slice(4) : g.slice(5) });
        }),
    );
    var endpointSelect = el(
      'select',
      {
        'aria-label': 'Endpoint',
        onchange: function (e) {
          state.endpoint = e.target.value;
          update();
        },
      },
      el('option', { value: '', text: 'All endpoints' }),
      s.endpoints.map(function (e) {
        return el('option', { value: e.endpoint, text: e.endpoint });
      }),
    );
    var chips = el(
      'div',
      { class: 'chips', role: 'group', 'aria-label': 'Clause status' },
      el('span', { class: 'chips-label', text: 'Clauses:' }),
      CLAUSE_STATUSES.filter(function (st) {
        return counts[st];
      }).map(function (st) {
        return el(
          'button',
          {
            type: 'button',
            class: 'chip st-' + CLAUSE_CLASS[st],
            'aria-pressed': 'true',
            'data-status': st,
            title: 'Show or hide clauses that are ' + st,
            onclick: function (e) {
              var b = e.currentTarget;
              state.statuses[st] = !state.statuses[st];
              b.setAttribute('aria-pressed', String(state.statuses[st]));
              update();
            },
          },
          el('b', { text: counts[st] }),
          st,
        );
      }),
    );
    var reset = el('button', {
      type: 'button',
      class: 'reset',
      text: 'Reset',
      onclick: function () {
        state.group = '';
        state.endpoint = '';
        state.query = '';
        search.value = '';
        groupSelect.value = '';
        endpointSelect.value = '';
        CLAUSE_STATUSES.forEach(function (st) {
          state.statuses[st] = true;
        });
        chips.querySelectorAll('button').forEach(function (b) {
          b.setAttribute('aria-pressed', 'true');
        });
        update();
      },
    });
    shown = el('span', { class: 'shown' });
    return el('nav', { class: 'filters', 'aria-label': 'Filters' }, search, groupSelect, endpointSelect, chips, reset, shown);
  }

  function legend() {
    return el(
      'div',
      { class: 'legend', 'aria-label': 'Legend' },
      el('span', { text: 'Clause colours:' }),
      CLAUSE_STATUSES.map(function (st) {
        return el('span', {}, clauseBadge(st), ' ' + MEANING[st]);
      }),
    );
  }

  function tile(c) {
    var list = byClause[c.id] || [];
    var failing = list.filter(function (t) {
      return outcomeFor(t, c.id) === 'fail';
    }).length;
    var errored = list.filter(function (t) {
      return t.status === 'error';
    }).length;
    var n =
      list.length === 0
        ? 'no test'
        : failing
          ? failing + ' of ' + plural(list.length, 'test') + ' failed'
          : errored
            ? errored + ' of ' + list.length + ' not judged'
            : plural(list.length, 'test');
    return el(
      'button',
      {
        type: 'button',
        class: 'tile st-' + CLAUSE_CLASS[c.status],
        'data-clause': c.id,
        title: c.text,
        onclick: function () {
          go(clauseLink(c.id));
        },
      },
      el('span', { class: 'id', text: c.id }),
      el('span', { class: 'row' }, el('span', { class: 'st', text: c.status }), el('span', { class: 'n', text: n })),
      clauseWas[c.id] ? el('span', { class: 'was', text: 'baseline: ' + clauseWas[c.id] }) : null,
    );
  }

  function renderGrid() {
    grid.textContent = '';
    var groups = {};
    var visible = clauses.filter(clauseMatches);
    visible.forEach(function (c) {
      (groups[groupOf(c)] = groups[groupOf(c)] || []).push(c);
    });
    var keys = Object.keys(groups).sort(byGroup);
    keys.forEach(function (g) {
      var list = groups[g];
      var tally = {};
      list.forEach(function (c) {
        tally[c.status] = (tally[c.status] || 0) + 1;
      });
      var title =
        g.slice(0, 4) === 'sec:'
          ? 'Section ' + g.slice(4)
          : g.slice(5) + (g === 'kind:(not in the catalogue)' ? '' : ' (not clauses of the spec)');
      grid.append(
        el(
          'div',
          { class: 'group', 'data-group': g },
          el(
            'h3',
            {},
            el('span', { text: title }),
            el('span', {
              class: 'muted',
              text:
                plural(list.length, 'clause') +
                ': ' +
                CLAUSE_STATUSES.filter(function (st) {
                  return tally[st];
                })
                  .map(function (st) {
                    return tally[st] + ' ' + st;
                  })
                  .join(', '),
            }),
          ),
          el('div', { class: 'tiles' }, list.map(tile)),
        ),
      );
    });
    if (visible.length === 0) grid.append(el('p', { class: 'empty', text: 'No clause matches the filters.' }));
    shown.textContent = visible.length + ' of ' + plural(clauses.length, 'clause') + ' shown';
    markCurrent();
  }

  function markCurrent() {
    var sel = selection();
    var id = sel.clause ? sel.clause.id : sel.from;
    grid.querySelectorAll('.tile').forEach(function (b) {
      b.setAttribute('aria-current', String(b.getAttribute('data-clause') === id));
    });
  }

  function copyButton(text) {
    var b = el('button', { type: 'button', class: 'copy', text: 'Copy' });
    b.addEventListener('click', function () {
      function done() {
        b.textContent = 'Copied';
        b.classList.add('done');
        b.setAttribute('data-copied', 'true');
        setTimeout(function () {
          b.textContent = 'Copy';
          b.classList.remove('done');
        }, 1500);
      }
      function fallback() {
        var ta = el('textarea', { style: 'position:fixed;top:0;left:0;opacity:0' });
        ta.value = text;
        document.body.append(ta);
        ta.select();
        try {
          if (document.execCommand('copy')) done();
          else b.textContent = 'Select the text to copy';
        } catch (_e) {
          b.textContent = 'Select the text to copy';
        }
        ta.remove();
      }
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
      else fallback();
    });
    return b;
  }
  function block(label, text, copyable) {
    return [
      el('div', { class: 'copyline' }, el('span', { class: 'label', text: label }), copyable ? copyButton(text) : null),
      el('pre', { text: text }),
    ];
  }

  function clauseDetail(c) {
    var list = (byClause[c.id] || []).slice().sort(function (a, b) {
      return STATUSES.indexOf(a.status) === STATUSES.indexOf(b.status) ? 0 : order(a) - order(b);
    });
    function order(t) {
      return vocabulary.worstFirst.indexOf(t.status);
    }
    return [
      el('h2', {}, el('span', { class: 'mono', text: c.id }), ' ', clauseBadge(c.status)),
      el('div', { class: 'muted', text: (c.section ? 'Section ' + c.section + ' · ' : '') + 'kind ' + c.kind }),
      el('p', { class: 'clausetext', text: c.text }),
      el('div', {
        class: 'label',
        text: list.length ? plural(list.length, 'test') + ' (click one for its evidence)' : 'No test cites this clause.',
      }),
      el(
        'ul',
        { class: 'tests' },
        list.map(function (t) {
          var why =
            outcomeFor(t, c.id) === 'notRun' && t.status !== 'notRun'
              ? 'not judged here: failed first on ' + t.failure.clauses.join(', ') + ' (' + failureLine(t) + ')'
              : vocabulary.groups.failing.indexOf(t.status) >= 0
                ? failureLine(t)
                : t.reason
                  ? t.reason
                  : t.observations
                      .filter(function (o) {
                        return o.clause === c.id;
                      })
                      .map(function (o) {
                        return 'WARN: ' + o.message;
                      })
                      .join('; ');
          return el('li', {}, testButton(t, c.id, why));
        }),
      ),
    ];
  }

  function failureLine(t) {
    var f = t.failure;
    if (t.status === 'error') return "not judged (the suite's own failure): " + firstLine(t.error || 'errored without a message');
    var more =
      t.failures && t.failures.length > 1
        ? ' (and ' + (t.failures.length - 1) + ' more independent failure' + (t.failures.length > 2 ? 's' : '') + ')'
        : '';
    return f
      ? firstLine(f.check + ': expected ' + f.expected + '; actual ' + f.actual) + more
      : firstLine(t.error || 'failed without an error message');
  }

  function testDetail(t, from) {
    var f = t.failure;
    var was = baselineStatus[t.file + '\u0000' + t.name];
    var rows = [
      ['Status', [badge(t.status), was ? ' (baseline: ' + LABELS[was] + ')' : '']],
      ['File', t.file || '(the run itself)'],
      ['Endpoint', t.endpoint || '—'],
      [
        'Clauses',
        t.clauses.length
          ? t.clauses.map(function (id) {
              return clauseById[id]
                ? el('button', {
                    type: 'button',
                    class: 'back mono',
                    text: id + ' ',
                    onclick: function () {
                      go(clauseLink(id));
                    },
                  })
                : el('span', { class: 'mono', text: id + ' ' });
            })
          : '—',
      ],
      ['Duration', t.durationMs + ' ms'],
    ];
    if (t.seed !== undefined) rows.push(['fast-check seed', String(t.seed)]);
    if (t.reason) rows.push([t.status === 'notRun' ? 'Not run because' : 'Skipped because', t.reason]);
    if (t.skipKind) rows.push(['Kind of skip', t.skipKind]);
    var out = [
      from && clauseById[from]
        ? el('button', {
            type: 'button',
            class: 'back',
            text: '← ' + from,
            onclick: function () {
              go(clauseLink(from));
            },
          })
        : null,
      el('h2', { text: t.name }),
      el(
        'dl',
        {},
        rows.map(function (r) {
          return [el('dt', { text: r[0] }), el('dd', {}, r[1])];
        }),
      ),
    ];
    if (t.status === 'expectedFailure')
      out.push(el('p', { class: 'muted', text: 'Listed in EXPECTED_FAILURES_FILE: a known failure, not counted as failed.' }));
    if (t.status === 'expectedFailurePassed')
      out.push(el('p', { class: 'muted', text: 'Listed in EXPECTED_FAILURES_FILE but passed: remove it from the list.' }));
    if (f) {
      // Several independent checks failed (soft checks): each with its own evidence.
      var all = t.failures && t.failures.length > 1 ? t.failures : [f];
      all.forEach(function (e, i) {
        var n = all.length > 1 ? ' — ' + (i + 1) + ' of ' + all.length + ' independent failures' : '';
        out.push(el('div', { class: 'label', text: 'Check: ' + e.check + ' (clauses ' + e.clauses.join(', ') + ')' + n }));
        out.push(block('Expected', e.expected), block('Actual', e.actual));
        if (e.exchange) out.push(block('Exchange (secrets redacted)', e.exchange));
        if (e.curl) out.push(block('Reproduce with curl', e.curl, true));
      });
    } else if (t.error) {
      if (t.status === 'error')
        out.push(
          el('p', {
            class: 'muted',
            text: "ERROR: the suite's own failure (a timeout, a harness exception, a payer or browser crash). The target was not judged by this test; the run fails until it is fixed or run again.",
          }),
        );
      out.push(block(t.status === 'error' ? 'Error' : 'What failed', t.error));
    }
    if (t.transcript) out.push(transcript(t.transcript));
    if (t.replay) out.push(block('Replay this property (same seed and cases)', t.replay, true));
    if (t.observations.length) {
      out.push(
        el('div', { class: 'label', text: 'Observations (where the spec is silent; never a failure)' }),
        el(
          'ul',
          {},
          t.observations.map(function (o) {
            return el('li', {}, el('span', { class: 'mono', text: o.clause }), ': ' + o.message);
          }),
        ),
      );
    }
    return out;
  }

  // Every step the test made, in order, folded until opened; the failing step marked (and opened).
  function transcript(tr) {
    var steps = tr.steps.map(function (st) {
      if (st.kind === 'gap') return el('li', { class: 'gap', text: st.title });
      var head = [
        el('span', { class: 'at', text: (st.at / 1000).toFixed(2) + ' s' }),
        el('span', { class: 'kind k-' + st.kind, text: st.kind }),
        el('span', { class: 'title', text: st.title }),
        st.failing ? el('span', { class: 'failmark', text: 'failing step' }) : null,
      ];
      if (!st.detail) return el('li', { class: st.failing ? 'failing' : null }, el('div', { class: 'stephead' }, head));
      return el(
        'li',
        { class: st.failing ? 'failing' : null },
        el('details', { open: st.failing ? '' : null }, el('summary', { class: 'stephead' }, head), el('pre', { text: st.detail })),
      );
    });
    return el(
      'details',
      { class: 'transcript', id: 'transcript' },
      el('summary', {
        text:
          'Transcript: ' +
          plural(tr.steps.length, 'step') +
          ' in order (secrets redacted)' +
          (tr.omitted ? ', ' + tr.omitted + ' omitted' : ''),
      }),
      el('ol', { class: 'steps' }, steps),
    );
  }

  function renderDetail() {
    var sel = selection();
    detail.textContent = '';
    if (sel.test) add(detail, testDetail(sel.test, sel.from));
    else if (sel.clause) add(detail, clauseDetail(sel.clause));
    else {
      var failing = clauses.filter(function (c) {
        return c.status === 'FAIL';
      });
      add(detail, [
        el('h2', { text: 'Details' }),
        el('p', {
          text:
            'Click a clause to see its tests, then a test for its evidence: expected and actual, the redacted ' +
            'exchange, a curl line to reproduce it, and the seed and replay command of a property.',
        }),
      ]);
      if (failing.length) {
        add(detail, [
          el('div', { class: 'label', text: 'Failing clauses' }),
          el(
            'ul',
            { class: 'tests' },
            failing.map(function (c) {
              return el(
                'li',
                {},
                el(
                  'button',
                  {
                    type: 'button',
                    class: 'testbtn',
                    onclick: function () {
                      go(clauseLink(c.id));
                    },
                  },
                  clauseBadge(c.status),
                  el('span', {}, el('span', { class: 'name mono', text: c.id }), el('span', { class: 'why', text: c.text })),
                ),
              );
            }),
          ),
        ]);
      }
    }
    detail.scrollTop = 0;
  }

  function renderLists() {
    lists.textContent = '';
    var visible = tests.filter(testMatches);
    function section(id, title, items, render) {
      if (!items.length) return;
      lists.append(el('section', { id: id }, el('h2', { text: title + ': ' + items.length }), render(items)));
    }
    function simple(items, why) {
      return el(
        'ul',
        { class: 'tests' },
        items.map(function (t) {
          return el('li', {}, testButton(t, null, why(t)));
        }),
      );
    }
    function byStatus(list) {
      return visible.filter(function (t) {
        return list.indexOf(t.status) >= 0;
      });
    }
    section('failures', 'Failures (the target broke a clause)', byStatus(['fail']), function (items) {
      return simple(items, failureLine);
    });
    section('errors', "Errors (not judged: the suite's own failure; the run fails)", byStatus(['error']), function (items) {
      return simple(items, failureLine);
    });
    section('expected', 'Expected failures', byStatus(['expectedFailure']), function (items) {
      return simple(items, failureLine);
    });
    section(
      'expected-passed',
      'Expected failures that passed (remove them from EXPECTED_FAILURES_FILE)',
      byStatus(['expectedFailurePassed']),
      function (items) {
        return simple(items, function () {
          return '';
        });
      },
    );
    section(
      'observations',
      'Observations (WARN)',
      visible.filter(function (t) {
        return t.observations.length;
      }),
      function (items) {
        return simple(items, function (t) {
          return t.observations
            .map(function (o) {
              return o.clause + ': ' + o.message;
            })
            .join('\n');
        });
      },
    );
    function byReason(items) {
      var reasons = {};
      items.forEach(function (t) {
        (reasons[t.reason || ''] = reasons[t.reason || ''] || []).push(t);
      });
      return Object.keys(reasons).map(function (r) {
        // A reason shared by many tests (a -t filter, missing credentials) starts folded.
        return el(
          'details',
          { open: reasons[r].length <= 10 ? '' : null },
          el('summary', { class: 'reason', text: (r || '(no reason)') + ' (' + reasons[r].length + ')' }),
          simple(reasons[r], function () {
            return '';
          }),
        );
      });
    }
    // Skips by kind (harness/record/skips.ts), each with what to set to run them, then by reason.
    section('skips', 'Skipped', byStatus(['skip']), function (items) {
      var kinds = {};
      items.forEach(function (t) {
        (kinds[t.skipKind || ''] = kinds[t.skipKind || ''] || []).push(t);
      });
      return Object.keys(kinds).map(function (k) {
        var about = (s.skipKinds || {})[k];
        return el(
          'div',
          { class: 'skipkind' },
          el('h3', { text: (k || '(no kind)') + (about ? ': ' + about.title : '') + ' (' + kinds[k].length + ')' }),
          about ? el('p', { class: 'torun', text: 'To run them: ' + about.toRun + '.' }) : null,
          byReason(kinds[k]),
        );
      });
    });
    section('not-run', 'Not run', byStatus(['notRun']), byReason);
    var head = el(
      'tr',
      {},
      el('th', { text: 'Endpoint' }),
      STATUSES.map(function (st) {
        return el('th', {}, badge(st));
      }),
    );
    lists.append(
      el(
        'section',
        { id: 'endpoints' },
        el('h2', { text: 'Endpoints' }),
        el(
          'div',
          { class: 'scroll' },
          el(
            'table',
            { class: 'counts' },
            el('thead', {}, head),
            el(
              'tbody',
              {},
              s.endpoints.map(function (e) {
                return el(
                  'tr',
                  {},
                  el('td', { class: 'mono', text: e.endpoint }),
                  STATUSES.map(function (st) {
                    return el('td', { text: e.counts[st] || '' });
                  }),
                );
              }),
            ),
          ),
        ),
      ),
    );
  }

  function update() {
    renderGrid();
    renderLists();
  }
  function render() {
    renderDetail();
    markCurrent();
    if (window.innerWidth <= 900 && location.hash) detail.scrollIntoView({ block: 'start' });
  }

  grid = el('main', { id: 'grid', 'aria-label': 'Clauses' });
  detail = el('aside', { class: 'detail', id: 'detail', 'aria-live': 'polite' });
  lists = el('div', { id: 'lists' });
  app.append(
    el('div', { class: 'wrap' }, header(), comparison(), filters(), legend(), el('div', { class: 'layout' }, grid, detail), lists),
  );
  update();
  renderDetail();
  window.addEventListener('hashchange', render);
  // The sticky detail panel sits just below the sticky filter bar, whose height depends on the width.
  var nav = app.querySelector('.filters');
  function fit() {
    document.documentElement.style.setProperty('--filters-h', nav.offsetHeight + 'px');
  }
  fit();
  window.addEventListener('resize', fit);
})();
