// The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), for English search
// terms: "preference", "preferred" and "prefers" all become "prefer". Words that are not plain
// lower-case ASCII letters (identifiers with digits, other scripts) are returned unchanged.

const PLAIN = /^[a-z]+$/;

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m: the number of vowel-consonant sequences in the stem (Porter's [C](VC)^m[V]). */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const c = w[n - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** Replaces the first matching suffix when the remaining stem's measure passes `min` (exclusive). */
function replaceFirst(w: string, rules: readonly (readonly [string, string])[], min: number): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return measure(stem) > min ? stem + replacement : w;
  }
  return w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/** Longest-suffix-first ordering matters in steps 2 and 4: sort once. */
const byLength = <T extends readonly [string, string]>(rules: readonly T[]) => [...rules].sort((a, b) => b[0].length - a[0].length);
const STEP2_SORTED = byLength(STEP2);
const STEP3_SORTED = byLength(STEP3);
const STEP4_SORTED = [...STEP4].sort((a, b) => b.length - a.length);

export function stem(word: string): string {
  if (word.length <= 2 || !PLAIN.test(word)) return word;
  let w = word;
  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b: -eed, -ed, -ing.
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith('ed') ? 'ed' : w.endsWith('ing') ? 'ing' : null;
    if (suffix && hasVowel(w.slice(0, -suffix.length))) {
      w = w.slice(0, -suffix.length);
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCvc(w)) w += 'e';
    }
  }
  // Step 1c: y to i after a vowel in the stem.
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + 'i';
  // Steps 2 and 3: double suffixes to single ones.
  w = replaceFirst(w, STEP2_SORTED, 0);
  w = replaceFirst(w, STEP3_SORTED, 0);
  // Step 4: drop a suffix from a long enough stem (-ion only after s or t).
  for (const suffix of STEP4_SORTED) {
    if (!w.endsWith(suffix)) continue;
    const s = w.slice(0, -suffix.length);
    if (measure(s) > 1 && (suffix !== 'ion' || /[st]$/.test(s))) w = s;
    break;
  }
  // Step 5: a final e, and a double l.
  if (w.endsWith('e')) {
    const s = w.slice(0, -1);
    const m = measure(s);
    if (m > 1 || (m === 1 && !endsCvc(s))) w = s;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
