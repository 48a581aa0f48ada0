#!/usr/bin/env node
// Validates the vocabulary seed-data files in this folder.
// Plain Node, no dependencies. Usage: node check-seed-data.js
// Prints one summary line per file and exits non-zero on any violation.
'use strict';

const fs = require('fs');
const path = require('path');

const DIR = __dirname;
const errors = [];
const summary = [];

// ISO 3166-1 alpha-2: all 249 officially assigned codes.
const ISO_ALPHA2 = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE ' +
  'BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD ' +
  'CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM ' +
  'DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF ' +
  'GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ' +
  'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN ' +
  'KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME ' +
  'MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA ' +
  'NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM ' +
  'PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI ' +
  'SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK ' +
  'TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI ' +
  'VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

// Expected entry counts (complete lists taken from the sources in README.md).
const EXPECTED = {
  'countries.json': 252,
  'object-types.json': 74,
  'location-methods.json': 23,
  'sampling-methods.json': 34,
  'platform-types.json': 50,
  'launch-types.json': 6,
  'geologic-time-scale.json': 152,
  'agent-role-types.json': 15,
  'material-types.json': 15,
};

function fail(file, msg) {
  errors.push(`${file}: ${msg}`);
}

function load(file) {
  const raw = fs.readFileSync(path.join(DIR, file), 'utf8');
  if (raw.charCodeAt(0) === 0xfeff) fail(file, 'file starts with a BOM');
  const data = JSON.parse(raw);
  if (JSON.stringify(data, null, 2) + '\n' !== raw) {
    fail(file, 'not pretty-printed with 2 spaces and a trailing newline');
  }
  if (!Array.isArray(data)) {
    fail(file, 'top level is not an array');
    return [];
  }
  if (data.length !== EXPECTED[file]) {
    fail(file, `expected ${EXPECTED[file]} entries, found ${data.length}`);
  }
  return data;
}

function checkKeys(file, data, keys) {
  const want = keys.slice().sort().join(',');
  data.forEach((e, i) => {
    const got = Object.keys(e).sort().join(',');
    if (got !== want) fail(file, `entry ${i} has keys [${got}], expected [${want}]`);
  });
}

function isStr(v) {
  return typeof v === 'string';
}

// Nullable string, max length. Required strings must be non-empty, without
// surrounding whitespace.
function checkStr(file, e, i, key, max, { nullable = true } = {}) {
  const v = e[key];
  if (v === null) {
    if (!nullable) fail(file, `entry ${i} ${key} is null`);
    return;
  }
  if (!isStr(v)) return fail(file, `entry ${i} ${key} is not a string or null`);
  if (v.length === 0) fail(file, `entry ${i} ${key} is an empty string (use null)`);
  if (v !== v.trim()) fail(file, `entry ${i} ${key} has surrounding whitespace`);
  if (max && v.length > max) fail(file, `entry ${i} ${key} "${v}" longer than ${max}`);
}

function checkUniqueLabels(file, data) {
  const seen = new Map();
  data.forEach((e, i) => {
    if (!isStr(e.label)) return;
    const k = e.label.toLowerCase();
    if (seen.has(k)) fail(file, `duplicate label "${e.label}" (entries ${seen.get(k)} and ${i})`);
    else seen.set(k, i);
  });
}

function checkUri(file, e, i, key) {
  checkStr(file, e, i, key, 255);
  if (isStr(e[key]) && !/^https?:\/\/\S+$/.test(e[key])) fail(file, `entry ${i} ${key} is not an http(s) URI`);
}

// Flat tree: every parent must appear (as a label) before its children.
function checkParentsFirst(file, data) {
  const seen = new Set();
  data.forEach((e, i) => {
    if (e.parent !== null && !seen.has(e.parent)) {
      fail(file, `entry ${i} "${e.label}" has parent "${e.parent}" that does not appear before it`);
    }
    seen.add(e.label);
  });
}

