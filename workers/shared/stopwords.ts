// Stop words: one English list for lexical terms (text engine, issue detection, Knowledge Hub,
// evidence checks on stored documents), and the short list of question words code search drops
// from a query (identifiers reuse ordinary English words such as `up`, `over` or `after`, so code
// search keeps them).

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have how i if in into is it its ' +
    'of on or our so such than that the their them then there these they this those to was we were what when where ' +
    'which while who whom why will with would you your yours he she his her him my me also any all each more most other ' +
    'some only own same too very just about over under again further once here both few nor up down out off above below ' +
    'between through during before after because until s t d ll re ve m o y'
  ).split(' '),
);

export const QUERY_STOPWORDS: ReadonlySet<string> = new Set(
  'the a an of to in is and or for on with how what where does do which that this it be are by as from at when why'.split(' '),
);