// Simple label/description/uri vocabularies.
function checkSimple(file) {
  const data = load(file);
  checkKeys(file, data, ['label', 'description', 'uri']);
  data.forEach((e, i) => {
    checkStr(file, e, i, 'label', 255, { nullable: false });
    checkStr(file, e, i, 'description', 0);
    checkUri(file, e, i, 'uri');
  });
  checkUniqueLabels(file, data);
  summary.push(`${file}: ${data.length} entries`);
}

function checkCountries() {
  const file = 'countries.json';
  const data = load(file);
  checkKeys(file, data, ['label', 'iso3166code', 'active']);
  const iso = new Set(ISO_ALPHA2);
  const codeCount = new Map();
  data.forEach((e, i) => {
    checkStr(file, e, i, 'label', 255, { nullable: false });
    checkStr(file, e, i, 'iso3166code', 0);
    if (typeof e.active !== 'boolean') fail(file, `entry ${i} active is not a boolean`);
    if (e.iso3166code !== null) {
      if (!/^[A-Z]{2}$/.test(e.iso3166code))
        fail(file, `entry ${i} code "${e.iso3166code}" is not two capital letters`);
      codeCount.set(e.iso3166code, (codeCount.get(e.iso3166code) || 0) + 1);
    }
    const isIso = iso.has(e.iso3166code);
    if (isIso && e.active !== true)
      fail(file, `entry ${i} "${e.label}" has ISO code ${e.iso3166code} but is not active`);
    if (!isIso && e.active !== false) fail(file, `entry ${i} "${e.label}" is not an ISO 3166-1 country but is active`);
  });
  for (const c of ISO_ALPHA2) {
    const n = codeCount.get(c) || 0;
    if (n !== 1) fail(file, `ISO code ${c} appears ${n} times (expected exactly once)`);
  }
  for (const [c, n] of codeCount) if (n > 1 && !iso.has(c)) fail(file, `code ${c} appears ${n} times`);
  checkUniqueLabels(file, data);
  const active = data.filter((e) => e.active).length;
  summary.push(`${file}: ${data.length} entries (${active} active ISO 3166-1, ${data.length - active} inactive)`);
}

function checkObjectTypes() {
  const file = 'object-types.json';
  const data = load(file);
  checkKeys(file, data, ['label', 'parent', 'description', 'uri']);
  data.forEach((e, i) => {
    checkStr(file, e, i, 'label', 50, { nullable: false });
    checkStr(file, e, i, 'parent', 50);
    checkStr(file, e, i, 'description', 0);
    checkUri(file, e, i, 'uri');
    if (e.parent === e.label) fail(file, `entry ${i} "${e.label}" is its own parent`);
  });
  // All labels unique (parents are referenced by label), which implies unique leaves.
  checkUniqueLabels(file, data);
  checkParentsFirst(file, data);
  // Depth-first order: a child follows its parent or a sibling subtree of it.
  const stack = [];
  data.forEach((e, i) => {
    while (stack.length && stack[stack.length - 1] !== e.parent) stack.pop();
    if (e.parent !== null && stack.length === 0) fail(file, `entry ${i} "${e.label}" breaks depth-first order`);
    stack.push(e.label);
  });
  const parents = new Set(data.map((e) => e.parent).filter((p) => p !== null));
  const leaves = data.filter((e) => !parents.has(e.label));
  const leafKeys = new Map();
  for (const l of leaves) {
    const k = l.label.toLowerCase();
    if (leafKeys.has(k)) fail(file, `duplicate leaf label "${l.label}"`);
    leafKeys.set(k, true);
  }
  const roots = data.filter((e) => e.parent === null).length;
  summary.push(`${file}: ${data.length} entries (${roots} roots, ${leaves.length} leaves)`);
}

function checkGts() {
  const file = 'geologic-time-scale.json';
  const data = load(file);
  checkKeys(file, data, [
    'label',
    'rank',
    'parent',
    'numeric_older_bound',
    'numeric_younger_bound',
    'notation',
    'geologic_time_interval_uri',
    'source',
    'scheme_uri',
  ]);
  const ranks = new Set(['Super-Eon', 'Eon', 'Era', 'Period', 'Sub-Period', 'Epoch', 'Age']);
  data.forEach((e, i) => {
    checkStr(file, e, i, 'label', 50, { nullable: false });
    checkStr(file, e, i, 'parent', 50);
    checkStr(file, e, i, 'notation', 32);
    checkUri(file, e, i, 'geologic_time_interval_uri');
    checkStr(file, e, i, 'source', 255);
    checkUri(file, e, i, 'scheme_uri');
    if (!ranks.has(e.rank)) fail(file, `entry ${i} "${e.label}" has unknown rank "${e.rank}"`);
    for (const k of ['numeric_older_bound', 'numeric_younger_bound']) {
      const v = e[k];
      if (v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
        fail(file, `entry ${i} "${e.label}" ${k} is not a non-negative number or null`);
      }
    }
    if (
      typeof e.numeric_older_bound === 'number' &&
      typeof e.numeric_younger_bound === 'number' &&
      e.numeric_older_bound <= e.numeric_younger_bound
    ) {
      fail(file, `entry ${i} "${e.label}" older bound is not older than younger bound`);
    }
    if (
      isStr(e.geologic_time_interval_uri) &&
      isStr(e.scheme_uri) &&
      !e.geologic_time_interval_uri.startsWith(e.scheme_uri)
    ) {
      fail(file, `entry ${i} "${e.label}" URI is outside scheme ${e.scheme_uri}`);
    }
  });
  checkUniqueLabels(file, data);
  checkParentsFirst(file, data);
  // A unit lies within its parent (margins of error aside).
  const byLabel = new Map(data.map((e) => [e.label, e]));
  data.forEach((e, i) => {
    const p = e.parent === null ? null : byLabel.get(e.parent);
    if (!p) return;
    if (e.numeric_older_bound > p.numeric_older_bound || e.numeric_younger_bound < p.numeric_younger_bound) {
      fail(file, `entry ${i} "${e.label}" lies outside its parent "${p.label}"`);
    }
  });
  const notations = data.filter((e) => e.notation !== null).map((e) => e.notation);
  if (new Set(notations).size !== notations.length) fail(file, 'duplicate notation');
  summary.push(`${file}: ${data.length} entries`);
}

function checkAgentRoleTypes() {
  const file = 'agent-role-types.json';
  const data = load(file);
  checkKeys(file, data, ['label', 'description', 'source']);
  data.forEach((e, i) => {
    checkStr(file, e, i, 'label', 50, { nullable: false });
    checkStr(file, e, i, 'description', 0);
    checkStr(file, e, i, 'source', 255);
  });
  checkUniqueLabels(file, data);
  summary.push(`${file}: ${data.length} entries`);
}

function run(name, fn) {
  const before = errors.length;
  const lines = summary.length;
  try {
    fn();
  } catch (err) {
    fail(name, `could not be checked: ${err.message}`);
  }
  const bad = errors.length - before;
  for (let i = lines; i < summary.length; i++) {
    summary[i] = bad ? `FAIL ${summary[i]} (${bad} violation(s))` : `ok   ${summary[i]}`;
  }
  if (summary.length === lines) summary.push(`FAIL ${name}`);
}

run('countries.json', checkCountries);
run('object-types.json', checkObjectTypes);
for (const f of [
  'location-methods.json',
  'sampling-methods.json',
  'platform-types.json',
  'launch-types.json',
  'material-types.json',
]) {
  run(f, () => checkSimple(f));
}
run('geologic-time-scale.json', checkGts);
run('agent-role-types.json', checkAgentRoleTypes);

// No stray JSON files that this script does not know about.
for (const f of fs.readdirSync(DIR)) {
  if (f.endsWith('.json') && !(f in EXPECTED)) fail(f, 'unexpected file (add it to check-seed-data.js)');
}

for (const line of summary) console.log(line);
if (errors.length) {
  for (const e of errors) console.error(`FAIL ${e}`);
  console.error(`${errors.length} violation(s)`);
  process.exit(1);
}
console.log('seed data: all checks passed');
